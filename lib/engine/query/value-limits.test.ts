/**
 * Expression limits: string-growing functions fail the record above 1 MiB a value (before
 * building it), a literal length that makes every result too big is refused at validation
 * with a position, and regular expressions run on RE2 (unsupported syntax refused at
 * validation). The bad-record handling of a failing row is in execution/expression-bad-records.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { RecordExpressionError } from '../errors';
import { validateJob } from '../spec/validate-job';
import type { Row } from '../types';
import { SqlValidationError } from './sql-error';
import { compileStreamingQuery } from './streaming-query';
import { MAX_STRING_VALUE_LENGTH } from './value-limits';

const relation = {
  kind: 'StreamingRelation' as const,
  sourceName: 'src',
  schema: [{ name: 'name', type: 'string' as const }, { name: 'n', type: 'long' as const }, { name: 'p', type: 'string' as const }],
};

async function run(sql: string, rows: Row[]): Promise<Row[]> {
  const q = compileStreamingQuery(sql, relation);
  let out = rows;
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  return out;
}

const compileError = (sql: string): SqlValidationError => {
  try {
    compileStreamingQuery(sql, relation);
  } catch (e) {
    return e as SqlValidationError;
  }
  throw new Error(`expected ${sql} to be refused`);
};

const LIMIT = MAX_STRING_VALUE_LENGTH;
const big = 'x'.repeat(LIMIT / 2 + 1);

describe('string values are at most 1 MiB', () => {
  it('refuses a literal lpad/rpad length over the limit at validation, with its position', () => {
    const e = compileError("SELECT name,\n  lpad(name, 2000000000, 'x') AS padded FROM src");
    expect(e).toBeInstanceOf(SqlValidationError);
    expect(e.message).toMatch(/lpad\(\): the result would be 2,000,000,000 characters, over the limit of 1,048,576 characters \(1 MiB\)/);
    expect(e.line).toBe(2);
    expect(e.column).toBeGreaterThan(0);
    expect(compileError(`SELECT rpad(name, ${LIMIT + 1}, '-') FROM src`).message).toMatch(/rpad\(\): the result would be 1,048,577 characters/);
  });

  it('validateJob reports the refusal on the sql path with line and column', () => {
    const r = validateJob({
      name: 'pad',
      source: { name: 'src', type: 'rate', options: {}, schema: [{ name: 'value', type: 'long' }] },
      sql: "SELECT lpad(CAST(value AS STRING), 2000000000, 'x') AS v FROM src",
      sink: { type: 'console', options: {} },
      outputMode: 'append',
      trigger: { type: 'available-now' },
      checkpointLocation: '/tmp/weir-value-limits-never-used',
    });
    expect(r.ok).toBe(false);
    expect(r.errors).toEqual([expect.objectContaining({ path: 'sql', line: 1, column: expect.any(Number), message: expect.stringMatching(/lpad\(\).*1 MiB/) })]);
  });

  it('accepts what cannot be known too big at validation, and pads up to exactly the limit', async () => {
    // The length comes from a column; an empty literal fill never grows the value.
    compileStreamingQuery("SELECT lpad(name, n, 'x') a, lpad(name, 2000000000, '') b, lpad(name, 2000000000, p) c FROM src", relation);
    const [r] = await run("SELECT lpad(name, n, 'ab') v FROM src", [{ name: 'z', n: LIMIT, p: '' }]);
    expect((r.v as string).length).toBe(LIMIT);
    expect((r.v as string).slice(0, 4)).toBe('abab');
    expect((r.v as string).endsWith('abaz')).toBe(true);
  });

  const oversize: [string, string, Row][] = [
    ['lpad()', "SELECT lpad(name, n, 'x') v FROM src", { name: 'a', n: 2_000_000_000, p: '' }],
    ['lpad()', "SELECT lpad(name, n, p) v FROM src", { name: 'a', n: LIMIT + 1, p: '😀' }],
    ['rpad()', "SELECT rpad(name, n, 'xy') v FROM src", { name: 'a', n: LIMIT + 1, p: '' }],
    ['||', 'SELECT name || p v FROM src', { name: big, n: 0, p: big }],
    ['concat()', 'SELECT concat(name, p) v FROM src', { name: big, n: 0, p: big }],
    ['concat_ws()', "SELECT concat_ws(',', name, p) v FROM src", { name: big, n: 0, p: big.slice(1) }],
    ['replace()', "SELECT replace(name, 'x', 'xx') v FROM src", { name: big, n: 0, p: '' }],
    ['upper()', 'SELECT upper(name) v FROM src', { name: 'ß'.repeat(LIMIT / 2 + 1), n: 0, p: '' }],
  ];
  for (const [fn, sql, row] of oversize) {
    it(`${fn} fails the record above the limit, naming the function and the limit`, async () => {
      const err = await run(sql, [row]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RecordExpressionError);
      const e = err as RecordExpressionError;
      expect(e.code).toBe('EXPRESSION_ERROR');
      expect(e.message).toContain(`${fn}: the result would be`);
      expect(e.message).toContain('over the limit of 1,048,576 characters (1 MiB)');
      expect(e.details).toMatchObject({ function: fn, limit: LIMIT });
    });
  }

  it('the same functions under the limit still answer as before', async () => {
    const [r] = await run(
      "SELECT lpad(name, 5, 'xy') l, rpad(name, 2, 'x') r, replace(name, 'b', 'bbb') rep, concat_ws('-', name, p) ws, upper(name) u, name || p c FROM src",
      [{ name: 'abc', n: 0, p: 'd' }],
    );
    expect(r).toEqual({ l: 'xyabc', r: 'ab', rep: 'abbbc', ws: 'abc-d', u: 'ABC', c: 'abcd' });
  });
});

describe('LIKE ... ESCAPE', () => {
  it('takes a one-character escape and refuses a longer one', async () => {
    const out = await run("SELECT name FROM src WHERE name LIKE '100!%%' ESCAPE '!'", [{ name: '100% sure', n: 0, p: '' }, { name: '1000', n: 0, p: '' }]);
    expect(out).toEqual([{ name: '100% sure' }]);
    expect(compileError("SELECT name FROM src WHERE name LIKE 'a' ESCAPE '!!'").message).toMatch(/\[INVALID_ESC\] Found an invalid escape string: '!!'\. The escape string must contain only one character\./);
  });
});

describe('regular expressions run on RE2', () => {
  it('rlike/regexp/regexp_like find a match anywhere; regexp_extract takes a group', async () => {
    const out = await run(
      "SELECT rlike(name, 'b+c') a, regexp(name, '^b') b, regexp_like(name, '(?i)BBC') c, regexp_extract(name, '([a-z])(\\\\d+)', 2) d, regexp_extract(name, 'q(x)?', 1) e FROM src",
      [{ name: 'abbc42', n: 0, p: '' }],
    );
    expect(out).toEqual([{ a: true, b: false, c: true, d: '42', e: '' }]);
    const [r] = await run("SELECT regexp_extract(name, '([a-z]+)(\\\\d+)', 1) d, regexp_extract(name, 'z(\\\\d)') none FROM src", [{ name: 'id abc42 x', n: 0, p: '' }]);
    expect(r).toEqual({ d: 'abc', none: '' });
  });

  it('refuses backreferences and lookaround at validation, saying what RE2 lacks', () => {
    for (const pattern of ['(a)\\\\1', 'a(?=b)', 'a(?!b)', '(?<=a)b', '[a-z]{1000}', '[a-z]{100}[a-z]{100}[a-z]{100}']) {
      const e = compileError(`SELECT name FROM src WHERE rlike(name, '${pattern}')`);
      expect(e).toBeInstanceOf(SqlValidationError);
      expect(e.message).toMatch(/rlike\(\): the regular expression .* is not supported: .*RE2, which has no backreferences/);
      expect(e.errorClass).toBe('INVALID_PARAMETER_VALUE.PATTERN');
      expect(e.line).toBe(1);
    }
    expect(compileError("SELECT regexp_extract(name, '(a)', 2) FROM src").message).toMatch(/group index 2 is out of range; the pattern has 1 group/);
  });

  it('a pattern read from a column that RE2 refuses fails that record', async () => {
    const err = await run('SELECT rlike(name, p) v FROM src', [{ name: 'aa', n: 0, p: '(a)\\1' }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecordExpressionError);
    expect((err as Error).message).toMatch(/rlike\(\): the regular expression/);
    expect((err as RecordExpressionError).errorClass).toBe('INVALID_PARAMETER_VALUE.PATTERN');
  });

  it('a pattern that backtracks exponentially in JavaScript answers on a long value', async () => {
    const [r] = await run("SELECT rlike(name, '^(a+)+$') v FROM src", [{ name: 'a'.repeat(100_000) + 'b', n: 0, p: '' }]);
    expect(r.v).toBe(false);
  });
});
