/**
 * The functions that walk every match of a value (regexp_replace, regexp_count,
 * regexp_extract_all, split) cost the value's length, not the value's length per match, and
 * regexp_replace cannot build more than 1 MiB however its replacement multiplies a match.
 *
 * Linearity is shown without a clock: the test counts the characters read from JavaScript
 * strings (`charCodeAt`/`codePointAt`, which both RE2 ports use to read a value) while one record
 * is evaluated, at N and 4N characters. A walk that reads the value once per match reads 16
 * times as much at 4N; a linear one about 4 times.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RecordExpressionError } from '../errors';
import type { Row } from '../types';
import { compileStreamingQuery } from './streaming-query';
import { MAX_STRING_VALUE_LENGTH } from './value-limits';

const relation = {
  kind: 'StreamingRelation' as const,
  sourceName: 'src',
  schema: [{ name: 's', type: 'string' as const }, { name: 'p', type: 'string' as const }],
};

async function evaluate(sql: string, row: Row): Promise<unknown> {
  const q = compileStreamingQuery(sql, relation);
  let out: Row[] = [row];
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  return out[0].v;
}

const proto = String.prototype;
const { charCodeAt, codePointAt } = proto;
afterEach(() => {
  proto.charCodeAt = charCodeAt;
  proto.codePointAt = codePointAt;
});

/** Characters read from strings while `sql` is evaluated over one row whose `s` is `value`. */
async function charactersRead(sql: string, value: string): Promise<{ reads: number; v: unknown }> {
  const q = compileStreamingQuery(sql, relation);
  let reads = 0;
  proto.charCodeAt = function (this: string, i: number) {
    reads++;
    return charCodeAt.call(this, i);
  };
  proto.codePointAt = function (this: string, i: number) {
    reads++;
    return codePointAt.call(this, i);
  };
  try {
    let out: Row[] = [{ s: value, p: '' }];
    for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
    return { reads, v: out[0].v };
  } finally {
    proto.charCodeAt = charCodeAt;
    proto.codePointAt = codePointAt;
  }
}

const N = 2000;
// One match per character or two, so a walk that rereads the value per match is quadratic.
const text = (n: number) => 'ab'.repeat(n / 2);

describe('a walk over every match reads the value once', () => {
  it.each([
    ["regexp_count(s, '[ab]')", (n: number) => n],
    ["regexp_replace(s, '[ab]', 'x')", (n: number) => 'x'.repeat(n)],
    ["size(regexp_extract_all(s, '([ab])', 1))", (n: number) => n],
    ["size(split(s, '[bc]'))", (n: number) => n / 2 + 1],
    ["regexp_count(s, '')", (n: number) => n + 1],
  ])('%s reads about 4 times as much at 4N as at N', async (expr, expected) => {
    const sql = `SELECT ${expr} AS v FROM src`;
    const small = await charactersRead(sql, text(N));
    const large = await charactersRead(sql, text(4 * N));
    expect(small.v).toEqual(expected(N));
    expect(large.v).toEqual(expected(4 * N));
    expect(small.reads).toBeGreaterThan(0);
    expect(large.reads / small.reads).toBeLessThan(5);
  });

  it('a value of a million characters is walked whole', async () => {
    const s = 'ab'.repeat(1 << 19);
    expect(await evaluate("SELECT regexp_count(s, '[ab]') AS v FROM src", { s, p: '' })).toBe(1 << 20);
    expect(await evaluate("SELECT size(regexp_extract_all(s, '(a)b', 1)) AS v FROM src", { s, p: '' })).toBe(1 << 19);
    expect(await evaluate("SELECT size(split(s, 'b|x')) AS v FROM src", { s, p: '' })).toBe((1 << 19) + 1);
    expect(await evaluate("SELECT length(regexp_replace(s, 'b', '')) AS v FROM src", { s, p: '' })).toBe(1 << 19);
  });

  it('keeps Java find() stepping over emoji and after empty matches', async () => {
    expect(await evaluate("SELECT regexp_replace(s, '', '-') AS v FROM src", { s: '😀b😀', p: '' })).toBe('-😀-b-😀-');
    expect(await evaluate("SELECT regexp_replace(s, 'a*', '-') AS v FROM src", { s: 'baac', p: '' })).toBe('-b--c-');
    expect(await evaluate("SELECT regexp_extract_all(s, '(\\\\w)(\\\\d)?', 2) AS v FROM src", { s: 'a1😀b', p: '' })).toEqual(['1', '']);
    expect(await evaluate("SELECT regexp_count(s, '\\\\u0061|\\\\x{1F600}') AS v FROM src", { s: 'a😀a', p: '' })).toBe(3);
  });
});

describe('regexp_replace builds at most 1 MiB', () => {
  it('a replacement that repeats a match thousands of times fails the record before building it', async () => {
    const s = 'a'.repeat(MAX_STRING_VALUE_LENGTH);
    const err = await evaluate(`SELECT regexp_replace(s, '.+', '${'$0'.repeat(10_000)}') AS v FROM src`, { s, p: '' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecordExpressionError);
    expect((err as Error).message).toMatch(/^regexp_replace\(\): the result would be [\d,]+ characters, over the limit of 1,048,576/);
  });

  it('a replacement that grows every match fails the record at the limit', async () => {
    const err = await evaluate(`SELECT regexp_replace(s, 'a', '${'b'.repeat(100)}') AS v FROM src`, { s: 'a'.repeat(1_000_000), p: '' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecordExpressionError);
    expect((err as Error).message).toMatch(/^regexp_replace\(\): the result would be/);
  });

  it('a pattern read from a column that RE2 refuses fails the record', async () => {
    const err = await evaluate('SELECT regexp_count(s, p) AS v FROM src', { s: 'aa', p: '(a)\\1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecordExpressionError);
    expect((err as Error).message).toMatch(/regexp_count\(\): the regular expression '\(a\)\\1' is not supported: invalid escape sequence/);
  });
});
