/**
 * Spark's function library beyond the first sets: the answers Spark gives (or its errors, with
 * their error classes) for the forms that used to give a different answer, the collection, map,
 * struct, string and date-time functions added since, and the argument forms Spark accepts. Each
 * runs end to end (SQL text → plan → operators) on the examples of Spark's function reference
 * (the `> SELECT …` lines of each @ExpressionDescription and the results Spark prints).
 */
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import type { Row, Schema } from '../types';
import { formatDate } from './date';
import { formatDecimal } from './decimal';
import { compileStreamingQuery } from './streaming-query';
import { StatefulQueryRunner } from './testing/stateful-test-harness';

const SCHEMA: Schema = [{ name: 'id', type: 'long' }, { name: 'n', type: 'long' }, { name: 's', type: 'string' }];
const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: SCHEMA };

async function one(expr: string): Promise<unknown> {
  const q = compileStreamingQuery(`SELECT ${expr} AS v FROM src`, rel);
  let out: Row[] = [{ id: 1, n: null, s: 'Spark' }];
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  const f = q.outputSchema[0];
  if (f.type === 'date' && typeof out[0].v === 'number') return `${formatDate(out[0].v)}::DATE`;
  return f.type === 'decimal' && typeof out[0].v === 'bigint' ? `${formatDecimal(out[0].v, f.scale ?? 0)}::DECIMAL(${f.precision},${f.scale})` : out[0].v;
}

/** The error a query gives, compiled or run: its message and error class. */
async function failure(expr: string): Promise<{ message: string; errorClass?: string }> {
  try {
    await one(expr);
  } catch (e) {
    return { message: (e as Error).message, errorClass: (e as { errorClass?: string }).errorClass };
  }
  throw new Error(`expected ${expr} to fail`);
}

describe('answers where Spark fails or differs', () => {
  it("date_add with a BIGINT day count: Spark's DATATYPE_MISMATCH", async () => {
    const e = await failure("date_add('2011-11-11', 1L)");
    expect(e.errorClass).toBe('DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
    expect(e.message).toMatch(/requires the \("INT" or "SMALLINT" or "TINYINT"\) type, however it has the type "BIGINT"/);
    expect((await failure("date_sub('2011-11-11', CAST(1 AS BIGINT))")).errorClass).toBe('DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
    expect((await failure("date_add('2011-11-11', 3000000000)")).errorClass).toBe('DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
    // An INT literal, a narrower cast or a column (Weir's columns are BIGINT) still work.
    expect(await one("date_add('2011-11-11', 1)")).toBe('2011-11-12::DATE');
    expect(await one("date_add('2011-11-11', CAST(1 AS INT))")).toBe('2011-11-12::DATE');
    expect(await one("date_add('2011-11-11', id)")).toBe('2011-11-12::DATE');
  });

  it('timestamp_seconds past the microseconds a BIGINT holds overflows, as Spark', async () => {
    expect((await failure('timestamp_seconds(1230219000123123)')).message).toMatch(/ARITHMETIC_OVERFLOW\] long overflow/);
    expect(await one('timestamp_seconds(1230219000)')).toBe(Date.UTC(2008, 11, 25, 15, 30));
    expect(await one('timestamp_seconds(1230219000.123)')).toBe(Date.UTC(2008, 11, 25, 15, 30, 0, 123));
    expect(await one("timestamp_seconds(CAST('NaN' AS DOUBLE))")).toBeNull();
  });

  it("encode to a charset that cannot hold a character: Spark's MALFORMED_CHARACTER_CODING", async () => {
    expect((await failure("encode('abc😀', 'US-ASCII')")).message).toMatch(/\[MALFORMED_CHARACTER_CODING\] Invalid value found when performing `encode` with `US-ASCII`/);
    expect((await failure("encode('ā', 'ISO-8859-1')")).message).toMatch(/MALFORMED_CHARACTER_CODING/);
    expect(await one("hex(encode('abc', 'US-ASCII'))")).toBe('616263');
    expect(await one("hex(encode('é', 'ISO-8859-1'))")).toBe('E9');
    expect((await failure("decode(X'61E9', 'US-ASCII')")).message).toMatch(/\[MALFORMED_CHARACTER_CODING\] Invalid value found when performing `decode` with `US-ASCII`/);
    expect((await failure("decode(X'61FF', 'UTF-8')")).message).toMatch(/MALFORMED_CHARACTER_CODING/);
    expect(await one("decode(X'61E9', 'ISO-8859-1')")).toBe('aé');
  });

  it("regexp_replace with a position of 0 or less: Spark's VALUE_OUT_OF_RANGE", async () => {
    expect((await failure("regexp_replace('abc', 'b', 'x', 0)")).message).toMatch(/\[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE\] The `position` must be between \(0, 2147483647\], but got 0/);
    expect((await failure("regexp_replace('abc', 'b', 'x', -1)")).message).toMatch(/but got -1/);
    expect((await failure("regexp_replace('abc', 'b', 'x', id - 1)")).message).toMatch(/but got 0/);
    expect(await one("regexp_replace('abcb', 'b', 'x', 3)")).toBe('abcx');
  });

  it('conv of a negative number: the two\'s complement, all ones when it overflows, as Spark', async () => {
    expect(await one("conv('-9223372036854775807', 36, 10)")).toBe('18446744073709551615');
    expect(await one("conv('-1', 10, 10)")).toBe('18446744073709551615');
    expect(await one("conv('-10', 16, -10)")).toBe('-16');
    expect(await one("conv('100', 2, 10)")).toBe('4');
    expect(await one("conv('9223372036854775808', 10, -10)")).toBe('-9223372036854775808');
  });

  it('regexp_substr: an empty match is NULL, as no match is', async () => {
    expect(await one("regexp_substr('1a 2b 14m', '')")).toBeNull();
    expect(await one("regexp_substr('1a 2b 14m', '\\\\d+')")).toBe('1');
    expect(await one("regexp_substr('1a 2b 14m', 'x*')")).toBeNull();
  });

  it('a global aggregate in complete mode emits its one row when no row came, as Spark: count 0, sum NULL', async () => {
    const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), 'SELECT COUNT(1) AS c, sum(n) AS t FROM src WHERE false', rel, 'complete');
    expect((await q.runBatch([{ id: 1, n: 2, s: 'a' }])).output).toEqual([{ c: 0, t: null }]);
    const g = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), 'SELECT COUNT(1) AS c FROM src WHERE n > 1', rel, 'complete');
    expect((await g.runBatch([{ id: 1, n: 1, s: 'a' }])).output).toEqual([{ c: 0 }]);
    expect((await g.runBatch([{ id: 1, n: 2, s: 'a' }])).output).toEqual([{ c: 1 }]);
    // Grouped: no group, no row.
    const k = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), 'SELECT s, COUNT(1) AS c FROM src WHERE false GROUP BY s', rel, 'complete');
    expect((await k.runBatch([{ id: 1, n: 1, s: 'a' }])).output).toEqual([]);
  });
});
