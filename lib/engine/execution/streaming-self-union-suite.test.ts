/**
 * Spark's StreamingSelfUnionSuite: a stream unioned with itself reads each batch once per read,
 * and reports one source whose input rows count every read. The DSv1 file source and the table
 * API variants are the same query over another source; the memory stream stands for them.
 */
import { describe, expect, it } from 'vitest';
import { AddData, CheckLastBatch, Execute, sparkStreams } from './testing/spark-stream-test';

describe('StreamingSelfUnionSuite', () => {
  it('self-union, DSv2, read via DataStreamReader API', async () => {
    const t = sparkStreams({
      sources: { inputData: { schema: [{ name: 'value', type: 'long', integral: 32 }] } },
      sql: 'SELECT * FROM inputData UNION ALL SELECT * FROM inputData',
    });
    await t.run(
      AddData('inputData', ...[1, 2, 3].map((value) => ({ value }))),
      CheckLastBatch([1], [2], [3], [1], [2], [3]),
      Execute((s) => {
        const last = s.progress.filter((p) => p.numInputRows > 0).at(-1)!;
        expect(last.numInputRows).toBe(6);
        expect(last.sources).toHaveLength(1);
        expect(last.sources[0].numInputRows).toBe(6);
      }),
    );
  });
});
