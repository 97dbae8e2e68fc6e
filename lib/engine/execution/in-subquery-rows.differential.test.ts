/**
 * IN subqueries of the shapes Weir answers over the subquery's rows (query/in-subquery-rows.ts)
 * beside a stream, checked against DuckDB running the same SQL over the same rows: a correlated
 * IN whose query has a LIMIT, a join or a set operation in FROM, a correlated `(a, b)` IN, and an
 * IN in a stream-static outer join's ON. NULLs on both sides (an event and a region of NULL
 * region) test the three-valued answer.
 */
import { describe, expect, it } from 'vitest';
import { staticJoinDifferential } from './testing/static-join-differential';

const { same } = staticJoinDifferential('in-rows');

describe('correlated IN over the subquery\'s rows (Spark\'s DecorrelateInnerQuery)', () => {
  it('with ORDER BY … LIMIT: each outer row\'s top rows, IN and NOT IN', async () => {
    const w = await same('SELECT e.id FROM events e WHERE e.region IN (SELECT region FROM regions r WHERE r.weight >= e.amount ORDER BY weight LIMIT 1)');
    expect(w.explain).toMatch(/run for each tuple of its outer values/);
    await same('SELECT e.id FROM events e WHERE e.region NOT IN (SELECT region FROM regions r WHERE r.weight >= e.amount ORDER BY weight LIMIT 1)');
    await same('SELECT e.id FROM events e WHERE e.region NOT IN (SELECT region FROM regions r WHERE r.weight < e.amount ORDER BY weight DESC, region LIMIT 2)');
    // In the select list: TRUE, FALSE or NULL.
    await same('SELECT e.id, e.region IN (SELECT region FROM regions r WHERE r.weight > e.amount ORDER BY weight LIMIT 1) AS hit FROM events e');
  });

  it('whose FROM is a join or a set operation', async () => {
    await same('SELECT e.id FROM events e WHERE e.region IN (SELECT r.region FROM regions r JOIN blocked b ON r.region = b.region WHERE b.user = e.user)',
      'SELECT e.id FROM events e WHERE e.region IN (SELECT r.region FROM regions r JOIN blocked b ON r.region = b.region WHERE b."user" = e."user")');
    await same('SELECT e.id FROM events e WHERE e.region NOT IN (SELECT u.region FROM (SELECT region FROM regions UNION SELECT region FROM blocked) u WHERE u.region <> e.user)',
      'SELECT e.id FROM events e WHERE e.region NOT IN (SELECT u.region FROM (SELECT region FROM regions UNION SELECT region FROM blocked) u WHERE u.region <> e."user")');
  });

  it('of two values (DuckDB\'s text the EXISTS each keeps a row by: NOT IN is TRUE where no row\'s comparison is TRUE or NULL)', async () => {
    const rows = 'SELECT region, "user" FROM blocked b WHERE b."user" = e."user" LIMIT 5';
    await same('SELECT e.id FROM events e WHERE (e.region, e.user) IN (SELECT region, user FROM blocked b WHERE b.user = e.user LIMIT 5)',
      `SELECT e.id FROM events e WHERE EXISTS (SELECT 1 FROM (${rows}) q WHERE q.region = e.region AND q."user" = e."user")`);
    await same('SELECT e.id FROM events e WHERE (e.region, e.user) NOT IN (SELECT region, user FROM blocked b WHERE b.user = e.user LIMIT 5)',
      `SELECT e.id FROM events e WHERE NOT EXISTS (SELECT 1 FROM (${rows}) q WHERE (q.region = e.region AND q."user" = e."user") IS NOT FALSE)`);
  });
});

describe('an IN subquery in a stream-static outer join\'s ON (Spark\'s ExistenceJoin)', () => {
  it('LEFT JOIN … ON … AND x [NOT] IN (…): a pair it does not hold for pads the stream row', async () => {
    // DuckDB takes no subquery in an outer join's ON: its text computes the IN on the side it reads first.
    await same('SELECT e.id, r.weight FROM events e LEFT JOIN regions r ON e.region = r.region AND e.user IN (SELECT user FROM blocked)',
      'WITH f AS (SELECT e.*, e."user" IN (SELECT "user" FROM blocked) AS hit FROM events e) SELECT f.id, r.weight FROM f LEFT JOIN regions r ON f.region = r.region AND f.hit');
    await same('SELECT e.id, r.weight FROM events e LEFT JOIN regions r ON e.region = r.region AND e.user NOT IN (SELECT user FROM blocked WHERE region = \'us\')',
      'WITH f AS (SELECT e.*, e."user" NOT IN (SELECT "user" FROM blocked WHERE region = \'us\') AS hit FROM events e) SELECT f.id, r.weight FROM f LEFT JOIN regions r ON f.region = r.region AND f.hit');
    // Inside a conjunct: NULL where the value is NULL or the subquery holds a NULL.
    await same('SELECT e.id, r.weight FROM events e LEFT JOIN regions r ON e.region = r.region AND (r.weight IN (SELECT weight FROM regions WHERE region = \'eu\' OR region IS NULL)) IS NULL',
      'WITH g AS (SELECT r.*, (r.weight IN (SELECT weight FROM regions WHERE region = \'eu\' OR region IS NULL)) IS NULL AS u FROM regions r) SELECT e.id, g.weight FROM events e LEFT JOIN g ON e.region = g.region AND g.u');
  });
});

describe('an uncorrelated EXISTS subquery in GROUP BY (Spark groups by its existence join\'s column)', () => {
  it('groups by the count that decides it, which a select item of the same text reads', async () => {
    await same('SELECT e.id, d.w, d.n FROM events e JOIN (SELECT weight > 1 AS w, count(*) AS n FROM regions GROUP BY weight > 1, EXISTS (SELECT 1 FROM blocked WHERE region = \'r9\')) d ON e.id > 0');
    await same('SELECT e.id, d.k, d.n FROM events e JOIN (SELECT EXISTS (SELECT 1 FROM blocked WHERE user = \'u1\') AS k, count(*) AS n FROM regions GROUP BY EXISTS (SELECT 1 FROM blocked WHERE user = \'u1\')) d ON e.id > 0',
      'SELECT e.id, d.k, d.n FROM events e JOIN (SELECT EXISTS (SELECT 1 FROM blocked WHERE "user" = \'u1\') AS k, count(*) AS n FROM regions GROUP BY EXISTS (SELECT 1 FROM blocked WHERE "user" = \'u1\')) d ON e.id > 0');
  });
});
