/**
 * Window functions on a join's static side (Spark's Window in the side's batch plan), checked
 * against DuckDB over random static tables: partitions, ties in the ORDER BY and NULLs in it,
 * ordered where Spark orders them (ASC NULLS FIRST, DESC NULLS LAST: DuckDB's
 * default_null_order is set so). Each query selects its rows through the stream's row 1
 * (`e.id = x.one`), so that every static row comes out once.
 */
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../testing/mulberry32';
import { staticJoinDifferential, type DifferentialTable } from './testing/static-join-differential';

/** `dims`: a unique id, a partition key, an INT order key with ties, and values, each NULL now and then. */
function dims(seed: number, n: number): DifferentialTable {
  const r = mulberry32(seed);
  const maybe = <T>(v: T): T | null => (r() < 0.15 ? null : v);
  const rows = Array.from({ length: n }, (_, id) => ({
    id,
    k: maybe(['a', 'b', 'c'][Math.floor(r() * 3)]),
    ts: maybe(Math.floor(r() * 8)),
    v: maybe(Math.floor(r() * 10) - 3),
    d: maybe(Math.round(r() * 100) / 10),
  }));
  return {
    name: 'dims', rows,
    schema: [{ name: 'id', type: 'long', integral: 32 }, { name: 'k', type: 'string' }, { name: 'ts', type: 'long', integral: 32 }, { name: 'v', type: 'long', integral: 32 }, { name: 'd', type: 'double' }],
  };
}

const SEEDS = [7, 1234];
const runs = SEEDS.map((seed) => ({ seed, ...staticJoinDifferential(`window-${seed}`, [dims(seed, 40)]) }));

/** The window expressions `w` over dims, each row's value beside its id; DuckDB's text where its syntax differs. */
const over = (w: string) => `SELECT e.id AS stream_id, x.* FROM events e JOIN (SELECT 1 AS one, id, k, ts, v, ${w} FROM dims) x ON e.id = x.one`;

const CASES: { name: string; spark: string; duck?: string }[] = [
  { name: 'row_number, rank, dense_rank over ties', spark: 'row_number() OVER (PARTITION BY k ORDER BY ts, id) AS rn, rank() OVER (PARTITION BY k ORDER BY ts) AS r, dense_rank() OVER (PARTITION BY k ORDER BY ts DESC) AS dr' },
  { name: 'percent_rank, cume_dist, ntile', spark: 'percent_rank() OVER (PARTITION BY k ORDER BY ts) AS pr, cume_dist() OVER (PARTITION BY k ORDER BY ts DESC) AS cd, ntile(3) OVER (PARTITION BY k ORDER BY ts, id) AS nt, ntile(7) OVER (ORDER BY id) AS nt7' },
  { name: 'lag and lead, with offsets and defaults', spark: 'lag(v) OVER (PARTITION BY k ORDER BY ts, id) AS l1, lead(v, 2) OVER (PARTITION BY k ORDER BY ts, id) AS l2, lag(v, 3, -100) OVER (ORDER BY id) AS l3, lead(ts, 1, 0) OVER (PARTITION BY k ORDER BY id DESC) AS l4' },
  {
    name: 'lag IGNORE NULLS', spark: 'lag(v) IGNORE NULLS OVER (PARTITION BY k ORDER BY id) AS l, lead(v, 2) IGNORE NULLS OVER (ORDER BY id) AS f',
    duck: 'lag(v IGNORE NULLS) OVER (PARTITION BY k ORDER BY id) AS l, lead(v, 2 IGNORE NULLS) OVER (ORDER BY id) AS f',
  },
  { name: 'the default frame: running with ORDER BY (peers together), the whole partition without', spark: 'sum(v) OVER (PARTITION BY k ORDER BY ts) AS running, count(*) OVER (PARTITION BY k) AS n, max(d) OVER (PARTITION BY k ORDER BY ts DESC) AS m, avg(v) OVER () AS mean' },
  { name: 'ROWS frames: sliding, to the end, behind the row', spark: 'sum(v) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS s, min(v) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS lo, count(v) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS c, avg(d) OVER (PARTITION BY k ORDER BY id ROWS 3 PRECEDING) AS a' },
  { name: 'RANGE frames with offsets over an INT key with ties and NULLs', spark: 'sum(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS s, count(*) OVER (PARTITION BY k ORDER BY ts DESC RANGE BETWEEN 2 PRECEDING AND CURRENT ROW) AS c, max(v) OVER (ORDER BY ts RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS m' },
  { name: 'frames to the partition\'s end, folded backwards (count, sums, min, max) or per row (avg, first_value)', spark: 'count(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN 1 PRECEDING AND UNBOUNDED FOLLOWING) AS c, sum(v) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN 2 FOLLOWING AND UNBOUNDED FOLLOWING) AS s, min(d) OVER (ORDER BY ts DESC RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS lo, max(v) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN 1 PRECEDING AND UNBOUNDED FOLLOWING) AS hi, avg(v) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS a, first_value(v) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS f' },
  { name: 'RANGE frames over a DOUBLE key', spark: 'count(*) OVER (PARTITION BY k ORDER BY d RANGE BETWEEN 1.5 PRECEDING AND 0.5 FOLLOWING) AS c, sum(v) OVER (ORDER BY d DESC RANGE BETWEEN 2.5 PRECEDING AND 2.5 FOLLOWING) AS s' },
  { name: 'first_value, last_value, nth_value over frames', spark: 'first_value(v) OVER (PARTITION BY k ORDER BY id) AS f, last_value(v) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS l, nth_value(v, 2) OVER (PARTITION BY k ORDER BY id) AS n2, last_value(v) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS lw' },
  {
    name: 'first_value and last_value IGNORE NULLS', spark: 'first_value(v) IGNORE NULLS OVER (PARTITION BY k ORDER BY id) AS f, last_value(v) IGNORE NULLS OVER (PARTITION BY k ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS l',
    duck: 'first_value(v IGNORE NULLS) OVER (PARTITION BY k ORDER BY id) AS f, last_value(v IGNORE NULLS) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS l',
  },
  { name: 'window functions in expressions, two specifications in one select list', spark: 'v - lag(v) OVER (PARTITION BY k ORDER BY id) AS delta, CAST(v AS DOUBLE) / sum(v) OVER (PARTITION BY k) AS share, rank() OVER (ORDER BY v DESC) + 1 AS r1' },
];

describe('window functions on a static side, as DuckDB runs them over random tables', () => {
  for (const { seed, weir, duckRows } of runs) {
    for (const c of CASES) {
      it(`${c.name} (seed ${seed})`, async () => {
        await duckRows("SET default_null_order = 'nulls_first_on_asc_last_on_desc'");
        const w = await weir(over(c.spark));
        expect(w.rows).toEqual(await duckRows(over(c.duck ?? c.spark)));
        expect(w.rows.length).toBe(40);
      });
    }
  }
});

describe('window functions over an aggregation (Spark\'s Window above the Aggregate), under DISTINCT, and their column read by ORDER BY and IN', () => {
  const { weir, duckRows, seed } = runs[0];
  const cases = [
    'SELECT e.id AS stream_id, x.* FROM events e JOIN (SELECT 1 AS one, k, sum(v) AS total, rank() OVER (ORDER BY sum(v) DESC) AS r, sum(sum(v)) OVER (ORDER BY k) AS running, CAST(count(*) AS DOUBLE) / sum(count(*)) OVER () AS share FROM dims GROUP BY k) x ON e.id = x.one',
    'SELECT e.id AS stream_id, x.* FROM events e JOIN (SELECT 1 AS one, k, ts, max(v) AS m, row_number() OVER (PARTITION BY k ORDER BY max(v) DESC, ts) AS rn FROM dims GROUP BY k, ts HAVING count(*) > 1) x ON e.id = x.one',
    'SELECT e.id AS stream_id, x.* FROM events e JOIN (SELECT 1 AS one, id, v, dense_rank() OVER (PARTITION BY k ORDER BY v DESC) AS dr FROM dims ORDER BY dr, id LIMIT 7) x ON e.id = x.one',
    'SELECT e.id FROM events e WHERE e.amount IN (SELECT v FROM (SELECT v, row_number() OVER (PARTITION BY k ORDER BY id) AS rn FROM dims) WHERE rn = 1)',
    // Over ROLLUP: the window reads the grouping sets' keys (NULL where a set leaves one out) and grouping().
    'SELECT e.id AS stream_id, x.* FROM events e JOIN (SELECT 1 AS one, k, ts, grouping(k) AS gk, sum(v) AS total, sum(sum(v)) OVER (PARTITION BY grouping(k), grouping(ts) ORDER BY k, ts) AS running, rank() OVER (ORDER BY count(*) DESC) AS r FROM dims GROUP BY ROLLUP (k, ts)) x ON e.id = x.one',
    // The latest value per key, each key once: DISTINCT above the Window.
    'SELECT e.id AS stream_id, x.* FROM events e JOIN (SELECT DISTINCT 1 AS one, k, first_value(v) OVER (PARTITION BY k ORDER BY id DESC) AS latest FROM dims) x ON e.id = x.one',
  ];
  for (const [i, sql] of cases.entries()) {
    it(`case ${i + 1} (seed ${seed})`, async () => {
      await duckRows("SET default_null_order = 'nulls_first_on_asc_last_on_desc'");
      expect((await weir(sql)).rows).toEqual(await duckRows(sql));
    });
  }
});
