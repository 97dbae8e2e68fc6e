/**
 * Differential property test of Spark's functions (datetime-patterns.ts,
 * decimal scale): each function over random rows, evaluated by Weir and by DuckDB, must agree
 * row by row. Where the two engines name or type a thing differently, the DuckDB side spells
 * Spark's meaning out (Spark's datetime pattern as strftime's, a DATE result as the epoch
 * milliseconds of its midnight, decimals computed as DuckDB DECIMALs and compared as doubles).
 */
import { useDuckDB } from './testing/duckdb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row, Schema } from '../types';
import { formatDecimal } from './decimal';
import { compileStreamingQuery } from './streaming-query';
import { propertyRuns } from '@/lib/testing/property-runs';

const SCHEMA: Schema = [
  { name: 'a', type: 'long' },
  { name: 'b', type: 'long' },
  { name: 'x', type: 'double' },
  { name: 's', type: 'string' },
  { name: 't', type: 'string' },
  { name: 'p', type: 'boolean' },
  { name: 'ts', type: 'timestamp' },
  { name: 'ts2', type: 'timestamp' },
];

const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null, freq: 6 });
const str = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'A', ' ', 'é'), maxLength: 6 });
// 1990 … 2040, at millisecond precision.
const tsArb = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2040, 0, 1) });
const rowArb = fc.record({
  a: nullable(fc.integer({ min: -20, max: 20 })),
  b: nullable(fc.integer({ min: -5, max: 5 })),
  x: nullable(fc.integer({ min: -400, max: 400 }).map((n) => n / 8)),
  s: nullable(str),
  t: nullable(fc.string({ unit: fc.constantFrom('a', 'b', ' '), maxLength: 2 })),
  p: nullable(fc.boolean()),
  ts: nullable(tsArb),
  ts2: nullable(tsArb),
});

/** [Weir SQL, DuckDB SQL] of one function applied to the row's columns. */
const CASES: [string, string][] = [
  // string
  ['instr(s, t)', 'instr(s, t)'],
  ['locate(t, s)', 'instr(s, t)'],
  ['left(s, 2)', 'left(s, 2)'],
  ['right(s, 3)', 'right(s, 3)'],
  ['repeat(s, 3)', 'repeat(s, 3)'],
  ["translate(s, 'ab', 'x')", "translate(s, 'ab', 'x')"],
  ["btrim(s, 'a ')", "trim(s, 'a ')"],
  ["trim(LEADING 'a' FROM s)", "ltrim(s, 'a')"],
  ["trim(TRAILING ' ' FROM s)", "rtrim(s, ' ')"],
  ['lpad(s, 4)', "lpad(s, 4, ' ')"],
  ['rpad(s, 4)', "rpad(s, 4, ' ')"],
  ["regexp_replace(s, 'a+', '-')", "regexp_replace(s, 'a+', '-', 'g')"],
  ['startswith(s, t)', 'starts_with(s, t)'],
  ['contains(s, t)', 'contains(s, t)'],
  ['ascii(s)', "CASE WHEN s = '' THEN 0 ELSE ascii(s) END"],
  // conditional and null
  ['nvl(a, b)', 'coalesce(a, b)'],
  ['nvl2(a, b, 3)', 'CASE WHEN a IS NOT NULL THEN b ELSE 3 END'],
  ['if(p, a, b)', 'CASE WHEN p THEN a ELSE b END'],
  ['greatest(a, b, 0)', 'greatest(a, b, 0)'],
  ['least(a, b)', 'least(a, b)'],
  // math (decimals through DuckDB's exact DECIMAL)
  ['pow(a, 2)', 'pow(a, 2)'],
  ['sqrt(abs(x))', 'sqrt(abs(x))'],
  ['mod(a, b)', 'a % NULLIF(b, 0)'],
  ['round(x, 1)', 'round(x, 1)'],
  ['bround(x, 1)', 'round_even(x, 1)'],
  ['ceil(x)', 'ceil(x)'],
  ['floor(x)', 'floor(x)'],
  ['(CAST(x AS DECIMAL(10,2)) + 0.1) % 1.8', 'CAST((CAST(x AS DECIMAL(10,2)) + 0.1) % 1.8 AS DOUBLE)'],
  ['CAST(x AS DECIMAL(10,3)) * 1.1 - 0.7', 'CAST(CAST(x AS DECIMAL(10,3)) * 1.1 - 0.7 AS DOUBLE)'],
  ['0.1 * a + 0.2', 'CAST(0.1 * a + 0.2 AS DOUBLE)'],
  // date and time
  ["date_format(ts, 'yyyy-MM-dd HH:mm:ss')", "strftime(ts, '%Y-%m-%d %H:%M:%S')"],
  ["date_format(ts, 'EEE MMM d, yy h a')", "strftime(ts, '%a %b %-d, %y %-I %p')"],
  ["to_timestamp(date_format(ts, 'dd/MM/yyyy HH:mm'), 'dd/MM/yyyy HH:mm')", "epoch_ms(strptime(strftime(ts, '%d/%m/%Y %H:%M'), '%d/%m/%Y %H:%M'))"],
  ["date_trunc('month', ts)", "epoch_ms(date_trunc('month', ts))"],
  ["date_trunc('week', ts)", "epoch_ms(date_trunc('week', ts))"],
  ["date_trunc('quarter', ts)", "epoch_ms(date_trunc('quarter', ts))"],
  // DATE results compared as text (Spark's and DuckDB's yyyy-MM-dd)
  ['CAST(to_date(ts) AS STRING)', 'CAST(CAST(ts AS DATE) AS VARCHAR)'],
  ['CAST(CAST(ts AS DATE) AS STRING)', 'CAST(CAST(ts AS DATE) AS VARCHAR)'],
  ['CAST(date_add(ts, a) AS STRING)', 'CAST(CAST(ts AS DATE) + CAST(a AS INTEGER) AS VARCHAR)'],
  ['CAST(date_sub(to_date(ts), a) AS STRING)', 'CAST(CAST(ts AS DATE) - CAST(a AS INTEGER) AS VARCHAR)'],
  ['datediff(ts, ts2)', "date_diff('day', ts2, ts)"],
  ["datediff(to_date(ts), DATE '2000-02-29')", "date_diff('day', DATE '2000-02-29', CAST(ts AS DATE))"],
  ['CAST(add_months(ts, a) AS STRING)', 'CAST(CAST(CAST(ts AS DATE) + to_months(a) AS DATE) AS VARCHAR)'],
  ['CAST(last_day(to_date(ts)) AS STRING)', 'CAST(last_day(CAST(ts AS DATE)) AS VARCHAR)'],
  ['to_date(ts) <= ts2', 'CAST(ts AS DATE) <= ts2'],
  ['to_date(ts) < to_date(ts2)', 'CAST(ts AS DATE) < CAST(ts2 AS DATE)'],
  ['CAST(to_date(ts) AS TIMESTAMP)', 'epoch_ms(CAST(CAST(ts AS DATE) AS TIMESTAMP))'],
  ['CAST(CAST(date_format(ts, \'yyyy-MM-dd\') AS DATE) AS STRING)', 'CAST(CAST(ts AS DATE) AS VARCHAR)'],
  ['dayofyear(to_date(ts))', 'dayofyear(ts)'],
  ['dayofyear(ts)', 'dayofyear(ts)'],
  ['weekofyear(ts)', 'weekofyear(ts)'],
  // the rest of Spark's functions where DuckDB's have the same meaning
  ['lcase(s)', 'lower(s)'],
  ['ucase(s)', 'upper(s)'],
  ['bit_length(s)', 'bit_length(s)'],
  ['octet_length(s)', 'strlen(s)'],
  ['base64(s)', 'to_base64(encode(s))'],
  ['hex(s)', 'hex(s)'],
  // DuckDB's levenshtein counts bytes, Spark's characters: ASCII only.
  ["levenshtein(replace(s, 'é', 'e'), t)", "levenshtein(replace(s, 'é', 'e'), t)"],
  // Part numbers from -9 to 11, never 0 (an error in Spark, '' in DuckDB).
  ["split_part(s, 'a', b * 2 + 1)", "split_part(s, 'a', b * 2 + 1)"],
  ["regexp_count(s, 'a+')", "length(regexp_extract_all(s, 'a+'))"],
  ["array_join(regexp_extract_all(s, '(a)(b)?', 1), '|')", "array_to_string(regexp_extract_all(s, '(a)(b)?', 1), '|')"],
  ["regexp_substr(s, '[ab]+')", "NULLIF(regexp_extract(s, '[ab]+'), '')"],
  // Characters outside the Basic Multilingual Plane beside the matches.
  // (DuckDB's concat skips NULLs; its || does not, as Spark's concat.)
  ["regexp_count(concat(s, '😀', t), 'a|😀')", "length(regexp_extract_all(s || '😀' || t, 'a|😀'))"],
  ["regexp_substr(concat('😀', s, '😀'), 'b[^😀]*')", "NULLIF(regexp_extract('😀' || s || '😀', 'b[^😀]*'), '')"],
  ["array_join(regexp_extract_all(concat(s, '😀', s), '([a😀]+)', 1), '|')", "array_to_string(regexp_extract_all(s || '😀' || s, '([a😀]+)', 1), '|')"],
  ["split_part(concat(s, '😀', t), '😀', b * 2 + 1)", "split_part(s || '😀' || t, '😀', b * 2 + 1)"],
  ['equal_null(a, b)', 'a IS NOT DISTINCT FROM b'],
  ['sin(x)', 'sin(x)'],
  ['cos(x)', 'cos(x)'],
  ['tan(x)', 'tan(x)'],
  ['asin(x / 50)', 'asin(x / 50)'],
  ['acos(x / 50)', 'acos(x / 50)'],
  ['atan(x)', 'atan(x)'],
  ['atan2(x, a)', 'atan2(x, a)'],
  ['cot(x + 0.01)', 'cot(x + 0.01)'],
  ['rint(x)', 'round_even(x, 0)'],
  ['factorial(abs(a))', 'factorial(CAST(abs(a) AS INTEGER))'],
  ['hex(a)', 'hex(a)'],
  ['bin(a)', 'bin(a)'],
  ['try_add(a, b)', 'a + b'],
  ['try_multiply(a, b)', 'a * b'],
  ['try_divide(a, b)', 'a / NULLIF(b, 0)'],
  ['CAST(make_date(2000 + a, abs(b) + 1, abs(a) + 1) AS STRING)', 'CAST(make_date(2000 + a, abs(b) + 1, abs(a) + 1) AS VARCHAR)'],
  ['weekday(ts)', 'isodow(ts) - 1'],
  ['unix_date(to_date(ts))', "date_diff('day', DATE '1970-01-01', CAST(ts AS DATE))"],
  ['unix_seconds(ts)', 'CAST(floor(epoch(ts)) AS BIGINT)'],
  ['unix_micros(ts)', 'epoch_us(ts)'],
  ["date_part('week', ts)", 'week(ts)'],
  ["date_part('yearofweek', ts)", 'isoyear(ts)'],
  ["date_part('dow_iso', ts)", 'isodow(ts)'],
  ["extract(doy FROM ts)", 'dayofyear(ts)'],
  ['extract(SECONDS FROM ts)', 'millisecond(ts) / 1000.0'],
  ["CAST(trunc(ts, 'quarter') AS STRING)", "CAST(CAST(date_trunc('quarter', ts) AS DATE) AS VARCHAR)"],
  ["CAST(trunc(ts, 'week') AS STRING)", "CAST(CAST(date_trunc('week', ts) AS DATE) AS VARCHAR)"],
  ['CAST(date_from_unix_date(a * 1000) AS STRING)', "CAST(DATE '1970-01-01' + CAST(a * 1000 AS INTEGER) AS VARCHAR)"],
  // Time zones: DuckDB's ICU against the runtime's Intl (daylight saving in Berlin; Kolkata has none, so no gap or overlap).
  ["from_utc_timestamp(ts, 'Europe/Berlin')", "epoch_ms((ts AT TIME ZONE 'UTC') AT TIME ZONE 'Europe/Berlin')"],
  ["to_utc_timestamp(ts, 'Asia/Kolkata')", "epoch_ms((ts AT TIME ZONE 'Asia/Kolkata') AT TIME ZONE 'UTC')"],
];

const sqlLit = (v: unknown, type: string): string => {
  if (v === null) return 'NULL';
  if (type === 'string') return `'${String(v).replace(/'/g, "''")}'`;
  if (type === 'double') return `CAST(${v} AS DOUBLE)`;
  if (type === 'timestamp') return `make_timestamp(${Number(v) * 1000})`;
  return String(v);
};

const normalize = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : v);

function same(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b) || a === b || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  return a === b;
}

const duckConn = useDuckDB();

async function check(weirSql: string, duckSql: string, rows: Row[]): Promise<void> {
  const q = compileStreamingQuery(`SELECT ${weirSql} AS v FROM src`, { kind: 'StreamingRelation', sourceName: 'src', schema: SCHEMA });
  let out = rows;
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  const cols = SCHEMA.map((f) => f.name).join(', ');
  const values = rows.map((r, i) => `(${i}, ${SCHEMA.map((f) => sqlLit(r[f.name], f.type)).join(', ')})`).join(', ');
  const sql =
    `WITH src(rid, ${cols}) AS (SELECT * FROM (VALUES ${values}) v(rid, ${cols})) ` +
    `SELECT rid, (${duckSql}) AS v FROM (SELECT rid, CAST(a AS BIGINT) a, CAST(b AS BIGINT) b, CAST(x AS DOUBLE) x, CAST(s AS VARCHAR) s, CAST(t AS VARCHAR) t, ` +
    'CAST(p AS BOOLEAN) p, CAST(ts AS TIMESTAMP) ts, CAST(ts2 AS TIMESTAMP) ts2 FROM src) ORDER BY rid';
  const duck = (await duckConn().runAndReadAll(sql)).getRowObjects().map((r) => normalize(r.v));
  rows.forEach((row, i) => {
    // A decimal (an unscaled bigint) as its value: DuckDB's side is CAST to DOUBLE.
    const f = q.outputSchema[0];
    const w = typeof out[i].v === 'bigint' ? Number(formatDecimal(out[i].v as bigint, f.scale ?? 0)) : out[i].v;
    if (!same(w, duck[i])) throw new Error(`${weirSql}\nrow ${JSON.stringify(row)}\nweir=${JSON.stringify(w)} duckdb=${JSON.stringify(duck[i])}`);
  });
}

describe("Spark's functions vs DuckDB over random rows", () => {
  CASES.forEach(([weirSql, duckSql], i) => {
    it(weirSql, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(rowArb, { minLength: 1, maxLength: 30 }), (rows) => check(weirSql, duckSql, rows)),
        { numRuns: propertyRuns(10, 40), seed: 15_000 + i },
      );
    });
  });

  it('can tell a wrong answer apart (the comparison is not vacuous)', async () => {
    await expect(check("left(s, 2)", "left(s, 3)", [{ a: 1, b: 1, x: 1, s: 'abc', t: 'b', p: true, ts: 0, ts2: 0 }])).rejects.toThrow(/weir="ab" duckdb="abc"/);
  });
});
