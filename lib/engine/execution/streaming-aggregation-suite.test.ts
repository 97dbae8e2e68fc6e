/**
 * Spark's StreamingAggregationSuite, translated action by action with Spark's per-batch answers
 * (CheckLastBatch: the last batch's rows in Update and Complete mode) and state metrics.
 */
import { describe, expect, it } from 'vitest';
import { validateJob } from '../spec/validate-job';
import { AddData, assertNumStateRows, CheckLastBatch, sparkStreams, StartStream, StopStream, type SparkAction, type SparkSource } from './testing/spark-stream-test';

const INTS: SparkSource = { schema: [{ name: 'value', type: 'long', integral: 32 }] };
const v = (...xs: number[]) => xs.map((value) => ({ value }));
const COUNT = 'SELECT value, count(*) AS count FROM inputData GROUP BY value';

/** CheckLastBatch(isSorted = true, …): the last batch's rows in this order. */
const CheckLastBatchSorted = (...rows: unknown[][]): SparkAction => async (t) => {
  await (await t.ensureStarted()).processAllAvailable();
  const last = t.newBatches().at(-1) ?? [];
  expect(last.map((r) => Object.values(r))).toEqual(rows);
};

/** The aggregation's StateStoreSaveExec metrics: output rows of the last batch, state rows updated and in total. */
const stateNode = (numOutputRows: number, numUpdatedStateRows: number, numTotalStateRows: number): SparkAction => (t) => {
  const last = t.progress.at(-1)!;
  expect(last.stateOperators).toHaveLength(1);
  expect({ numOutputRows: t.table.batches.at(-1)!.rows.length, numUpdatedStateRows: last.stateOperators[0].numRowsUpdated, numTotalStateRows: last.stateOperators[0].numRowsTotal })
    .toEqual({ numOutputRows, numUpdatedStateRows, numTotalStateRows });
};

describe('StreamingAggregationSuite', () => {
  it('simple count, update mode', async () => {
    await sparkStreams({ sources: { inputData: INTS }, outputMode: 'update', sql: COUNT }).run(
      AddData('inputData', ...v(3)),
      CheckLastBatch([3, 1]),
      AddData('inputData', ...v(3, 2)),
      CheckLastBatch([3, 2], [2, 1]),
      StopStream,
      StartStream,
      AddData('inputData', ...v(3, 2, 1)),
      CheckLastBatch([3, 3], [2, 2], [1, 1]),
      // By default we run in new tuple mode.
      AddData('inputData', ...v(4, 4, 4, 4)),
      CheckLastBatch([4, 4]),
    );
  });

  it('count distinct', async () => {
    const t = sparkStreams({
      sources: { inputData: { schema: [{ name: '_1', type: 'long', integral: 32 }, { name: '_2', type: 'array', elementType: { type: 'long', integral: 32 } }] } },
      outputMode: 'update',
      sql: 'SELECT _1, size(collect_set(value)) AS n FROM (SELECT *, explode(_2) AS value FROM inputData) GROUP BY _1',
    });
    await t.run(AddData('inputData', { _1: 1, _2: [1, 2] }), CheckLastBatch([1, 2]));
  });

  it('simple count, complete mode', async () => {
    await sparkStreams({ sources: { inputData: INTS }, outputMode: 'complete', sql: COUNT }).run(
      AddData('inputData', ...v(3)),
      CheckLastBatch([3, 1]),
      AddData('inputData', ...v(2)),
      CheckLastBatch([3, 1], [2, 1]),
      StopStream,
      StartStream,
      AddData('inputData', ...v(3, 2, 1)),
      CheckLastBatch([3, 2], [2, 2], [1, 1]),
      AddData('inputData', ...v(4, 4, 4, 4)),
      CheckLastBatch([4, 4], [3, 2], [2, 2], [1, 1]),
    );
  });

  it('simple count, append mode', () => {
    const e = validateJob(sparkStreams({ sources: { inputData: INTS }, sql: COUNT }).spec).errors.map((x) => x.message).join(' ').toLowerCase();
    for (const m of ['append', 'not supported']) expect(e).toContain(m);
  });

  it('sort after aggregate in complete mode', async () => {
    await sparkStreams({ sources: { inputData: INTS }, outputMode: 'complete', sql: `${COUNT} ORDER BY count DESC` }).run(
      AddData('inputData', ...v(3)),
      CheckLastBatchSorted([3, 1]),
      AddData('inputData', ...v(2, 3)),
      CheckLastBatchSorted([3, 2], [2, 1]),
      StopStream,
      StartStream,
      AddData('inputData', ...v(3, 2, 1)),
      CheckLastBatchSorted([3, 3], [2, 2], [1, 1]),
      AddData('inputData', ...v(4, 4, 4, 4)),
      CheckLastBatchSorted([4, 4], [3, 3], [2, 2], [1, 1]),
    );
  });

  describe.each([
    ['update', [[1, 1], [2, 1]], [[2, 2], [3, 2], [4, 1]], [2, 2, 2, 3, 3, 4]],
    ['complete', [[1, 1], [2, 1]], [[1, 1], [2, 2], [3, 2], [4, 1]], [2, 2, 2, 4, 3, 4]],
  ] as const)('state metrics (%s mode)', (mode, first, second, m) => {
    it('counts the state rows updated and in total as Spark\'s StateStoreSaveExec', async () => {
      // flatMap(x => Seq(x, x + 1)) is explode(array(value, value + 1)).
      await sparkStreams({ sources: { inputData: INTS }, outputMode: mode, sql: 'SELECT value, count(*) AS count FROM (SELECT explode(array(value, value + 1)) AS value FROM inputData) GROUP BY value' }).run(
        AddData('inputData', ...v(1)),
        CheckLastBatch(...first.map((r) => [...r])),
        stateNode(m[0], m[1], m[2]),
        AddData('inputData', ...v(2, 3)),
        CheckLastBatch(...second.map((r) => [...r])),
        stateNode(m[3], m[4], m[5]),
      );
    });
  });

  it('multiple keys', async () => {
    await sparkStreams({ sources: { inputData: INTS }, outputMode: 'update', sql: 'SELECT value, value + 1 AS next, count(*) AS count FROM inputData GROUP BY value, value + 1' }).run(
      AddData('inputData', ...v(1, 2)),
      CheckLastBatch([1, 2, 1], [2, 3, 1]),
      AddData('inputData', ...v(1, 2)),
      CheckLastBatch([1, 2, 2], [2, 3, 2]),
    );
  });

  it('typed aggregators (sum by key)', async () => {
    const t = sparkStreams({ sources: { inputData: { schema: [{ name: '_1', type: 'string' }, { name: '_2', type: 'long', integral: 32 }] } }, outputMode: 'update', sql: 'SELECT _1, sum(_2) AS s FROM inputData GROUP BY _1' });
    await t.run(
      AddData('inputData', ...[['a', 10], ['a', 20], ['b', 1], ['b', 2], ['c', 1]].map(([_1, _2]) => ({ _1, _2 }))),
      CheckLastBatch(['a', 30], ['b', 3], ['c', 1]),
    );
  });

  it('SPARK-21977: a global count in complete mode, with batches of no rows between', async () => {
    await sparkStreams({ sources: { inputData: INTS }, outputMode: 'complete', sql: 'SELECT count(*) AS count FROM inputData' }).run(
      AddData('inputData', ...v(1)),
      CheckLastBatch([1]),
      assertNumStateRows({ total: 1, updated: 1 }),
      AddData('inputData', ...v(2, 3)),
      CheckLastBatch([3]),
    );
  });
});

describe('GROUP BY a key listed twice (Spark groups by it as by one)', () => {
  it('groups and keeps state as GROUP BY value', async () => {
    await sparkStreams({ sources: { inputData: INTS }, outputMode: 'update', sql: 'SELECT value, count(*) AS count FROM inputData GROUP BY value, value' }).run(
      AddData('inputData', ...v(3, 3, 2)),
      CheckLastBatch([3, 2], [2, 1]),
      assertNumStateRows({ total: 2, updated: 2 }),
    );
  });
});

describe("a STRING where a percentile takes a number (Spark's ImplicitTypeCasts: read as a DOUBLE)", () => {
  it('median, percentile and percentile_approx of numeric text; text that is no number is skipped', async () => {
    const TEXT: SparkSource = { schema: [{ name: 's', type: 'string' }] };
    const s = (...xs: string[]) => xs.map((x) => ({ s: x }));
    await sparkStreams({ sources: { inputData: TEXT }, outputMode: 'complete', sql: 'SELECT median(s) AS m, percentile(s, 0.5) AS p, percentile_approx(s, 0.5) AS a FROM inputData' }).run(
      AddData('inputData', ...s('1.5', '2', 'x')),
      CheckLastBatch([1.75, 1.75, 1.5]),
      StopStream,
      StartStream,
      AddData('inputData', ...s('10')),
      CheckLastBatch([2, 2, 2]),
    );
  });
});
