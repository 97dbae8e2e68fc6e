/**
 * Window functions on a join's static side (Spark's Window over a batch plan): the everyday
 * case, the newest row of a dimension per key, checked against DuckDB; the plan's Window node in
 * the explain; Spark's result types; Spark's errors for a window it cannot run; and over a
 * stream, Spark's refusal as before.
 */
import { describe, expect, it } from 'vitest';
import { withErrorClass } from '../errors';
import { validateJob } from '../spec/validate-job';
import { EVENTS, staticJoinDifferential } from './testing/static-join-differential';

const { same, weir } = staticJoinDifferential('window');

/** The error a query is refused with (`[CLASS] message`), or '' where it runs. */
const errorOf = async (sql: string) => weir(sql).then(() => '', (e: Error) => e.message);

describe('window functions on a static side', () => {
  it('the newest row of a dimension per key: row_number() … = 1, the plan\'s Window node shown', async () => {
    const w = await same('SELECT e.id, d.weight FROM events e JOIN (SELECT region, weight, row_number() OVER (PARTITION BY region ORDER BY weight DESC) AS rn FROM regions) d ON e.region = d.region AND d.rn = 1');
    expect(w.explain).toMatch(/Window \[row_number\(\) ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW AS __window_expression\d+\], \[region\], \[weight DESC NULLS LAST\]/);
    // In a CTE, and through a WINDOW clause.
    await same('WITH d AS (SELECT region, weight, rank() OVER w AS r FROM regions WINDOW w AS (PARTITION BY region ORDER BY weight)) SELECT e.id, d.weight, d.r FROM events e JOIN d ON e.region = d.region');
  });

  it('over a join of static tables, in a scalar subquery, beside *', async () => {
    await same('SELECT e.id, x.user, x.rn FROM events e JOIN (SELECT r.region, b.user, row_number() OVER (PARTITION BY r.region ORDER BY b.user, r.weight) AS rn FROM regions r JOIN blocked b ON r.region = b.region) x ON e.region = x.region');
    await same('SELECT e.id, (SELECT max(rn) FROM (SELECT row_number() OVER (ORDER BY weight) AS rn FROM regions)) AS n FROM events e');
    // `*` beside a window function: the table's columns, not the Window's own.
    const w = await same('SELECT e.id, d.* FROM events e JOIN (SELECT *, rank() OVER (PARTITION BY region ORDER BY weight) AS r FROM regions) d ON e.region = d.region');
    expect(w.schema.map((f) => f.name)).toEqual(['id', 'region', 'weight', 'tags', 'r']);
  });

  it('RANGE offsets of an interval: calendar months added to a DATE (Jan 31 + 1 month is Feb 29), days to a TIMESTAMP', async () => {
    const dates = "(DATE '2024-01-31'), (DATE '2024-02-29'), (DATE '2024-03-01'), (DATE '2024-04-01'), (NULL)";
    const q = (from: string) => `SELECT e.id, CAST(x.d AS STRING) AS ds, x.n, x.m FROM events e JOIN (SELECT 1 AS one, d, count(*) OVER (ORDER BY d RANGE BETWEEN CURRENT ROW AND INTERVAL '1' MONTH FOLLOWING) AS n, count(*) OVER (ORDER BY CAST(d AS TIMESTAMP) DESC RANGE BETWEEN INTERVAL '2' DAY PRECEDING AND CURRENT ROW) AS m FROM ${from}) x ON e.id = x.one`;
    const w = await same(q(`VALUES ${dates} AS t(d)`), q(`(VALUES ${dates}) AS t(d)`));
    expect(w.rows).toHaveLength(5);
  });

  it('RANGE offsets over a FLOAT key bound it in single precision, as Spark adds the offset cast to FLOAT', async () => {
    // 0.0 + CAST(1.1 AS FLOAT) is the FLOAT 1.1, which the key 1.1 (a FLOAT, 1.10000002384… as a DOUBLE) is not past.
    const w = await weir("SELECT e.id, x.f, x.n FROM events e JOIN (SELECT 1 AS one, CAST(f AS FLOAT) AS f, count(*) OVER (ORDER BY CAST(f AS FLOAT) RANGE BETWEEN CURRENT ROW AND 1.1 FOLLOWING) AS n FROM VALUES (0.0D), (1.1D), (1.12D) AS t(f)) x ON e.id = x.one");
    expect(w.rows.map((r) => (JSON.parse(r) as { n: number }).n)).toEqual([2, 2, 1]);
  });

  it('a RANGE frame\'s string bound cast to the ORDER BY key\'s type, as Spark\'s WindowFrameCoercion casts it', async () => {
    const q = (frame: string, key = 'CAST(f AS FLOAT)') => `SELECT e.id, x.f, x.lo, x.hi FROM events e JOIN (SELECT 1 AS one, f, first(f) OVER (ORDER BY ${key} RANGE BETWEEN ${frame}) AS lo, last(f) OVER (ORDER BY ${key} RANGE BETWEEN ${frame}) AS hi FROM VALUES (-3.0D), (1.1D), (100.0D) AS t(f)) x ON e.id = x.one`;
    const frames = async (frame: string, key?: string) => (await weir(q(frame, key))).rows.map((r) => { const o = JSON.parse(r) as { lo: number; hi: number }; return [o.lo, o.hi]; });
    // 'inf' is a FLOAT's infinity: every row is in each frame.
    expect(await frames("'inf' PRECEDING AND 'inf' FOLLOWING")).toEqual([[-3, 100], [-3, 100], [-3, 100]]);
    // key + NaN is past every number: the frame runs to the last row.
    expect(await frames("1.1 PRECEDING AND 'NaN' FOLLOWING")).toEqual([[-3, 100], [1.1, 100], [100, 100]]);
    expect(await frames("'1' PRECEDING AND CURRENT ROW", 'CAST(f AS INT)')).toEqual([[-3, -3], [1.1, 1.1], [100, 100]]);
    // Text the key's type cannot read fails as Spark's ANSI cast does.
    expect(await errorOf(q("1 PRECEDING AND 'NaN' FOLLOWING", 'CAST(f AS INT)'))).toMatch(/^\[CAST_INVALID_INPUT\] The value 'NaN' of the type "STRING" cannot be cast to "INT"/);
  });

  it('has Spark\'s result types: row_number, rank, ntile INT; percent_rank, cume_dist DOUBLE; count BIGINT; lag the argument\'s', async () => {
    const w = await weir('SELECT e.id, d.* FROM events e JOIN (SELECT region, row_number() OVER (ORDER BY weight) AS rn, rank() OVER (ORDER BY weight) AS r, ntile(2) OVER (ORDER BY weight) AS nt, percent_rank() OVER (ORDER BY weight) AS pr, cume_dist() OVER (ORDER BY weight) AS cd, count(*) OVER () AS n, lag(weight) OVER (ORDER BY weight) AS lw FROM regions) d ON e.region = d.region');
    const types = Object.fromEntries(w.schema.map((f) => [f.name, `${f.type}${f.integral ? `/${f.integral}` : ''}`]));
    expect(types).toEqual({ id: 'long', region: 'string', rn: 'long/32', r: 'long/32', nt: 'long/32', pr: 'double', cd: 'double', n: 'long', lw: 'long/32' });
    // lag's default cast to the input's type: a STRING '0', a DOUBLE 0.5 of an INT 0.
    await same(
      'SELECT e.id, d.* FROM events e JOIN (SELECT region, lag(region, 1, 0) OVER (ORDER BY weight, region) AS lr, lead(CAST(weight AS DOUBLE) / 2, 1, 0) OVER (ORDER BY weight, region) AS lw FROM regions WHERE region IS NOT NULL AND weight IS NOT NULL) d ON e.region = d.region',
      "SELECT e.id, d.* FROM events e JOIN (SELECT region, lag(region, 1, '0') OVER (ORDER BY weight, region) AS lr, lead(CAST(weight AS DOUBLE) / 2, 1, 0) OVER (ORDER BY weight, region) AS lw FROM regions WHERE region IS NOT NULL AND weight IS NOT NULL) d ON e.region = d.region",
    );
  });

  it('refuses with Spark\'s error classes what Spark refuses', async () => {
    const side = (w: string) => `SELECT e.id FROM events e JOIN (SELECT region, ${w} AS x FROM regions) d ON e.region = d.region`;
    expect(await errorOf(side('rank() OVER (PARTITION BY region)'))).toMatch(/^\[_LEGACY_ERROR_TEMP_1037\] Window function rank\(\) requires window to be ordered/);
    expect(await errorOf(side('row_number() OVER (ORDER BY weight ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)'))).toMatch(/^\[_LEGACY_ERROR_TEMP_1036\]/);
    // CumeDist's own frame is RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, which it takes written; RowNumber's ROWS it refuses.
    expect(await errorOf(side('cume_dist() OVER (ORDER BY weight ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)'))).toMatch(/^\[_LEGACY_ERROR_TEMP_1036\] .*required frame RANGE BETWEEN/);
    expect(await errorOf(side('cume_dist() OVER (ORDER BY weight RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)'))).toBe('');
    expect(await errorOf(side('count(*) OVER (ORDER BY weight RANGE BETWEEN 1 FOLLOWING AND 1 PRECEDING)'))).toMatch(/^\[DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_WRONG_COMPARISON\]/);
    expect(await errorOf(side('count(*) OVER (PARTITION BY region RANGE BETWEEN CURRENT ROW AND 1 FOLLOWING)'))).toMatch(/^\[DATATYPE_MISMATCH.RANGE_FRAME_WITHOUT_ORDER\]/);
    expect(await errorOf(side('count(*) OVER (ORDER BY weight, region RANGE BETWEEN CURRENT ROW AND 1 FOLLOWING)'))).toMatch(/^\[DATATYPE_MISMATCH.RANGE_FRAME_MULTI_ORDER\]/);
    // Spark's WindowFrameCoercion casts the bound 1 to the STRING key's type, which no frame bound takes.
    expect(await errorOf(side('count(*) OVER (ORDER BY region RANGE BETWEEN CURRENT ROW AND 1 FOLLOWING)'))).toMatch(/^\[DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_UNACCEPTED_TYPE\] .*The data type of the upper bound "STRING"/);
    expect(await errorOf(side('count(*) OVER (ORDER BY weight > 1 RANGE BETWEEN 1 PRECEDING AND CURRENT ROW)'))).toMatch(/^\[DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_UNACCEPTED_TYPE\] .*The data type of the lower bound "BOOLEAN"/);
    // Nothing casts an INT to a TIMESTAMP key: the frame's own type does not fit the key's.
    expect(await errorOf(side('count(*) OVER (ORDER BY CAST(weight AS TIMESTAMP) RANGE BETWEEN CURRENT ROW AND 1 FOLLOWING)'))).toMatch(/^\[DATATYPE_MISMATCH.RANGE_FRAME_INVALID_TYPE\]/);
    expect(await errorOf(side('count(*) OVER (ORDER BY weight ROWS BETWEEN UNBOUNDED FOLLOWING AND 1 FOLLOWING)'))).toMatch(/^\[DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_INVALID_BOUND\]/);
    expect(await errorOf(side('count(DISTINCT weight) OVER (PARTITION BY region)'))).toMatch(/^\[DISTINCT_WINDOW_FUNCTION_UNSUPPORTED\]/);
    expect(await errorOf(side('upper(region) OVER (PARTITION BY region)'))).toMatch(/^\[UNSUPPORTED_EXPR_FOR_WINDOW\]/);
    expect(await errorOf(side('count(weight) FILTER (WHERE weight > 1) OVER (PARTITION BY region)'))).toMatch(/^\[_LEGACY_ERROR_TEMP_1030\]/);
    expect(await errorOf(side('sum(rank() OVER (ORDER BY weight)) OVER ()'))).toMatch(/^\[_LEGACY_ERROR_TEMP_1031\]/);
    expect(await errorOf('SELECT e.id FROM events e JOIN (SELECT region, max(rank() OVER (ORDER BY weight)) AS m FROM regions GROUP BY region) d ON e.region = d.region')).toMatch(/^\[_LEGACY_ERROR_TEMP_1031\]/);
    expect(await errorOf('SELECT e.id FROM events e JOIN (SELECT region FROM regions WHERE rank() OVER (ORDER BY weight) = 1) d ON e.region = d.region')).toMatch(/^\[_LEGACY_ERROR_TEMP_1034\] It is not allowed to use window functions inside WHERE clause/);
    // A window function without OVER: Spark resolves it and refuses the missing window.
    for (const f of ['row_number()', 'rank()', 'ntile(2)', 'lag(weight)', 'nth_value(weight, 2)']) {
      expect(await errorOf(side(f))).toMatch(/^\[WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE\] Window function ".*" requires an OVER clause/);
    }
    expect(await errorOf('SELECT id, row_number() AS rn FROM events')).toMatch(/^\[WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE\]/);
    // Grouped by: Spark's CheckAnalysis refuses the Aggregate holding it (not as a stream's refusal).
    expect(await errorOf('SELECT e.id FROM events e JOIN (SELECT region, count(*) AS n FROM regions GROUP BY region, rank() OVER (ORDER BY weight)) d ON e.region = d.region')).toMatch(/^\[UNSUPPORTED_EXPR_FOR_OPERATOR\]/);
  });

  it('counter_diff: the counter less the last non-NULL one, NULL first, at a fall or a later start time; Spark\'s errors', async () => {
    const diffs = async (values: string, call = 'counter_diff(c) OVER (PARTITION BY m ORDER BY t)') => {
      const w = await weir(`SELECT e.id, x.t, x.d FROM events e JOIN (SELECT 1 AS one, t, ${call} AS d FROM VALUES ${values} AS v(m, t, c, st)) x ON e.id = x.one`);
      return w.rows.map((r) => JSON.parse(r) as { t: number; d: unknown }).sort((a, b) => a.t - b.t).map((r) => r.d);
    };
    const ts = (hm: string) => `TIMESTAMP '2026-01-01 ${hm}:00'`;
    // A fall is a reset; a NULL counter gives NULL and leaves the previous counter as it was.
    expect(await diffs(`('a', 1, 100, NULL), ('a', 2, 300, NULL), ('a', 3, NULL, NULL), ('a', 4, 350, NULL), ('a', 5, 20, NULL), ('a', 6, 20, NULL)`)).toEqual([null, 200, null, 50, null, 0]);
    // NaN is the greatest value: a fall from it is a reset.
    expect(await diffs(`('a', 1, 1.0D, NULL), ('a', 2, DOUBLE('NaN'), NULL), ('a', 3, 5.0D, NULL), ('a', 4, 7.0D, NULL)`, 'CAST(counter_diff(c) OVER (ORDER BY t) AS STRING)')).toEqual([null, 'NaN', null, '2.0']);
    // A later start time is a reset though the counter grew; a NULL one is no check.
    expect(await diffs(`('a', 1, 100, ${ts('00:00')}), ('a', 2, 200, ${ts('00:00')}), ('a', 3, 400, ${ts('00:05')}), ('a', 4, 500, NULL), ('a', 5, 600, ${ts('00:05')})`, 'counter_diff(c, st) OVER (ORDER BY t)')).toEqual([null, 100, null, 100, 100]);
    // A DECIMAL's difference keeps its type (not widened as c - lag(c) is).
    const w = await weir('SELECT e.id, x.d FROM events e JOIN (SELECT 1 AS one, counter_diff(c) OVER (ORDER BY t) AS d FROM VALUES (1, CAST(1.5 AS DECIMAL(10, 2))), (2, CAST(2.25 AS DECIMAL(10, 2))) AS v(t, c)) x ON e.id = x.one');
    expect(w.schema.find((f) => f.name === 'd')).toMatchObject({ type: 'decimal', precision: 10, scale: 2 });
    const side = (w: string, values = '(1, 100, TIMESTAMP \'2026-01-01 00:00:00\')') => `SELECT e.id FROM events e JOIN (SELECT 1 AS one, ${w} AS x FROM VALUES ${values} AS v(t, c, st)) d ON e.id = d.one`;
    expect(await errorOf(side('counter_diff(c) OVER (ORDER BY t)', '(1, -5, NULL)'))).toMatch(/\[COUNTER_DIFF_NEGATIVE_COUNTER_VALUE\] .* got -5\./);
    expect(await errorOf(side('counter_diff(c, st) OVER (ORDER BY t)', `(1, 1, ${ts('00:05')}), (2, 2, ${ts('00:01')})`))).toMatch(/\[COUNTER_DIFF_START_TIME_DECREASED\] .* from 2026-01-01 00:05:00 to 2026-01-01 00:01:00\./);
    expect(await errorOf(side('counter_diff(c) OVER (PARTITION BY t)'))).toMatch(/^\[WINDOW_FUNCTION_FRAME_NOT_ORDERED\]/);
    expect(await errorOf(side('counter_diff(c) OVER (ORDER BY t RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)'))).toMatch(/^\[_LEGACY_ERROR_TEMP_1036\]/);
    expect(await errorOf(side('counter_diff(st) OVER (ORDER BY t)'))).toMatch(/^\[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE\] .*The first parameter requires the "NUMERIC" type/);
    expect(await errorOf(side('counter_diff(c, t) OVER (ORDER BY t)'))).toMatch(/^\[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE\] .*The second parameter requires the \("TIMESTAMP" or "TIMESTAMP_NTZ"\) type/);
    expect(await errorOf(side('counter_diff() OVER (ORDER BY t)'))).toMatch(/^\[REQUIRED_PARAMETER_NOT_FOUND\]/);
    expect(await errorOf(side('counter_diff(c, st, 1) OVER (ORDER BY t)'))).toMatch(/^\[WRONG_NUM_ARGS.WITHOUT_SUGGESTION\]/);
  });

  it('percentile_cont and percentile_disc WITHIN GROUP, and median, over a whole partition; with an ORDER BY or a frame refused as Spark refuses them', async () => {
    // Spark's percentiles.sql over its basic_pays IT department (5186, 8113) and one of three.
    const pays = "VALUES ('IT', 5186), ('IT', 8113), ('SCM', 10449), ('SCM', 10586), ('SCM', 11303) AS t(dept, salary)";
    const over = (fns: string, windows = '') => `SELECT e.id, x.* FROM events e JOIN (SELECT 1 AS one, dept, salary, ${fns} FROM ${pays}${windows}) x ON e.id = x.one`;
    const w = await weir(over('percentile_cont(0.25) WITHIN GROUP (ORDER BY salary) OVER (PARTITION BY dept) AS pc, percentile_disc(0.25) WITHIN GROUP (ORDER BY salary) OVER (PARTITION BY dept) AS pd, percentile_cont(0.25) WITHIN GROUP (ORDER BY salary DESC) OVER w AS pcd, percentile_disc(0.25) WITHIN GROUP (ORDER BY salary DESC) OVER w AS pdd, median(salary) OVER w AS m', ' WINDOW w AS (PARTITION BY dept)'));
    expect(w.rows.map((r) => JSON.parse(r) as Record<string, unknown>).map((r) => [r.dept, r.salary, r.pc, r.pd, r.pcd, r.pdd, r.m])).toEqual([
      ['IT', 5186, 5917.75, 5186, 7381.25, 8113, 6649.5], ['IT', 8113, 5917.75, 5186, 7381.25, 8113, 6649.5],
      ['SCM', 10449, 10517.5, 10449, 10944.5, 11303, 10586], ['SCM', 10586, 10517.5, 10449, 10944.5, 11303, 10586], ['SCM', 11303, 10517.5, 10449, 10944.5, 11303, 10586],
    ]);
    expect(w.schema.filter((f) => ['pc', 'pd', 'm'].includes(f.name)).map((f) => f.type)).toEqual(['double', 'double', 'double']);
    // Spark's CheckAnalysis: these read the whole partition, unordered.
    for (const spec of ['PARTITION BY dept ORDER BY salary', 'PARTITION BY dept ROWS BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING']) {
      expect(await errorOf(over(`percentile_cont(0.25) WITHIN GROUP (ORDER BY salary) OVER (${spec}) AS p`))).toMatch(/^\[INVALID_WINDOW_SPEC_FOR_AGGREGATION_FUNC\]/);
      expect(await errorOf(over(`median(salary) OVER (${spec}) AS p`))).toMatch(/^\[INVALID_WINDOW_SPEC_FOR_AGGREGATION_FUNC\]/);
    }
    expect(await errorOf(over('percentile_disc(0.5) OVER (PARTITION BY dept) AS p'))).toMatch(/^\[INVALID_WITHIN_GROUP_EXPRESSION.WITHIN_GROUP_MISSING\]/);
  });

  it('over a stream stays refused, as Spark refuses it (NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING)', () => {
    const refused = (sql: string) => validateJob({
      name: 'w', source: { name: 'events', type: 'memory', options: { stream: 'w' }, schema: EVENTS },
      sql, sink: { type: 'memory', options: { table: 'w' } },
    }).errors.map((e) => withErrorClass(e.message, e.errorClass)).join('\n');
    expect(refused('SELECT id, row_number() OVER (PARTITION BY region ORDER BY id) AS rn FROM events')).toContain('[NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING] Window function is not supported in ROW_NUMBER()');
    // A CTE or subquery over the stream (planned as a CTE is, whatever it reads), in WHERE, or over its aggregation.
    expect(refused('WITH x AS (SELECT id, rank() OVER (ORDER BY id) AS r FROM events) SELECT * FROM x')).toContain('[NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING]');
    expect(refused('WITH x AS (SELECT DISTINCT region, first_value(id) OVER (PARTITION BY region ORDER BY id) AS f FROM events) SELECT * FROM x')).toContain('[NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING]');
    expect(refused('WITH x AS (SELECT region, rank() OVER (ORDER BY count(*)) AS r FROM events GROUP BY region) SELECT * FROM x')).toContain('[NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING]');
  });
});
