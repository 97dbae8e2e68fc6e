/**
 * CorrelatedScalarSubqueryExec runs a correlated subquery's plan once per tuple of outer values a
 * batch holds, keeps the values for the batch's pieces, and reads the tables again at the next
 * batch (they may have changed, as a stream-static join's side is read again).
 */
import { describe, expect, it } from 'vitest';
import { compileStreamingQuery } from '../query/streaming-query';
import type { Row } from '../types';
import type { StaticTableSpec } from './stream-static-join';

const events = { kind: 'StreamingRelation' as const, sourceName: 'events', schema: [{ name: 'id', type: 'long' as const }, { name: 'k', type: 'long' as const }] };
const regions: StaticTableSpec = { name: 'regions', path: 'memory:regions', format: 'json', schema: [{ name: 'weight', type: 'long' }] };
const SQL = 'SELECT id, (SELECT count(*) FROM regions r WHERE r.weight > e.k) AS n FROM events e';

/** The query's operators over `rows` as batch `batchId`, its tables read from `tables` (each read counted). */
function runner(tables: { weights: number[]; reads: number }) {
  const q = compileStreamingQuery(SQL, events, { staticTables: [regions] });
  const loadStaticTable = async (): Promise<Row[]> => {
    tables.reads++;
    return tables.weights.map((weight) => ({ weight }));
  };
  return async (rows: Row[], batchId: number) => {
    let out = rows;
    for (const op of q.operators) out = await op.execute(out, { batchId, batchWatermarkMs: 0, batchTimestampMs: 0, loadStaticTable });
    return out;
  };
}

describe('CorrelatedScalarSubqueryExec', () => {
  it('runs the plan once per tuple of outer values in a batch, and again at the next batch', async () => {
    const tables = { weights: [1, 5, 9], reads: 0 };
    const run = runner(tables);
    expect(await run([{ id: 1, k: 4 }, { id: 2, k: 0 }, { id: 3, k: 4 }, { id: 4, k: null }], 0))
      .toEqual([{ id: 1, n: 2 }, { id: 2, n: 3 }, { id: 3, n: 2 }, { id: 4, n: 0 }]);
    // One read of the table for the three tuples (4, 0, NULL).
    expect(tables.reads).toBe(1);
    // A piece of the same batch: the tuple it has run for reads its value, a new one runs.
    expect(await run([{ id: 5, k: 4 }], 0)).toEqual([{ id: 5, n: 2 }]);
    expect(tables.reads).toBe(1);
    expect(await run([{ id: 6, k: 8 }], 0)).toEqual([{ id: 6, n: 1 }]);
    expect(tables.reads).toBe(2);
    // The next batch reads the table as it is then.
    tables.weights = [10];
    expect(await run([{ id: 7, k: 4 }], 1)).toEqual([{ id: 7, n: 1 }]);
  });
});
