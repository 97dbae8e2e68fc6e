/**
 * LIMIT and OFFSET over a whole result (a batch plan's input, a Complete mode batch's output):
 * OFFSET skips the first rows in their order, and a LIMIT above it takes from what is left, as
 * Spark's GlobalLimitExec(limit, child, offset) does.
 */
import { describe, expect, it } from 'vitest';
import type { Row, Schema } from '../types';
import { limitExec, offsetExec } from './streaming-limit';

const schema: Schema = [{ name: 'n', type: 'long' }];
const rows: Row[] = [1, 2, 3, 4, 5, 6].map((n) => ({ n }));
const ctx = { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 };
const run = async (ops: ReturnType<typeof offsetExec>[], input: Row[] = rows) => {
  let out = input;
  for (const op of ops) out = await op.execute(out, ctx);
  return out.map((r) => r.n);
};

describe('offsetExec (a batch plan\'s OFFSET)', () => {
  it('skips the first rows, in their order', async () => {
    expect(await run([offsetExec(2, schema)])).toEqual([3, 4, 5, 6]);
    expect(await run([offsetExec(0, schema)])).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await run([offsetExec(6, schema)])).toEqual([]);
    expect(await run([offsetExec(100, schema)])).toEqual([]);
    expect(await run([offsetExec(1, schema)], [])).toEqual([]);
  });

  it('LIMIT 3 OFFSET 2 is rows 3 to 5: the Limit above the Offset takes from what it leaves', async () => {
    expect(await run([offsetExec(2, schema), limitExec('complete', -1, 3, schema)])).toEqual([3, 4, 5]);
    expect(await run([offsetExec(5, schema), limitExec('complete', -1, 3, schema)])).toEqual([6]);
    expect(await run([offsetExec(2, schema), limitExec('complete', -1, 0, schema)])).toEqual([]);
  });

  it('is stateless, named as the explain names it, and keeps its input unchanged', async () => {
    const op = offsetExec(2, schema);
    expect(op.stateful).toBe(false);
    expect(op.name).toBe('Offset');
    expect(limitExec('complete', -1, 3, schema).name).toBe('Limit');
    const input = rows.slice();
    await op.execute(input, ctx);
    expect(input).toEqual(rows);
  });
});
