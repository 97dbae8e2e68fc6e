/**
 * Typing a query builds no evaluator (compiled-expr.ts): the analysis reads each expression's
 * type and writes its casts into the plan, and the evaluators are built by physical planning,
 * when it first reads them; and the deferred evaluator gives what it gave when built at once.
 */
import { describe, expect, it } from 'vitest';
import { compiled, evaluatorBuilds, retyped, typeOfCompiled } from './compiled-expr';
import { compileExpression } from './expression-compiler';
import type { StaticTableSpec } from '../operators/stream-static-join';
import type { StreamingRelation } from './logical-plan';
import { buildLogicalPlan } from './query-planner';
import { resolvePlan } from './resolved-plan';
import { compileStreamingQuery } from './streaming-query';

const src: StreamingRelation = {
  kind: 'StreamingRelation',
  sourceName: 'src',
  schema: [
    { name: 'id', type: 'long' }, { name: 'i', type: 'long', integral: 32 }, { name: 's', type: 'string' }, { name: 'ts', type: 'timestamp' },
    { name: 'd', type: 'decimal', precision: 10, scale: 2 }, { name: 'f', type: 'double', float32: true },
    { name: 'xs', type: 'array', elementType: { name: 'element', type: 'long', nullable: true } },
    { name: 'st', type: 'struct', fields: [{ name: 'a', type: 'long' }, { name: 'b', type: 'string' }] },
    { name: 'm', type: 'map', keyType: { name: 'key', type: 'string', nullable: false }, valueType: { name: 'value', type: 'long', nullable: true } },
  ],
  eventTime: 'ts',
  watermarkDelayMs: 1000,
};

/**
 * Queries over every kind of expression and the main paths of a call. (A constant a function reads
 * as a value at analysis, such as percentile_approx's percentages or from_json's options map, is
 * evaluated there, as Spark folds it: those are the only evaluators typing builds.)
 */
const QUERIES = [
  'SELECT id + 1 AS a, id - i AS b, i * 2 AS c, id / 3 AS q, id % 4 AS m, -id AS neg, d + 1 AS dd, d * d AS d2, f + 1 AS ff, ts + INTERVAL 1 HOUR AS later FROM src',
  "SELECT id > 0 AND s LIKE 'a%' OR NOT (i = 3) AS p, s || 'x' AS t, id IN (1, 2, 3) AS inlist, i BETWEEN 1 AND 9 AS btw, s IS NULL AS n FROM src WHERE id <> 7 AND s > 'b'",
  "SELECT CASE WHEN id > 1 THEN 'x' WHEN id > 0 THEN s ELSE NULL END AS c1, CASE i WHEN 1 THEN 1.5 ELSE d END AS c2, CAST(id AS INT) AS ci, CAST(s AS DATE) AS cd, CAST(id AS STRING) AS cs, TRY_CAST(s AS BIGINT) AS tc, CAST(ts AS TIMESTAMP_NTZ) AS ntz FROM src",
  "SELECT upper(s) AS u, abs(i) AS ab, round(d, 1) AS r, coalesce(s, 'z') AS co, concat(s, id) AS cc, date_trunc('HOUR', ts) AS dt, length(s) AS len, greatest(id, i, 3) AS g FROM src",
  "SELECT array(id, i) AS arr, map(s, id) AS mp, named_struct('a', id, 'b', s) AS ns, struct(id, s) AS sr, st.a AS fa, xs[0] AS x0, size(xs) AS sz, array_contains(xs, 1) AS ac FROM src",
  'SELECT s, count(*) AS n, sum(id) AS t, avg(d) AS a, max(ts) AS mx FROM src GROUP BY s',
  "SELECT window(ts, '1 minute') AS w, count(*) AS n, approx_count_distinct(s) AS p FROM src GROUP BY window(ts, '1 minute')",
  'SELECT transform(xs, x -> x + 1) AS t, filter(xs, (x, k) -> x > k) AS f, aggregate(xs, 0L, (a, x) -> a + x, a -> a * 2) AS g, exists(xs, x -> x IS NULL) AS e, transform_values(m, (k, v) -> v + 1) AS tv FROM src',
  'SELECT x, pos FROM src LATERAL VIEW posexplode(xs) t AS pos, x',
  "SELECT m['a'] AS v, map_keys(m) AS k, element_at(xs, 1) AS e, from_json(s, 'a INT').a AS j, to_json(named_struct('a', id)) AS tj, get_json_object(s, '$.a') AS g FROM src",
  "SELECT date_add(CAST(ts AS DATE), 1) AS da, ts - INTERVAL 1 DAY AS y, datediff(CAST(ts AS DATE), DATE '2024-01-01') AS df, regexp_extract(s, 'a(b)', 1) AS r, split(s, ',') AS sp, sha2(s, 256) AS h, hash(id, s) AS hh FROM src",
  "SELECT id div 2 AS q, id & 3 AS b, ~id AS nb, shiftleft(i, 1) AS sl, pmod(id, 3) AS pm, typeof(id) AS t, if(id > 1, s, 'x') AS c, nvl(s, 'y') AS n, nullif(s, 'z') AS z, equal_null(s, 'a') AS en FROM src",
];

describe('deferred evaluators', () => {
  it('typing a query builds none of its evaluators; planning it builds them', () => {
    for (const sql of QUERIES) {
      const plan = buildLogicalPlan(sql, [src]);
      evaluatorBuilds.count = 0;
      const resolved = resolvePlan(plan);
      expect(evaluatorBuilds.count, sql).toBe(0);
      expect(resolved.plan).not.toBe(plan);
      compileStreamingQuery(sql, src, { outputMode: 'update' });
      expect(evaluatorBuilds.count, sql).toBeGreaterThan(0);
    }
  });

  it('typing joins, subqueries, grouping sets, pivots and set operations builds none either', () => {
    const clicks: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'clicks', eventTime: 'ct', watermarkDelayMs: 1000, schema: [{ name: 'cid', type: 'long' }, { name: 'ct', type: 'timestamp' }] };
    const dim: StaticTableSpec = { name: 'dim', type: 'file', path: '/nowhere/dim.json', format: 'json', schema: [{ name: 'k', type: 'long' }, { name: 'label', type: 'string' }] };
    for (const sql of [
      "SELECT s, label FROM src JOIN dim ON id = k WHERE label LIKE 'a%'",
      'SELECT id, (SELECT max(label) FROM dim WHERE k = id) AS l FROM src',
      'SELECT id FROM src WHERE id IN (SELECT k FROM dim) AND EXISTS (SELECT 1 FROM dim WHERE k = i)',
      'SELECT * FROM src JOIN clicks ON id = cid AND ct BETWEEN ts AND ts + INTERVAL 1 MINUTE',
      'SELECT s, count(*) FILTER (WHERE id > 1) AS n, collect_list(id) AS l, max_by(s, id) AS mb FROM src GROUP BY s HAVING count(*) > 1',
      'SELECT s, count(*) AS n FROM src GROUP BY CUBE(s, i)',
      "SELECT * FROM (SELECT s, id FROM src) PIVOT (sum(id) FOR s IN ('a', 'b'))",
      'SELECT DISTINCT s FROM src UNION ALL SELECT CAST(id AS STRING) FROM src',
    ]) {
      const plan = buildLogicalPlan(sql, [src, clicks], [dim]);
      evaluatorBuilds.count = 0;
      resolvePlan(plan);
      expect(evaluatorBuilds.count, sql).toBe(0);
    }
  });

  it('builds an evaluator once, when it is first read, and a retyped one shares it', () => {
    let builds = 0;
    const c = compiled({ type: 'long' }, () => { builds++; return () => 42n; });
    const r = retyped(c, { type: 'long', integral: 32 });
    expect(typeOfCompiled(r)).toEqual({ type: 'long', integral: 32 });
    expect(builds).toBe(0);
    expect(r.eval({}, { batchTimestampMs: 0 })).toBe(42n);
    expect(c.eval({}, { batchTimestampMs: 0 })).toBe(42n);
    expect(builds).toBe(1);
  });

  it('a compiled expression is its type and its value', () => {
    const schema = src.schema;
    const row = { id: 5, i: 3, s: 'abc', ts: 0, d: 1234n, f: 1.5, xs: [1n, 2n], st: { a: 1n, b: 'q' } };
    const ctx = { batchTimestampMs: 0 };
    const e = compileExpression({ kind: 'binary', op: '+', left: { kind: 'column', name: 'id' }, right: { kind: 'column', name: 'i' } }, schema);
    expect(typeOfCompiled(e)).toEqual({ type: 'long' });
    expect(e.eval(row, ctx)).toBe(8);
  });
});
