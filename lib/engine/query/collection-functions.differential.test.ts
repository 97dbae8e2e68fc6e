/**
 * Differential property test of the array functions (collection-functions.ts): split, size,
 * element_at, `[i]`, array_contains, array_join, sort_array and array_max/min over random strings, evaluated by Weir and by DuckDB,
 * must agree row by row. Arrays are compared as their JSON text (DuckDB's to_json).
 *
 * Where the engines differ, the DuckDB side spells Spark's meaning out or the generator keeps
 * to what both define: size(NULL) is -1 in Spark (DuckDB's len is NULL); element_at(arr, 0) is
 * an error in Spark (NULL in DuckDB), so the index 0 is never passed; `arr[i]` is 0-based and
 * NULL for a negative index in Spark (the parser takes a literal index; get(arr, i) a computed
 * one), where DuckDB counts a negative index from the end);
 * array_contains is NULL when the array holds a NULL and no match (DuckDB says false); split's
 * limit has no DuckDB counterpart, and its empty pattern splits into characters in both only
 * without a trailing empty string in Spark, so patterns are non-empty.
 */
import { useDuckDB } from './testing/duckdb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row, Schema } from '../types';
import { compileStreamingQuery } from './streaming-query';
import { propertyRuns } from '@/lib/testing/property-runs';

const SCHEMA: Schema = [
  { name: 'b', type: 'long' },
  { name: 's', type: 'string' },
  { name: 't', type: 'string' },
  { name: 'p', type: 'boolean' },
];

const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null, freq: 6 });
// Separators and the letters around them, so that empty fields (leading, doubled, trailing) are common.
const text = fc.string({ unit: fc.constantFrom('a', 'b', ',', ' ', ';', 'é'), maxLength: 10 });
const rowArb = fc.record({
  b: nullable(fc.integer({ min: -6, max: 6 })),
  s: nullable(text),
  t: nullable(fc.string({ unit: fc.constantFrom('a', 'b', ','), maxLength: 2 })),
  p: nullable(fc.boolean()),
});

/** [Weir SQL, DuckDB SQL] of one expression over the row's columns. */
const CASES: [string, string][] = [
  ["split(s, ',')", "to_json(string_split(s, ','))"],
  ["split(s, ' ')", "to_json(string_split(s, ' '))"],
  ["split(s, 'a,')", "to_json(string_split(s, 'a,'))"],
  ["split(s, '[,; ]')", "to_json(regexp_split_to_array(s, '[,; ]'))"],
  ["split(s, ',+')", "to_json(regexp_split_to_array(s, ',+'))"],
  ["size(split(s, ','))", "coalesce(len(string_split(s, ',')), -1)"],
  ["size(CASE WHEN p THEN split(s, ' ') END)", "coalesce(len(CASE WHEN p THEN string_split(s, ' ') END), -1)"],
  ['size(array(s, t))', 'len([s, t])'],
  ["element_at(split(s, ','), nullif(b, 0))", "list_extract(string_split(s, ','), nullif(b, 0))"],
  ["get(split(s, ','), b)", "CASE WHEN b >= 0 THEN list_extract(string_split(s, ','), b + 1) END"],
  ["split(s, ',')[1]", "list_extract(string_split(s, ','), 2)"],
  ["array_contains(split(s, ','), t)", "list_contains(string_split(s, ','), t)"],
  [
    "array_contains(array(s, t), 'a')",
    "CASE WHEN list_contains([s, t], 'a') THEN true WHEN s IS NULL OR t IS NULL THEN NULL ELSE false END",
  ],
  ["array_join(split(s, ','), '|')", "array_to_string(string_split(s, ','), '|')"],
  // Strings order by code unit in Weir and by byte in DuckDB: the same order for these letters.
  ["sort_array(split(s, ','))", "to_json(list_sort(string_split(s, ','), 'ASC', 'NULLS FIRST'))"],
  ["sort_array(array(s, t, 'b'), false)", "to_json(list_sort([s, t, 'b'], 'DESC', 'NULLS LAST'))"],
  ["array_max(array(s, t))", 'list_max([s, t])'],
  ["array_min(split(s, ' '))", "list_min(string_split(s, ' '))"],
];

const sqlLit = (v: unknown, type: string): string => {
  if (v === null) return 'NULL';
  if (type === 'string') return `'${String(v).replace(/'/g, "''")}'`;
  return String(v);
};

/** Weir's value as DuckDB prints it: an array as compact JSON, a bigint as a number. */
const weirText = (v: unknown): unknown => (Array.isArray(v) ? JSON.stringify(v) : v);
const duckValue = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : v);

const duckConn = useDuckDB();

async function check(weirSql: string, duckSql: string, rows: Row[]): Promise<void> {
  const q = compileStreamingQuery(`SELECT ${weirSql} AS v FROM src`, { kind: 'StreamingRelation', sourceName: 'src', schema: SCHEMA });
  let out = rows;
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  const cols = SCHEMA.map((f) => f.name).join(', ');
  const values = rows.map((r, i) => `(${i}, ${SCHEMA.map((f) => sqlLit(r[f.name], f.type)).join(', ')})`).join(', ');
  const sql =
    `WITH src(rid, ${cols}) AS (SELECT * FROM (VALUES ${values}) v(rid, ${cols})) ` +
    `SELECT rid, (${duckSql}) AS v FROM (SELECT rid, CAST(b AS BIGINT) b, CAST(s AS VARCHAR) s, CAST(t AS VARCHAR) t, CAST(p AS BOOLEAN) p FROM src) ORDER BY rid`;
  const duck = (await duckConn().runAndReadAll(sql)).getRowObjects().map((r) => duckValue(r.v));
  rows.forEach((row, i) => {
    const w = weirText(out[i].v);
    if (w !== duck[i]) throw new Error(`${weirSql}\nrow ${JSON.stringify(row)}\nweir=${JSON.stringify(w)} duckdb=${JSON.stringify(duck[i])}`);
  });
}

describe('array functions vs DuckDB over random strings', () => {
  CASES.forEach(([weirSql, duckSql], i) => {
    it(weirSql, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(rowArb, { minLength: 1, maxLength: 30 }), (rows) => check(weirSql, duckSql, rows)),
        { numRuns: propertyRuns(10, 40), seed: 27_000 + i },
      );
    });
  });

  it('can tell a wrong answer apart (the comparison is not vacuous)', async () => {
    await expect(check("split(s, ',')", "to_json(string_split(s, ';'))", [{ b: 1, s: 'a,b', t: null, p: null }])).rejects.toThrow(/weir="\[\\"a\\",\\"b\\"\]"/);
  });
});
