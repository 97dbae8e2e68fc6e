/**
 * mode() of a MAP (Spark 4's Mode counts any value: two maps are the same value when their
 * entries are, in their order), in a query and in a stream's state across a restart; and
 * mode(x, true), which picks among the most frequent by their order, failing as Spark's eval
 * does (_LEGACY_ERROR_TEMP_2005) where the values have none, once a group has one.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { StatefulQueryRunner } from './testing/stateful-test-harness';
import { selectStatic } from './testing/spark-printed';

const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: [{ name: 'k', type: 'long' as const }, { name: 'v', type: 'string' as const }] };
/** A MAP value's entries as text (Weir keeps a map as an object of its entries). */
const entries = (m: unknown) => JSON.stringify(m);

describe('mode of a MAP', () => {
  it('is the most frequent map, maps of the same entries counted as one value', async () => {
    const { rows } = await selectStatic("SELECT mode(m) AS o, mode(m, false) AS f FROM VALUES (map(1, 'a')), (map(2, 'b')), (map(1, 'a')), (map(2, 'c')) AS t(m)", []);
    expect(entries(rows[0].o)).toBe('{"1":"a"}');
    expect(entries(rows[0].f)).toBe('{"1":"a"}');
  });

  it('counts maps in a stream\'s state, across a restart', async () => {
    const runner = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), 'SELECT k, mode(map(\'x\', v)) AS o FROM src GROUP BY k', rel, 'complete');
    await runner.runBatch([{ k: 1, v: 'a' }, { k: 1, v: 'b' }]);
    runner.restart();
    const { output } = await runner.runBatch([{ k: 1, v: 'b' }]);
    expect(output.map((r) => [r.k, entries(r.o)])).toEqual([[1, '{"x":"b"}']]);
  });

  it('fails deterministic, once a group has a map (_LEGACY_ERROR_TEMP_2005), and is NULL over no rows', async () => {
    const err = await selectStatic("SELECT mode(m, true) FROM VALUES (map(1, 'a')) AS t(m)", []).then(() => null, (e: unknown) => e);
    expect((err as { errorClass?: string }).errorClass).toBe('_LEGACY_ERROR_TEMP_2005');
    const { rows } = await selectStatic("SELECT mode(m, true) AS o FROM VALUES (map(1, 'a')) AS t(m) WHERE false", []);
    expect(rows).toEqual([{ o: null }]);
  });
});
