/**
 * raise_error and assert_true (Spark's RaiseError and AssertTrue): a row whose expression raises
 * fails the batch with Spark's message, or is set aside as a bad record when the execution takes
 * record errors (onBadRecord "dead-letter"); the other rows go on.
 */
import { describe, expect, it } from 'vitest';
import { RecordExpressionError } from '../errors';
import type { OperatorContext } from '../operators/physical-operator';
import type { Row, Schema } from '../types';
import { compileStreamingQuery } from './streaming-query';

const SCHEMA: Schema = [{ name: 'id', type: 'long' }, { name: 'amount', type: 'double' }];
const rel = { kind: 'StreamingRelation' as const, sourceName: 'orders', schema: SCHEMA };
const ROWS: Row[] = [{ id: 1, amount: 5 }, { id: 2, amount: -3 }, { id: 3, amount: null }];

async function run(sql: string, ctx: Partial<OperatorContext> = {}): Promise<Row[]> {
  const q = compileStreamingQuery(sql, rel);
  let out = ROWS;
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0, ...ctx });
  return out;
}

async function failure(sql: string): Promise<RecordExpressionError> {
  try {
    await run(sql);
  } catch (e) {
    if (e instanceof RecordExpressionError) return e;
    throw e;
  }
  throw new Error(`expected ${sql} to raise`);
}

describe('raise_error and assert_true', () => {
  it("fails the batch with Spark's USER_RAISED_EXCEPTION message", async () => {
    expect((await failure("SELECT raise_error('custom error message') FROM orders")).message).toBe('[USER_RAISED_EXCEPTION] custom error message');
    expect((await failure("SELECT id, CASE WHEN amount < 0 THEN raise_error(concat('negative amount in order ', id)) ELSE amount END AS amount FROM orders")).message)
      .toBe('[USER_RAISED_EXCEPTION] negative amount in order 2');
    // A number is the message's text, as Spark casts it.
    expect((await failure('SELECT raise_error(42) FROM orders')).message).toBe('[USER_RAISED_EXCEPTION] 42');
  });

  it("assert_true is NULL where its condition holds, and raises Spark's `'<cond>' is not true!` where it does not or is NULL", async () => {
    const ok = await run('SELECT id, assert_true(id > 0) AS checked FROM orders');
    expect(ok.map((r) => r.checked)).toEqual([null, null, null]);
    expect((await failure('SELECT assert_true(amount > 0) FROM orders')).message).toBe("[USER_RAISED_EXCEPTION] '(amount > 0)' is not true!");
    expect((await failure("SELECT assert_true(amount IS NOT NULL AND id < 3, 'amount missing') FROM orders")).message).toBe('[USER_RAISED_EXCEPTION] amount missing');
  });

  it('hands the raising row to the bad-record policy, and keeps the others', async () => {
    const bad: [Row, string][] = [];
    const out = await run("SELECT id, CASE WHEN amount < 0 THEN raise_error('negative amount') ELSE amount END AS amount FROM orders", {
      onRecordError: (row, e) => bad.push([row, e.message]),
    });
    expect(out).toEqual([{ id: 1, amount: 5 }, { id: 3, amount: null }]);
    expect(bad).toEqual([[{ id: 2, amount: -3 }, '[USER_RAISED_EXCEPTION] negative amount']]);
  });

  it('refuses a message that is no text', () => {
    expect(() => compileStreamingQuery('SELECT raise_error(true) FROM orders', rel)).toThrow(/raise_error\(\) takes a message \(a STRING\), got boolean/);
  });
});
