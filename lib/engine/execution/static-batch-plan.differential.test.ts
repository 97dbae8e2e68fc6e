/**
 * The static side of a stream-static join as Spark runs it, a batch plan over the static tables
 * (an aggregation with HAVING, DISTINCT, ORDER BY, LIMIT and OFFSET, UNION, a join of two static tables,
 * a generator), checked against DuckDB running the same SQL over the same rows, with the stream's
 * rows as a table.
 */
import { describe, expect, it } from 'vitest';
import { validateJob } from '../spec/validate-job';
import { BLOCKED, EVENTS, REGIONS, staticJoinDifferential } from './testing/static-join-differential';

const { weir, duckRows, same } = staticJoinDifferential('static-batch');

describe('the static side as a batch plan (Spark runs any batch plan there)', () => {
  it('GROUP BY with aggregates: one row per group, joined on its key', async () => {
    const w = await same('SELECT e.id, r.w, r.n FROM events e JOIN (SELECT region, max(weight) AS w, count(*) AS n FROM regions GROUP BY region) r ON e.region = r.region');
    expect(w.explain).toMatch(/StaticRelation r \[w, n\]/);
    expect(w.explain).toMatch(/Aggregate \[region\], \[max\(weight\), count\(\*\)\]/);
  });

  it('HAVING, LEFT JOIN: groups HAVING drops pad the stream rows with NULLs', async () => {
    await same('SELECT e.id, r.total FROM events e LEFT JOIN (SELECT region, sum(weight) AS total FROM regions GROUP BY region HAVING count(*) > 1) r ON e.region = r.region');
  });

  it('aggregates have Spark\'s types: sum of INT a BIGINT, avg a DOUBLE, count a BIGINT', async () => {
    const w = await same('SELECT e.id, r.total, r.mean, r.n FROM events e JOIN (SELECT region, sum(weight) AS total, avg(weight) AS mean, count(weight) AS n FROM regions GROUP BY region) r ON e.region = r.region');
    const types = Object.fromEntries(w.schema.map((f) => [f.name, `${f.type}${f.integral ? `/${f.integral}` : ''}`]));
    expect(types).toEqual({ id: 'long', total: 'long', mean: 'double', n: 'long' });
  });

  it('DISTINCT: each key once, so no stream row is doubled', async () => {
    await same('SELECT e.id, r.region FROM events e JOIN (SELECT DISTINCT region FROM regions) r ON e.region = r.region');
  });

  it('ORDER BY and LIMIT: the top rows of the whole table', async () => {
    await same('SELECT e.id, r.weight FROM events e JOIN (SELECT region, weight FROM regions WHERE weight IS NOT NULL ORDER BY weight DESC LIMIT 2) r ON e.region = r.region');
  });

  it('ORDER BY a column the side does not select (Spark\'s ResolveMissingReferences): sorted on a hidden column, projected away', async () => {
    const w = await same('SELECT e.id, r.region FROM events e JOIN (SELECT region FROM regions WHERE weight IS NOT NULL ORDER BY weight DESC LIMIT 2) r ON e.region = r.region');
    expect(w.explain).toMatch(/Sort \[__sort0 DESC/);
    await same('SELECT e.id, r.code FROM events e JOIN (SELECT region AS code FROM regions WHERE region IS NOT NULL AND weight IS NOT NULL ORDER BY weight * -1, code LIMIT 1) r ON e.region = r.code');
    await same('SELECT e.id FROM events e WHERE e.region IN (SELECT region FROM regions WHERE weight IS NOT NULL ORDER BY weight LIMIT 2)');
    await same('SELECT e.id, (SELECT region FROM regions WHERE weight IS NOT NULL ORDER BY weight DESC LIMIT 1) AS top FROM events e');
  });

  it('OFFSET: the rows after the first ones, a LIMIT taking from what is left (LIMIT 2 OFFSET 1: rows 2 and 3)', async () => {
    const w = await same('SELECT e.id, r.weight FROM events e JOIN (SELECT region, weight FROM regions WHERE region IS NOT NULL AND weight IS NOT NULL ORDER BY weight DESC, region LIMIT 2 OFFSET 1) r ON e.region = r.region');
    expect(w.explain).toMatch(/Limit 2 \[batch\]\n\s+\+- Offset 1 \[batch\]\n\s+\+- Sort/);
    await same('SELECT e.id, r.weight FROM events e JOIN (SELECT region, weight FROM regions WHERE region IS NOT NULL AND weight IS NOT NULL ORDER BY weight, region OFFSET 2) r ON e.region = r.region');
    // An OFFSET past the last row leaves none: every stream row comes out padded.
    await same('SELECT e.id, r.region FROM events e LEFT JOIN (SELECT region FROM regions ORDER BY region OFFSET 100) r ON e.region = r.region');
    await same('SELECT e.id FROM events e WHERE e.region IN (SELECT region FROM regions WHERE weight IS NOT NULL ORDER BY weight, region LIMIT 2 OFFSET 1)');
    await same('SELECT e.id, (SELECT region FROM regions WHERE region IS NOT NULL AND weight IS NOT NULL ORDER BY weight DESC, region LIMIT 1 OFFSET 1) AS second FROM events e');
    await same('WITH later AS (SELECT region FROM regions WHERE region IS NOT NULL ORDER BY region OFFSET 2) SELECT e.id, later.region FROM events e JOIN later ON e.region = later.region');
  });

  it('ORDER BY a column the query does not select stays refused on a stream', () => {
    const errors = validateJob({
      name: 'x', source: { name: 'events', type: 'memory', options: { stream: 'x' }, schema: EVENTS },
      sql: 'SELECT id FROM events ORDER BY amount', sink: { type: 'memory', options: { table: 'x' } },
    }).errors.map((e) => e.message).join('\n');
    expect(errors).toContain('ORDER BY on a streaming query may only name output columns');
  });

  it('UNION ALL and UNION of static tables', async () => {
    await same('SELECT e.id, u.src FROM events e JOIN (SELECT region, \'r\' AS src FROM regions UNION ALL SELECT region, \'b\' AS src FROM blocked) u ON e.region = u.region');
    await same('SELECT e.id FROM events e JOIN (SELECT region FROM regions UNION SELECT region FROM blocked) u ON e.region = u.region');
    // ORDER BY after a set operation sorts its output, by a column's name, position or ALL (Spark 4's ResolveOrderByAll).
    await same('SELECT e.id, u.region FROM events e JOIN (SELECT region FROM regions UNION SELECT region FROM blocked ORDER BY region DESC LIMIT 2) u ON e.region = u.region');
    await same('SELECT e.id, u.region FROM events e JOIN (SELECT region FROM regions UNION ALL SELECT region FROM blocked ORDER BY 1 DESC LIMIT 3) u ON e.region = u.region');
    await same('SELECT e.id, u.region FROM events e JOIN (SELECT region, weight FROM regions UNION SELECT region, 0 FROM blocked ORDER BY ALL DESC LIMIT 3) u ON e.region = u.region');
    await expect(weir('SELECT e.id FROM events e JOIN (SELECT region FROM regions UNION SELECT region FROM blocked ORDER BY regoin) u ON e.region = u.region')).rejects.toThrow(
      /UNRESOLVED_COLUMN\.WITH_SUGGESTION.*A column, variable, or function parameter with name `regoin` cannot be resolved\. Did you mean one of the following\? \[`region`\]/);
  });

  it('NATURAL JOIN: USING the columns both sides name (Spark\'s ResolveNaturalAndUsingJoin)', async () => {
    await same('SELECT id, region, weight FROM events NATURAL JOIN regions');
    await same('SELECT id, region, weight FROM events NATURAL LEFT JOIN regions');
    await same('SELECT e.id, x.weight, x.user FROM events e JOIN (SELECT * FROM regions NATURAL JOIN blocked) x ON e.region = x.region');
    await same('SELECT e.id, x.weight, x.user FROM events e JOIN (SELECT * FROM regions NATURAL FULL JOIN blocked) x ON e.region = x.region');
  });

  it('RIGHT and FULL joins USING (k): r.k and b.k each its side\'s own, NULL where the side is padded', async () => {
    await same("SELECT e.id, x.region, x.rr, x.br FROM events e JOIN (SELECT region, r.region AS rr, b.region AS br FROM (SELECT * FROM regions WHERE region <> 'us') r RIGHT JOIN blocked b USING (region)) x ON e.region = x.region");
    await same("SELECT e.id, x.region, x.rr, x.br FROM events e JOIN (SELECT region, r.region AS rr, b.region AS br FROM (SELECT * FROM regions WHERE region <> 'us') r FULL JOIN blocked b USING (region)) x ON e.region = x.region");
  });

  it('a join of two static tables (inner, left, and a CTE over it)', async () => {
    await same('SELECT e.id, x.weight, x.who FROM events e JOIN (SELECT r.region, r.weight, b.user AS who FROM regions r JOIN blocked b ON r.region = b.region) x ON e.region = x.region');
    await same('SELECT e.id, x.who FROM events e JOIN (SELECT r.region, b.user AS who FROM regions r LEFT JOIN blocked b ON r.region = b.region AND b.user <> \'ann\') x ON e.region = x.region');
    await same('WITH x AS (SELECT b.region, count(*) AS n FROM blocked b JOIN regions r ON b.region = r.region GROUP BY b.region) SELECT e.id, x.n FROM events e JOIN x ON e.region = x.region');
  });

  it('a generator: one row per element', async () => {
    await same(
      'SELECT e.id, t.tag FROM events e JOIN (SELECT region, tag FROM regions LATERAL VIEW explode(tags) x AS tag) t ON e.region = t.region',
      'SELECT e.id, t.tag FROM events e JOIN (SELECT region, unnest(tags) AS tag FROM regions) t ON e.region = t.region',
    );
  });

  it('an aggregation over a subquery that selects and filters (the former only static side), and the explain shows the whole plan', async () => {
    const w = await same('SELECT e.id, r.w FROM events e JOIN (SELECT region, min(weight) AS w FROM (SELECT region, weight * 2 AS weight FROM regions WHERE weight > 2) GROUP BY region) r ON e.region = r.region');
    expect(w.explain).toMatch(/StaticRelation regions \[region, weight, tags\]/);
    expect(w.explain).toMatch(/Filter \(weight > 2\)/);
  });

  it('RIGHT and FULL joins of two static tables: Spark\'s NULL padding (each static side\'s rows in full, through a key of the stream)', async () => {
    // e.id = x.one: the stream's row 1 joins every row of the static side.
    const all = (side: string, cols: string) => `SELECT e.id, ${cols} FROM events e JOIN (${side}) x ON e.id = x.one`;
    await same(all('SELECT 1 AS one, region AS reg, r.weight, b.user AS who FROM regions r FULL JOIN blocked b USING (region)', 'x.reg, x.weight, x.who'));
    await same(all('SELECT 1 AS one, region AS reg, r.weight, b.user AS who FROM regions r RIGHT JOIN blocked b USING (region)', 'x.reg, x.weight, x.who'));
    await same(all("SELECT 1 AS one, r.region AS reg, r.weight, b.breg, b.user AS who FROM regions r FULL JOIN (SELECT region AS breg, user FROM blocked) b ON r.region = b.breg AND b.user <> 'ann'", 'x.reg, x.weight, x.breg, x.who'));
    await same(all('SELECT 1 AS one, r.rreg, r.weight, b.region AS breg, b.user AS who FROM (SELECT region AS rreg, weight FROM regions) r RIGHT JOIN blocked b ON r.rreg = b.region AND r.weight > 2', 'x.rreg, x.weight, x.breg, x.who'));
    // Aggregated over, and the stream joined on the full join's key.
    await same('SELECT e.id, x.n FROM events e JOIN (SELECT region, count(*) AS n FROM regions r FULL JOIN blocked b USING (region) GROUP BY region) x ON e.region = x.region');
  });

  it('RIGHT and FULL joins of two static tables on a column both name: two columns, each NULL where its side is padded', async () => {
    const all = (side: string, cols: string) => `SELECT e.id, ${cols} FROM events e JOIN (${side}) x ON e.id = x.one`;
    await same(all("SELECT 1 AS one, r.region AS rreg, b.region AS breg, r.weight, b.user AS who FROM regions r FULL JOIN blocked b ON r.region = b.region AND b.user <> 'bob'", 'x.rreg, x.breg, x.weight, x.who'));
    await same(all('SELECT 1 AS one, r.region AS rreg, b.region AS breg, r.weight, b.user AS who FROM regions r RIGHT JOIN blocked b ON r.region = b.region AND r.weight > 2', 'x.rreg, x.breg, x.weight, x.who'));
    // Unqualified, the name is ambiguous, as in Spark.
    const errors = validateJob({
      name: 'x', source: { name: 'events', type: 'memory', options: { stream: 'x' }, schema: EVENTS },
      staticTables: [{ name: 'regions', path: '/nonexistent.json', format: 'json', schema: REGIONS }, { name: 'blocked', path: '/nonexistent.json', format: 'json', schema: BLOCKED }],
      sql: 'SELECT e.id FROM events e JOIN (SELECT region AS reg FROM regions r FULL JOIN blocked b ON r.region = b.region) x ON e.region = x.reg',
      sink: { type: 'memory', options: { table: 'x' } },
    }).errors.map((e) => e.message).join('\n');
    expect(errors).toContain('Reference `region` is ambiguous');
  });

  it('SELECT * of a RIGHT or FULL join of two static tables on a column both name: ON keeps both columns, USING one', async () => {
    // Renamed in order by the alias's column list, so each of Spark's columns is checked where it stands.
    const all = (side: string, names: string) => `SELECT e.id, x.* FROM events e JOIN (SELECT 1 AS one, * FROM ${side}) AS x(one, ${names}) ON e.id = x.one`;
    for (const join of ['RIGHT', 'FULL']) {
      const w = await same(all(`regions r ${join} JOIN blocked b ON r.region = b.region`, 'rreg, weight, tags, who, breg'));
      expect(w.explain).toMatch(/b\.region AS region#\d+/);
      await same(all(`regions r ${join} JOIN blocked b USING (region)`, 'reg, weight, tags, who'));
      await same(`WITH x AS (SELECT * FROM regions r ${join} JOIN blocked b ON r.region = b.region AND b.user <> 'bob') SELECT e.id, x.weight, x.user FROM events e JOIN x ON e.id = x.weight`);
      // DISTINCT * keys on both columns of the name.
      await same(`SELECT e.id, x.weight, x.user FROM events e JOIN (SELECT DISTINCT * FROM regions r ${join} JOIN blocked b ON r.region = b.region) x ON e.id = x.weight`);
    }
    // The repeated name reads as neither column (Spark's AMBIGUOUS_REFERENCE); the query outputs
    // both, which the memory sink, holding a column by its name, refuses (COLUMN_ALREADY_EXISTS).
    const refusal = (sql: string) => validateJob({
      name: 'x', source: { name: 'events', type: 'memory', options: { stream: 'x' }, schema: EVENTS },
      staticTables: [{ name: 'regions', path: '/nonexistent.json', format: 'json', schema: REGIONS }, { name: 'blocked', path: '/nonexistent.json', format: 'json', schema: BLOCKED }],
      sql, sink: { type: 'memory', options: { table: 'x' } }, trigger: { type: 'available-now' }, checkpointLocation: '/tmp/weir-static-batch-plan-x',
    }).errors.map((e) => e.message).join('\n');
    const side = '(SELECT * FROM regions r FULL JOIN blocked b ON r.region = b.region) x';
    expect(refusal(`SELECT e.id, x.weight FROM events e JOIN ${side} ON e.region = x.region`)).toContain('Reference `region` is ambiguous');
    expect(refusal(`SELECT e.id, x.region FROM events e JOIN ${side} ON e.id = x.weight`)).toContain('Reference `region` is ambiguous');
    expect(refusal(`SELECT e.id, x.* FROM events e JOIN ${side} ON e.id = x.weight`)).toContain('[COLUMN_ALREADY_EXISTS] The column `region` already exists');
  });

  it('DISTINCT aggregates over the same arguments: the distinct rows, then aggregated (Spark\'s single distinct group)', async () => {
    const w = await same('SELECT e.id, r.n, r.s, r.m FROM events e JOIN (SELECT region, count(DISTINCT weight) AS n, sum(DISTINCT weight) AS s, avg(DISTINCT weight) AS m FROM regions GROUP BY region) r ON e.region = r.region');
    const types = Object.fromEntries(w.schema.map((f) => [f.name, `${f.type}${f.integral ? `/${f.integral}` : ''}`]));
    expect(types).toEqual({ id: 'long', n: 'long', s: 'long', m: 'double' });
    expect(w.explain).toMatch(/Aggregate \[region\], \[count\(weight\), sum\(weight\), avg\(weight\)\] \[batch\]\n\s+\+- Aggregate \[region, weight\], \[\] \[batch\]/);
    await same('SELECT e.id FROM events e WHERE e.region IN (SELECT region FROM regions GROUP BY region HAVING count(DISTINCT weight) > 1)');
    await same('SELECT e.id, r.n FROM events e JOIN (SELECT upper(region) AS reg, count(DISTINCT weight % 2) AS n FROM regions GROUP BY upper(region)) r ON upper(e.region) = r.reg');
    await same(
      'SELECT e.id, (SELECT count(DISTINCT region) FROM blocked) AS n, (SELECT count(DISTINCT user, region) FROM blocked) AS pairs FROM events e',
      'SELECT e.id, (SELECT count(DISTINCT region) FROM blocked) AS n, (SELECT count(*) FROM (SELECT DISTINCT user, region FROM blocked WHERE user IS NOT NULL AND region IS NOT NULL)) AS pairs FROM events e',
    );
  });

  it('other mixes of DISTINCT aggregates, as Spark\'s RewriteDistinctAggregates: the rows expanded once per DISTINCT argument set and once for the other aggregates', async () => {
    const w = await same('SELECT e.id, r.n, r.c, r.s, r.k FROM events e JOIN (SELECT region, count(DISTINCT weight) AS n, count(DISTINCT tags) AS c, sum(weight) AS s, count(*) AS k FROM regions GROUP BY region) r ON e.region = r.region');
    expect(w.explain).toMatch(/Aggregate \[region, __gid, __distinct_arg0, __distinct_arg1\], \[sum\(__regular_arg0\), count\(\*\)\] \[batch\]\n\s+\+- Union \(3 branches\)/);
    const types = Object.fromEntries(w.schema.map((f) => [f.name, `${f.type}${f.integral ? `/${f.integral}` : ''}`]));
    expect(types).toEqual({ id: 'long', n: 'long', c: 'long', s: 'long', k: 'long' });
    // DISTINCT over two argument sets, one of them two columns, a NULL key grouped, a FILTER.
    await same('SELECT e.id, r.n, r.p, r.m FROM events e JOIN (SELECT region, count(DISTINCT user) AS n, count(DISTINCT user, region) AS p, max(user) FILTER (WHERE user <> \'bob\') AS m FROM blocked GROUP BY region) r ON e.region <=> r.region',
      'SELECT e.id, r.n, r.p, r.m FROM events e JOIN (SELECT region, count(DISTINCT user) AS n, count(DISTINCT (user, region)) FILTER (WHERE user IS NOT NULL AND region IS NOT NULL) AS p, max(user) FILTER (WHERE user <> \'bob\') AS m FROM blocked GROUP BY region) r ON e.region IS NOT DISTINCT FROM r.region');
    await same('SELECT e.id, r.n, r.s FROM events e JOIN (SELECT region, sum(DISTINCT weight) AS n, avg(weight) AS s FROM regions GROUP BY region HAVING count(DISTINCT tags) > 0) r ON e.region = r.region');
    // A global aggregation of no rows: count(*) is 0 there, as Spark's defaultResult makes it.
    await same('SELECT e.id, (SELECT count(DISTINCT region) FROM blocked WHERE user = \'zed\') AS d, (SELECT count(*) FROM (SELECT count(DISTINCT region) AS a, count(DISTINCT user) AS b, count(*) AS c FROM blocked WHERE user = \'zed\') WHERE c = 0) AS k FROM events e');
  });

  it('DISTINCT aggregates with GROUPING SETS, CUBE or ROLLUP: each grouping set\'s rows made distinct apart; the stream keeps Spark\'s refusal', async () => {
    const everyRow = (side: string) => `SELECT e.id, x.* FROM events e JOIN (SELECT 1 AS one, * FROM (${side})) x ON e.id = x.one`;
    await same(everyRow('SELECT region, count(DISTINCT weight) AS n FROM regions GROUP BY ROLLUP(region)'));
    await same(everyRow('SELECT region, count(DISTINCT weight) AS n, sum(weight) AS s, count(*) AS k FROM regions GROUP BY ROLLUP(region)'));
    await same(everyRow('SELECT region, user, count(DISTINCT user) AS n, count(DISTINCT region) AS m, count(*) AS k FROM blocked GROUP BY CUBE(region, user)'));
    // A grouping set listed twice gives its rows twice, each made distinct apart.
    await same(everyRow('SELECT region, count(DISTINCT user) AS n, max(user) AS mx, grouping(region) AS g FROM blocked GROUP BY GROUPING SETS ((region), (), ())'));
    const errors = validateJob({
      name: 'x', source: { name: 'events', type: 'memory', options: { stream: 'x' }, schema: EVENTS },
      sql: 'SELECT region, count(DISTINCT id) FROM events GROUP BY region', sink: { type: 'memory', options: { table: 'x' } },
    }).errors.map((e) => e.message).join('\n');
    expect(errors).toContain('Distinct aggregations are not supported on streaming DataFrames/Datasets');
  });
});

describe('IN and NOT IN subqueries whose static side is a batch plan (semi and null-aware anti joins)', () => {
  it('GROUP BY … HAVING in the subquery', async () => {
    const w = await same('SELECT e.id FROM events e WHERE e.user IN (SELECT user FROM blocked GROUP BY user HAVING count(*) > 1)');
    expect(w.explain).toMatch(/Join LeftSemi/);
    expect(w.explain).toMatch(/Aggregate \[user\], \[count\(\*\)\] \[batch\]/);
    await same('SELECT e.id FROM events e WHERE e.user NOT IN (SELECT user FROM blocked GROUP BY user HAVING count(*) > 1)');
  });

  it('an aggregate as the column, DISTINCT, UNION', async () => {
    await same('SELECT e.id FROM events e WHERE e.amount IN (SELECT max(weight) FROM regions GROUP BY region)');
    await same('SELECT e.id FROM events e WHERE e.amount > 1 AND e.region IN (SELECT DISTINCT region FROM blocked)');
    await same('SELECT e.id FROM events e WHERE e.region IN (SELECT region FROM regions WHERE weight > 2 UNION SELECT region FROM blocked WHERE user = \'bob\')');
  });

  it('NOT IN over an aggregation with a NULL group: NOT IN is NULL for every row, none kept', async () => {
    const w = await weir('SELECT e.id FROM events e WHERE e.region NOT IN (SELECT region FROM blocked GROUP BY region)');
    expect(w.rows).toEqual(await duckRows('SELECT e.id FROM events e WHERE e.region NOT IN (SELECT region FROM blocked GROUP BY region)'));
    expect(w.rows).toEqual([]);
  });
});

describe('uncorrelated scalar subqueries over static tables (Spark\'s ScalarSubquery)', () => {
  it('in the select list: its one value on every row, of its column\'s type', async () => {
    const w = await same('SELECT e.id, (SELECT max(weight) FROM regions) AS mx, e.amount * (SELECT count(*) FROM blocked) AS scaled FROM events e');
    const types = Object.fromEntries(w.schema.map((f) => [f.name, `${f.type}${f.integral ? `/${f.integral}` : ''}`]));
    expect(types).toEqual({ id: 'long', mx: 'long/32', scaled: 'long' });
    expect(w.explain).toMatch(/Project \[id, scalar-subquery#\d+ \[\] AS mx/);
    expect(w.explain).toMatch(/Subquery scalar-subquery#\d+ \[batch: run before the batch's operators, whenever its tables are read\]\n\+- Project \[max\(weight\)\] \[batch\]\n {3}\+- Aggregate \[\], \[max\(weight\)\] \[batch\]/);
  });

  it('in WHERE, and unaliased named scalarsubquery() as Spark names it', async () => {
    await same('SELECT e.id FROM events e WHERE e.amount > (SELECT avg(weight) FROM regions)');
    const w = await weir('SELECT e.id, (SELECT min(weight) FROM regions) FROM events e WHERE e.id = 1');
    expect(w.rows).toEqual(['{"id":1,"scalarsubquery()":2}']);
  });

  it('inside a static side\'s plan, and in an aggregation\'s HAVING and select list', async () => {
    await same('SELECT e.id, r.weight FROM events e JOIN (SELECT region, weight FROM regions WHERE weight > (SELECT avg(weight) FROM regions)) r ON e.region = r.region');
    const w = await weir('SELECT region, count(*) * (SELECT max(weight) FROM regions) AS n FROM events GROUP BY region HAVING count(*) >= (SELECT min(weight) FROM regions)', 'complete');
    expect(w.rows).toEqual(await duckRows('SELECT region, count(*) * (SELECT max(weight) FROM regions) AS n FROM events GROUP BY region HAVING count(*) >= (SELECT min(weight) FROM regions)'));
    expect(w.rows).toEqual(['{"region":"eu","n":14}']);
  });

  it('no row: NULL', async () => {
    const w = await weir("SELECT e.id, (SELECT weight FROM regions WHERE region = 'none') AS w FROM events e WHERE e.id < 3");
    expect(w.rows).toEqual(['{"id":1,"w":null}', '{"id":2,"w":null}']);
    expect(w.rows).toEqual(await duckRows("SELECT e.id, (SELECT weight FROM regions WHERE region = 'none') AS w FROM events e WHERE e.id < 3"));
  });

  it('more than one row fails the batch with SCALAR_SUBQUERY_TOO_MANY_ROWS', async () => {
    await expect(weir('SELECT e.id, (SELECT weight FROM regions) AS w FROM events e')).rejects.toThrow(/SCALAR_SUBQUERY_TOO_MANY_ROWS/);
    // Correlated and not aggregated, as Spark 4's single join: for an outer row two rows match.
    await expect(weir('SELECT e.id, (SELECT weight FROM regions r WHERE r.region = e.region) AS w FROM events e')).rejects.toThrow(/SCALAR_SUBQUERY_TOO_MANY_ROWS/);
    await same('SELECT e.id, (SELECT weight FROM regions r WHERE r.region = e.region AND r.weight > 3) AS w FROM events e');
  });

  it('correlated by equalities: Spark\'s rewrite into a LEFT JOIN of its aggregation grouped by the correlated columns', async () => {
    const w = await same('SELECT e.id, (SELECT max(weight) FROM regions r WHERE r.region = e.region) AS mx FROM events e');
    expect(w.explain).toMatch(/Join LeftOuter/);
    // The count bug: a row no group matches reads count(*) over no rows, 0.
    await same('SELECT e.id, (SELECT count(*) FROM blocked b WHERE b.region = e.region) AS n FROM events e');
    await same('SELECT e.id, e.amount * (SELECT count(*) + 1 FROM regions r WHERE r.region = e.region AND r.weight > 2) AS m FROM events e');
    await same('SELECT e.id FROM events e WHERE e.amount < (SELECT sum(weight) FROM regions r WHERE r.region = e.region)');
    await same('SELECT e.id, (SELECT count(*) FROM blocked b WHERE b.region = e.region AND b.user = e.user) AS n FROM events e');
    // An unqualified name is the subquery's table's first (regions has a region), then the stream's (amount).
    await same('SELECT e.id, (SELECT count(*) FROM regions WHERE region = e.region AND weight > 2) AS n FROM events e');
    await same('SELECT e.id, (SELECT count(weight) FROM regions WHERE weight = amount) AS same_weight FROM events e',
      'SELECT e.id, (SELECT count(weight) FROM regions WHERE weight = e.amount) AS same_weight FROM events e');
    // Several in one SELECT, each its own join, and over a join with a static table.
    await same('SELECT e.id, (SELECT max(weight) FROM regions r WHERE r.region = e.region) AS hi, (SELECT count(*) FROM blocked b WHERE b.user = e.user) AS n FROM events e');
    await same('SELECT e.id, x.who, (SELECT sum(weight) FROM regions r WHERE r.region = x.region) AS s FROM events e JOIN (SELECT user AS who, region FROM blocked) x ON e.user = x.who');
    await same('SELECT e.id FROM events e WHERE e.region IN (SELECT region FROM blocked) AND e.amount > (SELECT count(*) FROM regions r WHERE r.region = e.region)');
    // Unaliased, named as Spark names it; * leaves the join's columns out.
    const star = await weir('SELECT *, (SELECT max(weight) FROM regions r WHERE r.region = e.region) FROM events e WHERE e.id = 1');
    expect(star.rows).toEqual(['{"id":1,"region":"eu","amount":4,"user":"ann","scalarsubquery(region)":5}']);
    await same('SELECT e.*, (SELECT max(weight) FROM regions r WHERE r.region = e.region) AS mx FROM events e');
  });

  it('correlated and grouped by its correlated columns: the same aggregation, a row no group matches reads NULL', async () => {
    // count(*) over no group is no row, so NULL (not the count bug's 0); HAVING drops groups the same way.
    await same('SELECT e.id, (SELECT count(*) FROM blocked b WHERE b.region = e.region GROUP BY b.region) AS n FROM events e');
    await same('SELECT e.id FROM events e WHERE e.amount < (SELECT max(weight) FROM regions r WHERE r.region = e.region GROUP BY r.region HAVING count(*) > 1)');
    // Grouped by another column, it runs as Spark 4's single join runs it: an outer row with
    // two groups fails the batch (Spark 3.x refused it, NON_CORRELATED_COLUMNS_IN_GROUP_BY).
    await expect(weir('SELECT e.id, (SELECT count(*) FROM blocked b WHERE b.region = e.region GROUP BY b.user) AS n FROM events e'))
      .rejects.toThrow(/SCALAR_SUBQUERY_TOO_MANY_ROWS/);
  });

  it('correlated otherwise: its plan run for each tuple of the outer values it reads, as Spark\'s decorrelated join answers', async () => {
    // Correlated by a comparison, an OR, inside a UNION's branches, a join's ON.
    const w = await same('SELECT e.id, (SELECT max(weight) FROM regions r WHERE r.weight > e.amount) AS m FROM events e');
    expect(w.explain).toMatch(/Project \[id, scalar-subquery#\d+ \[amount\] AS m\]/);
    expect(w.explain).toMatch(/Subquery scalar-subquery#\d+ \[batch: run for each tuple of its outer values, before the operator that reads it\]\n\+- Project \[max\(weight\)\] \[batch\]\n\s+\+- Aggregate \[\], \[max\(weight\)\] \[batch\]\n\s+\+- Filter \(weight > outer\(amount\)\)/);
    await same('SELECT e.id, (SELECT count(*) FROM regions r WHERE r.region = e.region OR r.weight = e.amount) AS n FROM events e');
    await same('SELECT e.id, (SELECT count(*) FROM (SELECT region FROM regions WHERE weight > e.amount UNION ALL SELECT region FROM blocked WHERE user = e.user) u) AS n FROM events e',
      'SELECT e.id, (SELECT count(*) FROM (SELECT region FROM regions WHERE weight > e.amount UNION ALL SELECT region FROM blocked WHERE "user" = e."user") u) AS n FROM events e');
    await same('SELECT e.id, (SELECT count(*) FROM regions r JOIN blocked b ON r.region = b.region AND b.user = e.user) AS n FROM events e',
      'SELECT e.id, (SELECT count(*) FROM regions r JOIN blocked b ON r.region = b.region AND b."user" = e."user") AS n FROM events e');
    // A LEFT JOIN's ON (DuckDB's decorrelation takes an inner one only: the count of its matches is the same).
    await same('SELECT e.id, (SELECT count(b.user) FROM regions r LEFT JOIN blocked b ON r.region = b.region AND b.user = e.user) AS n FROM events e',
      'SELECT e.id, (SELECT count(*) FROM regions r JOIN blocked b ON r.region = b.region AND b."user" = e."user") AS n FROM events e');
    // Outer columns in its select list, and in WHERE of the outer query.
    await same('SELECT e.id, (SELECT e.amount + weight FROM regions r WHERE r.region = e.region AND r.weight > 3) AS n FROM events e');
    await same('SELECT e.id FROM events e WHERE e.amount > (SELECT count(*) FROM regions r WHERE r.weight < e.amount)');
    // Not aggregated: at most one row per outer row (ORDER BY … LIMIT 1), as Spark 4's single join.
    await same('SELECT e.id, (SELECT weight FROM regions r WHERE r.weight >= e.amount ORDER BY weight LIMIT 1) AS w FROM events e');
    // HAVING without GROUP BY: count(*) over no rows where HAVING keeps it, NULL where it drops the one group.
    await same('SELECT e.id, (SELECT count(*) FROM blocked b WHERE b.region = e.region HAVING count(*) < 2) AS n FROM events e');
    // Nested: the inner subquery reads the outer one's row and the stream's.
    await same('SELECT e.id, (SELECT count(*) FROM regions r WHERE r.weight > (SELECT count(*) FROM blocked b WHERE b.region = r.region AND b.user <> e.user)) AS n FROM events e',
      'SELECT e.id, (SELECT count(*) FROM regions r WHERE r.weight > (SELECT count(*) FROM blocked b WHERE b.region = r.region AND b."user" <> e."user")) AS n FROM events e');
  });

  it('a join of static tables in brackets, aliased, is a static side whose alias names its columns', async () => {
    await same('SELECT e.id, x.weight FROM events e JOIN (regions r JOIN blocked b ON r.region = b.region) x ON e.user = x.user');
  });

  it('correlated, inside a static side\'s plan: over a table or a CTE of static tables, and a CTE joined there', async () => {
    await same('SELECT e.id, x.region, x.mx FROM events e JOIN (SELECT b.user, b.region, (SELECT max(weight) FROM regions r WHERE r.region = b.region) AS mx FROM blocked b) x ON e.user = x.user');
    await same('WITH heavy AS (SELECT region, weight FROM regions WHERE weight > 2) SELECT e.id, x.n FROM events e JOIN (SELECT b.user, (SELECT count(*) FROM heavy h WHERE h.region = b.region) AS n FROM blocked b) x ON e.user = x.user');
    await same('WITH b AS (SELECT user, region FROM blocked WHERE user IS NOT NULL) SELECT e.id, x.weight FROM events e JOIN (SELECT b.user, r.weight FROM b JOIN regions r ON b.region = r.region) x ON e.user = x.user');
    await same('WITH b AS (SELECT user, region FROM blocked) SELECT e.id, x.region FROM events e JOIN (SELECT b.user, b.region FROM b WHERE 1 < (SELECT count(*) FROM regions r WHERE r.region = b.region)) x ON e.user = x.user');
  });

  it('in HAVING: Spark\'s rewrite, the subquery\'s aggregation LEFT JOINed above the streaming aggregation, the condition a Filter over it', async () => {
    const w = await same('SELECT e.region, count(*) AS n FROM events e GROUP BY e.region HAVING count(*) >= (SELECT min(weight) FROM regions r WHERE r.region = e.region) - 2', undefined, 'complete');
    expect(w.explain).toMatch(/Filter .*\n\s+\+- Join LeftOuter .*\n\s+\+- Project .*\n\s+\+- Aggregate \[region\], \[count\(\*\)\] \[stateful/);
    // The count bug, HAVING's other conjuncts kept on the aggregation, an unaliased aggregate's name.
    await same('SELECT region, sum(amount) FROM events e GROUP BY region HAVING sum(amount) > (SELECT count(*) FROM blocked b WHERE b.region = e.region) AND count(*) > 0', undefined, 'complete');
    // A select item's alias, in Update mode (every group is updated in the one batch).
    await same('SELECT region, count(*) AS n FROM events e GROUP BY region HAVING n > (SELECT count(*) FROM blocked b WHERE b.region = e.region)', undefined, 'update');
    // As a subquery, and over an expression of a grouping column.
    await same('SELECT x.region, x.n FROM (SELECT region, count(*) AS n FROM events e GROUP BY region HAVING count(*) < (SELECT count(*) FROM blocked b WHERE b.region = e.region)) x', undefined, 'complete');
    await same("SELECT region, count(*) AS n FROM events e GROUP BY region HAVING count(*) > (SELECT count(*) FROM blocked b WHERE b.region = upper(e.region)) - 1", undefined, 'complete');
  });

  it('over a FROM that is a subquery over the stream (an aggregation), named by its alias', async () => {
    await same('SELECT a.region, a.n FROM (SELECT region, count(*) AS n FROM events GROUP BY region) a WHERE a.n < (SELECT max(weight) FROM regions r WHERE r.region = a.region)', undefined, 'complete');
    await same('SELECT s.id, (SELECT count(*) FROM blocked b WHERE b.user = s.user) AS n FROM (SELECT id, user FROM events WHERE amount > 1) s');
  });

  it('in HAVING, refused where Spark refuses it: Append without a watermark, a correlation on a column not grouped', () => {
    const refusal = (sql: string, outputMode: string) => validateJob({
      name: 'x', source: { name: 'events', type: 'memory', options: { stream: 'x' }, schema: EVENTS },
      staticTables: [{ name: 'blocked', path: '/nonexistent.json', format: 'json', schema: BLOCKED }],
      sql, outputMode, sink: { type: 'memory', options: { table: 'x' } },
    }).errors.map((e) => e.message).join('\n');
    expect(refusal('SELECT region, count(*) AS n FROM events e GROUP BY region HAVING count(*) > (SELECT count(*) FROM blocked b WHERE b.region = e.region)', 'append'))
      .toContain('Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark');
    expect(refusal('SELECT region, count(*) AS n FROM events e GROUP BY region HAVING count(*) > (SELECT count(*) FROM blocked b WHERE b.user = e.user)', 'complete'))
      .toContain("expression 'user' in the select list is neither present in the group by, nor is it an aggregate function");
    // Append with a watermark on the aggregation: the finished windows are joined and filtered, as in Spark.
    const windowed = validateJob({
      name: 'x', source: { name: 'events', type: 'memory', options: { stream: 'x' }, schema: [...EVENTS, { name: 'ts', type: 'timestamp' }], eventTime: 'ts', watermarkDelay: '10 seconds' },
      staticTables: [{ name: 'blocked', path: '/nonexistent.json', format: 'json', schema: BLOCKED }],
      sql: "SELECT window, region, count(*) AS n FROM events e GROUP BY window(ts, '1 minute'), region HAVING count(*) > (SELECT count(*) FROM blocked b WHERE b.region = e.region)",
      outputMode: 'append', sink: { type: 'memory', options: { table: 'x' } },
    });
    expect(windowed.errors.filter((e) => e.path !== 'checkpointLocation')).toEqual([]);
    expect(windowed.explain).toMatch(/Join LeftOuter[^\n]*\n.*\n\s+\+- Aggregate \[window\(ts, '1 minute'\), region\]/);
  });

  it('refuses a correlated one, one of two columns, and one over the stream, saying why', () => {
    const refusal = (sql: string) => validateJob({
      name: 'x', source: { name: 'events', type: 'memory', options: { stream: 'x' }, schema: EVENTS },
      staticTables: [{ name: 'regions', path: '/nonexistent.json', format: 'json', schema: REGIONS }],
      sql, sink: { type: 'memory', options: { table: 'x' } }, trigger: { type: 'available-now' }, checkpointLocation: '/tmp/weir-static-batch-plan-x',
    }).errors.map((e) => e.message).join('\n');
    // An aggregation of an outer column (Spark's CheckAnalysis), an inline table of one.
    expect(refusal('SELECT e.id, (SELECT sum(e.amount) AS d FROM regions) AS m FROM events e')).toContain('[UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.CORRELATED_REFERENCE] Unsupported subquery expression: Expressions referencing the outer query are not supported outside of WHERE/HAVING clauses: "sum(amount) AS d"');
    expect(refusal('SELECT e.id, (SELECT e.amount + count(*) FROM regions r WHERE r.region = e.region) AS m FROM events e')).toContain('[UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.CORRELATED_REFERENCE]');
    expect(refusal('SELECT e.id, (SELECT max(v) FROM VALUES (e.amount), (1) AS t(v)) AS m FROM events e')).toContain('INVALID_INLINE_TABLE.CANNOT_EVALUATE_EXPRESSION_IN_INLINE_TABLE');
    // Below the side a LEFT JOIN pads with NULLs; in its ON it runs.
    expect(refusal('SELECT e.id, (SELECT count(*) FROM regions r LEFT JOIN (SELECT * FROM regions x WHERE x.weight = e.amount) s ON r.region = s.region) AS m FROM events e')).toContain('ACCESSING_OUTER_QUERY_COLUMN_IS_NOT_ALLOWED');

    expect(refusal('SELECT e.id, (SELECT max(weight), min(weight) FROM regions) AS m FROM events e')).toContain('[INVALID_SUBQUERY_EXPRESSION.SCALAR_SUBQUERY_RETURN_MORE_THAN_ONE_OUTPUT_COLUMN]');
    expect(refusal('SELECT e.id, (SELECT max(amount) FROM events) AS m FROM events e')).toContain('A scalar subquery over a stream is not supported yet');
  });
});
