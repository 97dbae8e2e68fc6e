/**
 * A stream joined with several static tables, as a star schema's dimension tables are (Spark's
 * stream-static join takes any streaming plan on its stream side: another stream-static join, a
 * subquery or CTE over the stream), and several predicate subqueries in one WHERE, each its own
 * semi or anti join. Checked against DuckDB running the same SQL over the same rows.
 */
import { describe, expect, it } from 'vitest';
import { validateJob } from '../spec/validate-job';
import { EVENTS, REGIONS, BLOCKED, staticJoinDifferential } from './testing/static-join-differential';

const { same, weir } = staticJoinDifferential('chain');

const errorsOf = (sql: string) => validateJob({
  name: 'x', source: { name: 'events', type: 'memory', options: { stream: 'x' }, schema: EVENTS },
  staticTables: [{ name: 'regions', path: '/nonexistent.json', format: 'json', schema: REGIONS }, { name: 'blocked', path: '/nonexistent.json', format: 'json', schema: BLOCKED }],
  sql, sink: { type: 'memory', options: { table: 'x' } },
}).errors.map((e) => e.message).join('\n');

describe('a stream joined with several static tables', () => {
  it('two dimension tables, inner then left, each on its own key', async () => {
    const w = await same('SELECT e.id, r.weight, b.region AS blocked_in FROM events e JOIN regions r ON e.region = r.region LEFT JOIN blocked b ON e.user = b.user');
    expect(w.explain).toMatch(/Join LeftOuter[\s\S]*Join Inner/);
  });

  it('the second table keyed by a column of the first (a snowflake), and an ON condition across both tables', async () => {
    await same('SELECT e.id, b.user AS who FROM events e JOIN regions r ON e.region = r.region JOIN blocked b ON r.region = b.region AND r.weight > 2');
    await same('SELECT e.id, r.weight, b.user AS who FROM events e LEFT JOIN regions r ON e.region = r.region LEFT JOIN blocked b ON r.region = b.region');
  });

  it('one table twice: each alias reads its own columns, a shared name kept per alias', async () => {
    const w = await same('SELECT e.id, r1.weight AS w1, r2.weight AS w2 FROM events e JOIN regions r1 ON e.region = r1.region JOIN regions r2 ON e.region = r2.region AND r2.weight > r1.weight');
    expect(w.schema.map((f) => f.name)).toEqual(['id', 'w1', 'w2']);
  });

  it('a static column named like a stream column: both read, qualified', async () => {
    await same('SELECT e.id, e.region, b.region AS b_region FROM events e JOIN blocked b ON e.user = b.user');
    expect(errorsOf('SELECT e.id, region FROM events e JOIN blocked b ON e.user = b.user')).toContain('Reference `region` is ambiguous, could be: [`e`.`region`, `b`.`region`]');
  });

  it('a subquery or CTE over the stream on the stream side', async () => {
    await same('SELECT x.id, r.weight FROM (SELECT id, region FROM events WHERE amount > 1) x JOIN regions r ON x.region = r.region');
    await same('WITH x AS (SELECT id, region, amount * 2 AS a2 FROM events) SELECT x.id, x.a2, r.weight FROM x LEFT JOIN regions r ON x.region = r.region');
    await same('SELECT x.id, b.user AS who FROM (SELECT e.id, e.region, r.weight FROM events e JOIN regions r ON e.region = r.region) x JOIN blocked b ON x.region = b.region');
  });

  it('an aggregation grouped by a shared name of each alias', async () => {
    await same('SELECT r2.region, r1.weight, count(*) AS n FROM events e JOIN regions r1 ON e.region = r1.region JOIN regions r2 ON e.region = r2.region GROUP BY r2.region, r1.weight', undefined, 'complete');
    await same('SELECT b.region, e.region AS er, count(*) AS n FROM events e JOIN blocked b ON e.user = b.user GROUP BY b.region, e.region ORDER BY b.region', undefined, 'complete');
  });

  it('an aggregation over the chain', async () => {
    await same('SELECT r.region, count(*) AS n, sum(e.amount) AS total FROM events e JOIN regions r ON e.region = r.region JOIN blocked b ON e.region = b.region GROUP BY r.region', undefined, 'complete');
  });
});

describe('static tables joined before the stream (Spark\'s batch join, a static relation the stream joins)', () => {
  it('at the top of FROM: inner or left between the tables, the stream joined on a column of either', async () => {
    const w = await same('SELECT e.id, r.weight, b.user AS who FROM regions r JOIN blocked b ON r.region = b.region JOIN events e ON e.region = r.region');
    expect(w.explain).toContain('StaticRelation regions r JOIN blocked b [weight, b.user] [static: the batch plan below');
    expect(w.explain).toContain('+- Join Inner (region = b.region) [batch]');
    await same('SELECT e.id, r.weight, b.user AS who FROM regions r LEFT JOIN blocked b ON r.region = b.region JOIN events e ON e.user = b.user');
    await same('SELECT e.id, r.region, b.region AS br, e.amount FROM regions r JOIN blocked b ON r.region = b.region JOIN events e ON e.user = b.user AND e.amount > r.weight');
  });

  it('the stream preserved by a RIGHT join, or the tables\' join in brackets on the right of a LEFT join', async () => {
    await same('SELECT e.id, r.weight, b.user AS who FROM regions r JOIN blocked b ON r.region = b.region RIGHT JOIN events e ON e.region = r.region');
    await same('SELECT e.id, r.weight, b.user AS who FROM events e LEFT JOIN (regions r JOIN blocked b ON r.region = b.region) ON e.region = r.region');
  });

  it('three tables, one of them twice, and an aggregation over the join with the stream', async () => {
    await same('SELECT e.id, r.weight, r2.weight AS w2 FROM regions r JOIN blocked b ON r.region = b.region JOIN regions r2 ON b.region = r2.region JOIN events e ON e.user = b.user');
    await same('SELECT b.region, count(*) AS n, sum(e.amount) AS total FROM regions r JOIN blocked b ON r.region = b.region JOIN events e ON e.user = b.user GROUP BY b.region', undefined, 'complete');
    // A RIGHT or FULL join of a join of two tables with a third: each table's name still reads its columns.
    await same('SELECT e.id, r2.weight AS w2, b.user AS who FROM regions r JOIN blocked b ON r.region = b.region RIGHT JOIN regions r2 ON b.region = r2.region JOIN events e ON e.region = r2.region');
    await same('SELECT e.id, x.w2, x.who FROM events e JOIN (SELECT r.region, b.user AS who, r2.weight AS w2 FROM regions r JOIN blocked b ON r.region = b.region FULL JOIN regions r2 ON b.region = r2.region) x ON e.region = x.region');
  });

  it('with the stream on the right of a LEFT join, refused as Spark refuses it', () => {
    expect(errorsOf('SELECT e.id FROM regions r JOIN blocked b ON r.region = b.region LEFT JOIN events e ON e.region = r.region')).toContain(
      'LeftOuter join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported');
  });
});

describe('tables joined by commas, the conditions in WHERE', () => {
  it('each conjunct joins the lowest join that has its tables, as Spark pushes it', async () => {
    await same('SELECT e.id, r.weight FROM events e, regions r WHERE e.region = r.region');
    await same('SELECT e.id, r.weight, b.user AS who FROM events e, regions r, blocked b WHERE e.region = r.region AND r.region = b.region AND e.amount > 1 AND r.weight > 2');
    await same('SELECT e.id FROM events e CROSS JOIN regions r WHERE e.region = r.region AND 1 = 1');
  });
});

describe('several predicate subqueries in one WHERE', () => {
  it('IN and NOT IN, each a join of its own', async () => {
    const w = await same('SELECT e.id FROM events e WHERE e.region IN (SELECT region FROM regions WHERE weight > 2) AND e.user NOT IN (SELECT user FROM blocked WHERE region = \'us\' AND user <> \'bob\')');
    expect(w.explain).toMatch(/Join LeftAnti[\s\S]*Join LeftSemi/);
  });

  it('EXISTS and NOT EXISTS beside a plain condition', async () => {
    await same('SELECT e.id FROM events e WHERE EXISTS (SELECT 1 FROM regions r WHERE r.region = e.region) AND e.amount > 1 AND NOT EXISTS (SELECT 1 FROM blocked b WHERE b.user = e.user AND b.region = e.region)');
  });
});

describe('predicate subqueries over a join or a subquery of the stream', () => {
  it('[NOT] EXISTS over the stream joined with a table, the subquery over that table again', async () => {
    // `weight` is the joined table's and the subquery's: each alias reads its own.
    const w = await same('SELECT e.id, r.weight FROM events e JOIN regions r ON e.region = r.region WHERE EXISTS (SELECT 1 FROM regions x WHERE x.region = e.region AND x.weight > r.weight)');
    expect(w.explain).toMatch(/Join LeftSemi[\s\S]*Join Inner/);
    await same('SELECT e.id, r.weight FROM events e LEFT JOIN regions r ON e.region = r.region WHERE NOT EXISTS (SELECT 1 FROM regions x WHERE x.region = e.region AND weight > 4) AND e.amount > 1');
    await same('SELECT e.id, b.region FROM events e JOIN blocked b ON e.user = b.user WHERE EXISTS (SELECT 1 FROM blocked WHERE blocked.region = b.region AND blocked.user <> e.user)');
  });

  it('[NOT] IN over the stream joined with a table: a column of either side', async () => {
    await same('SELECT e.id, r.weight FROM events e JOIN regions r ON e.region = r.region WHERE weight IN (SELECT weight FROM regions WHERE region = \'eu\')');
    await same('SELECT e.id, r.weight FROM events e LEFT JOIN regions r ON e.region = r.region WHERE r.weight NOT IN (SELECT weight FROM regions WHERE region = \'eu\')');
    await same('SELECT e.id, r.weight FROM events e JOIN regions r ON e.region = r.region WHERE e.user IN (SELECT user FROM blocked) AND e.user NOT IN (SELECT user FROM blocked WHERE region = \'us\' AND user IS NOT NULL)');
  });

  it('[NOT] EXISTS and IN over a subquery of the stream', async () => {
    await same('SELECT s.id FROM (SELECT id, region, user FROM events WHERE amount > 1) s WHERE EXISTS (SELECT 1 FROM blocked b WHERE b.user = s.user) AND s.region NOT IN (SELECT region FROM regions WHERE region IS NOT NULL AND weight < 3)');
  });
});

describe('a same-named key of a LEFT join', () => {
  it('reads NULL on the static side where no row matched, as Spark', async () => {
    await same('SELECT e.id, e.region AS er, r.region AS rr, r.weight FROM events e LEFT JOIN regions r ON e.region = r.region');
    await same('SELECT e.id, region, r.region AS rr FROM events e LEFT JOIN regions r USING (region)', 'SELECT e.id, e.region AS region, r.region AS rr FROM events e LEFT JOIN regions r ON e.region = r.region');
  });

  it('e.* is the stream\'s columns and r.* the table\'s, as in Spark', async () => {
    const w = await same('SELECT e.*, r.weight FROM events e LEFT JOIN regions r ON e.region = r.region');
    expect(w.schema.map((f) => f.name)).toEqual(['id', 'region', 'amount', 'user', 'weight']);
    await same('SELECT e.id, b.* FROM events e JOIN blocked b ON e.user = b.user');
  });

  it('is in `*` twice, as Spark\'s join outputs both sides\' columns: the memory sink, which holds a column by its name, refuses it', async () => {
    await expect(weir('SELECT * FROM events e LEFT JOIN regions r ON e.region = r.region')).rejects.toThrow(/COLUMN_ALREADY_EXISTS.*`region` already exists/);
    const w = await weir('SELECT e.*, r.region AS rr, r.weight, r.tags FROM events e LEFT JOIN regions r ON e.region = r.region');
    expect(w.rows.filter((r) => JSON.parse(r).id === 5)).toEqual(['{"id":5,"region":"mars","amount":3,"user":"dan","rr":null,"weight":null,"tags":null}']);
  });
});

describe('a join without an equality of the two sides (a nested loop join, as Spark plans one)', () => {
  it('CROSS JOIN, and a comma join with no condition between the two', async () => {
    await same('SELECT e.id, r.region AS rr, r.weight FROM events e CROSS JOIN regions r');
    await same('SELECT e.id, r.weight FROM events e, regions r WHERE e.amount > 1');
  });

  it('a range condition, inner and left outer: each stream row meets the rows the condition takes', async () => {
    await same('SELECT e.id, r.region AS rr FROM events e JOIN regions r ON e.amount > r.weight');
    await same('SELECT e.id, r.region AS rr, r.weight FROM events e LEFT JOIN regions r ON e.amount BETWEEN r.weight AND r.weight + 2');
    await same('SELECT e.id, r.weight FROM events e LEFT JOIN regions r ON e.amount < r.weight AND e.region <> r.region');
  });

  it('beside an aggregation over the joined rows', async () => {
    await same('SELECT r.region AS rr, count(*) AS n FROM events e JOIN regions r ON e.amount >= r.weight GROUP BY r.region', undefined, 'complete');
  });
});
