/**
 * IN subqueries answered over the subquery's rows (in-subquery-rows.ts) through the streaming
 * engine's operators, one batch: IN's three values (TRUE, NULL where a comparison is unknown,
 * FALSE, none over no rows) for a correlated query with a LIMIT, and one in a join's ON.
 */
import { describe, expect, it } from 'vitest';
import { eventsQuery } from './testing/events-query';

const { run } = eventsQuery([{ name: 'id', type: 'long' }, { name: 'k', type: 'long' }]);
const ROWS = [{ id: 1, k: 1 }, { id: 2, k: 2 }, { id: 3, k: 3 }, { id: 4, k: null }];
const VALUES = 'VALUES (1), (2), (NULL), (3) AS t(v)';

describe('IN over the subquery\'s rows', () => {
  it('correlated with ORDER BY … LIMIT: the rows the outer row\'s LIMIT keeps, NULL where one is unknown', async () => {
    // Each row's values below k, the two greatest (NULLs last): k=1 none, k=2 [1], k=3 [2, 1].
    const sub = `(SELECT v FROM ${VALUES} WHERE v < e.k ORDER BY v DESC NULLS LAST LIMIT 2)`;
    expect(await run(`SELECT e.id, e.k - 1 IN ${sub} AS hit, e.k - 1 NOT IN ${sub} AS miss FROM events e`, ROWS))
      .toEqual([{ id: 1, hit: false, miss: true }, { id: 2, hit: true, miss: false }, { id: 3, hit: true, miss: false }, { id: 4, hit: false, miss: true }]);
    // A NULL among the rows: not found is unknown.
    const withNull = `(SELECT v FROM ${VALUES} WHERE v IS NULL OR v > e.k LIMIT 3)`;
    expect(await run(`SELECT e.id, 9 IN ${withNull} AS hit FROM events e`, ROWS)).toEqual([{ id: 1, hit: null }, { id: 2, hit: null }, { id: 3, hit: null }, { id: 4, hit: null }]);
    expect(await run(`SELECT e.id FROM events e WHERE e.k + 1 NOT IN (SELECT v FROM ${VALUES} WHERE v > e.k LIMIT 1)`, ROWS)).toEqual([{ id: 3 }, { id: 4 }]);
  });

  it('in the ON of an outer join of the stream with an inline table', async () => {
    const notIn = (where: string) => run(`SELECT e.id, u.w FROM events e LEFT JOIN VALUES (1), (2) AS u(w) ON e.k = u.w AND e.k NOT IN (SELECT v FROM ${VALUES} WHERE ${where})`, ROWS);
    // k=2 is among the values, k=1 is not: its pair is kept.
    expect(await notIn('v > 1')).toEqual([{ id: 1, w: 1 }, { id: 2, w: null }, { id: 3, w: null }, { id: 4, w: null }]);
    // A NULL among them makes NOT IN unknown for every k: no pair.
    expect(await notIn('v > 1 OR v IS NULL')).toEqual([{ id: 1, w: null }, { id: 2, w: null }, { id: 3, w: null }, { id: 4, w: null }]);
    expect(await run('SELECT e.id, u.w FROM events e LEFT JOIN VALUES (1), (2) AS u(w) ON e.k = u.w AND e.k IN (SELECT v FROM VALUES (1), (3) AS t(v))', ROWS))
      .toEqual([{ id: 1, w: 1 }, { id: 2, w: null }, { id: 3, w: null }, { id: 4, w: null }]);
  });

  it('a value of a relation the subquery reads again by the same name is the outer row\'s', async () => {
    const t = 'WITH t AS (SELECT * FROM VALUES (1, 2), (2, NULL), (3, 9) AS v(a, b)) ';
    // 2 is among t's a, NULL is unknown, 9 is not: aliased or not, the value is the outer row's
    // (read inside the count IN was written as, unaliased `t.b` was the subquery's own row's b).
    const expected = [{ id: 1, hit: true }, { id: 2, hit: null }, { id: 3, hit: false }];
    expect(await run(`${t}SELECT e.id, t1.b IN (SELECT a FROM t) AS hit FROM events e JOIN t t1 ON e.k = t1.a`, ROWS)).toEqual(expected);
    for (const value of ['t.b', 'b']) {
      expect(await run(`${t}SELECT e.id, ${value} IN (SELECT a FROM t) AS hit FROM events e JOIN t ON e.k = t.a`, ROWS)).toEqual(expected);
      expect(await run(`${t}SELECT e.id, ${value} IN (SELECT t.a FROM t WHERE t.a > 0) AS hit FROM events e JOIN t ON e.k = t.a`, ROWS)).toEqual(expected);
    }
  });

  it('a select list that aggregates or reads a lateral column alias: compared as its rows, not as a condition on FROM\'s', async () => {
    // max(v + 10) over the values is 13, the one row (13, 14).
    expect(await run(`SELECT e.id, (e.k + 10, e.k + 11) IN (SELECT max(v + 10) AS m, m + 1 FROM ${VALUES}) AS hit FROM events e`, ROWS))
      .toEqual([{ id: 1, hit: false }, { id: 2, hit: false }, { id: 3, hit: true }, { id: 4, hit: null }]);
    expect(await run(`SELECT e.id FROM events e WHERE (13, e.k + 11) IN (SELECT max(v + 10), 14 FROM ${VALUES})`, ROWS)).toEqual([{ id: 3 }]);
    // `w + 1` reads the item before it: rows (1, 2), (2, 3), (NULL, NULL), (3, 4).
    expect(await run(`SELECT e.id, (e.k, e.k + 1) IN (SELECT v AS w, w + 1 FROM ${VALUES}) AS hit FROM events e`, ROWS))
      .toEqual([{ id: 1, hit: true }, { id: 2, hit: true }, { id: 3, hit: true }, { id: 4, hit: null }]);
  });

  it('EXISTS over a set operation whose branches read the outer row: refused as Spark refuses it', async () => {
    const sql = 'SELECT e.id FROM events e WHERE EXISTS (SELECT v FROM VALUES (1) AS t(v) WHERE v = e.k UNION SELECT v FROM VALUES (2) AS u(v) WHERE v = e.k)';
    await expect(run(sql, ROWS)).rejects.toMatchObject({ errorClass: 'UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.ACCESSING_OUTER_QUERY_COLUMN_IS_NOT_ALLOWED' });
    // Read around it, it runs.
    expect(await run('SELECT e.id FROM events e WHERE EXISTS (SELECT * FROM (SELECT v FROM VALUES (1) AS t(v) UNION SELECT v FROM VALUES (2) AS u(v)) s WHERE s.v = e.k)', ROWS)).toEqual([{ id: 1 }, { id: 2 }]);
  });
});
