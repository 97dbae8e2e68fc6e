/**
 * LATERAL subqueries (parser/lateral-subquery.ts) through the streaming engine's operators, one
 * batch at a time: each stream row joined with the subquery's rows for its values, the plan run
 * once per distinct tuple of them in a batch.
 */
import { describe, expect, it } from 'vitest';
import type { StaticTableSpec } from '../operators/stream-static-join';
import type { Row } from '../types';
import { writtenColumnName } from './column-names';
import { compileStreamingQuery } from './streaming-query';
import { eventsQuery } from './testing/events-query';
import { selectStatic } from './testing/spark-printed';

const SCHEMA = [{ name: 'id', type: 'long' as const }, { name: 'k', type: 'long' as const }];

describe('LATERAL subqueries over a stream', () => {
  const { run } = eventsQuery(SCHEMA);
  const ROWS = [{ id: 1, k: 2 }, { id: 2, k: 0 }, { id: 3, k: null }];

  it('FROM e, LATERAL (…): each row with the subquery\'s rows for its values; none drops it', async () => {
    expect(await run('SELECT e.id, t.v FROM events e, LATERAL (SELECT v FROM VALUES (1), (2), (3) AS t(v) WHERE v <= e.k) t', ROWS))
      .toEqual([{ id: 1, v: 1 }, { id: 1, v: 2 }]);
    // Unaliased, its columns read unqualified; an outer column in its select list.
    expect(await run('SELECT id, w FROM events e JOIN LATERAL (SELECT v + e.k AS w FROM VALUES (10), (20) AS t(v))', ROWS))
      .toEqual([{ id: 1, w: 12 }, { id: 1, w: 22 }, { id: 2, w: 10 }, { id: 2, w: 20 }, { id: 3, w: null }, { id: 3, w: null }]);
    // Without FROM: one row of the outer row's values.
    expect(await run('SELECT e.id, t.n FROM events e, LATERAL (SELECT e.k + 1 AS n) t', ROWS)).toEqual([{ id: 1, n: 3 }, { id: 2, n: 1 }, { id: 3, n: null }]);
  });

  it('a star of the relation before it expands into outer references (LATERAL (SELECT e.*), greatest(e.*))', async () => {
    expect(await run('SELECT t.* FROM events e, LATERAL (SELECT e.*) AS t(a, b)', ROWS)).toEqual([{ a: 1, b: 2 }, { a: 2, b: 0 }, { a: 3, b: null }]);
    expect(await run('SELECT e.id, t.m FROM events e, LATERAL (SELECT greatest(e.*) AS m) t', ROWS)).toEqual([{ id: 1, m: 2 }, { id: 2, m: 2 }, { id: 3, m: 3 }]);
    // Unaliased, its columns repeat the outer row's names, as Spark's output does.
    const q = compileStreamingQuery('SELECT * FROM events e, LATERAL (SELECT e.*)', { kind: 'StreamingRelation', sourceName: 'events', schema: SCHEMA });
    expect(q.outputSchema.map((f) => writtenColumnName(f.name))).toEqual(['id', 'k', 'id', 'k']);
    expect((await run('SELECT * FROM events e, LATERAL (SELECT e.*)', ROWS)).map((r) => Object.values(r))).toEqual([[1, 2, 1, 2], [2, 0, 2, 0], [3, null, 3, null]]);
  });

  it('a star reaches the query right around the subquery only, as Spark\'s outer plan', () => {
    const sql = 'SELECT * FROM events e, LATERAL (SELECT * FROM VALUES (1) AS v(x), LATERAL (SELECT e.*))';
    expect(() => compileStreamingQuery(sql, { kind: 'StreamingRelation', sourceName: 'events', schema: SCHEMA })).toThrow(/Cannot resolve `e`\.\*/);
  });

  it('a LATERAL subquery reads the query right around it only, as does a subquery inside one (Spark\'s UNRESOLVED_COLUMN)', async () => {
    const compile = (sql: string) => () => compileStreamingQuery(sql, { kind: 'StreamingRelation', sourceName: 'events', schema: SCHEMA });
    // A LATERAL in a LATERAL, a scalar subquery in one, one in a scalar subquery: each reads `e` two queries out.
    expect(compile('SELECT * FROM events e, LATERAL (SELECT * FROM VALUES (1) AS v(x), LATERAL (SELECT e.k + x))')).toThrow(/`e` cannot be resolved/);
    expect(compile('SELECT * FROM events e, LATERAL (SELECT e.k AS a, (SELECT max(x) FROM VALUES (1) AS v(x) WHERE x = e.id) AS b)')).toThrow(/`e` cannot be resolved/);
    const t1 = 'VALUES (0, 1), (1, 2) AS t1(c1, c2)';
    await expect(selectStatic(`SELECT (SELECT max(s.x) FROM VALUES (5) AS t2(c1), LATERAL (SELECT t1.c1 AS x) s) AS m FROM ${t1}`, [])).rejects.toThrow(/cannot be resolved/);
    await expect(selectStatic(`SELECT * FROM ${t1}, LATERAL (SELECT * FROM (SELECT c1), LATERAL (SELECT c2))`, [])).rejects.toThrow(/cannot be resolved/);
    // The query right around each reads its own.
    expect(await run('SELECT id, y FROM events e, LATERAL (SELECT * FROM VALUES (1) AS v(x), LATERAL (SELECT x + 1 AS y)) WHERE e.k IS NOT NULL', ROWS)).toEqual([{ id: 1, y: 2 }, { id: 2, y: 2 }]);
    expect((await selectStatic(`SELECT c1, m FROM ${t1}, LATERAL (SELECT (SELECT max(x) FROM VALUES (0), (1) AS v(x) WHERE x <= y) AS m FROM VALUES (0), (1) AS w(y) WHERE y = c1)`, [])).rows).toEqual([{ c1: 0, m: 0 }, { c1: 1, m: 1 }]);
  });

  it('LATERAL subqueries in a row each read the relations and LATERAL columns before them', async () => {
    expect(await run('SELECT id, a, b, c FROM events e, LATERAL (SELECT e.id + e.k AS a), LATERAL (SELECT e.id - e.k AS b), LATERAL (SELECT a * b AS c)', ROWS.slice(0, 2)))
      .toEqual([{ id: 1, a: 3, b: -1, c: -3 }, { id: 2, a: 2, b: 2, c: 4 }]);
  });

  it('LATERAL before FROM\'s first relation is its subquery, as Spark\'s visitFromClause has it', async () => {
    expect((await selectStatic('SELECT * FROM LATERAL (SELECT * FROM VALUES (1), (2) AS v(x))', [])).rows).toEqual([{ x: 1 }, { x: 2 }]);
    expect((await selectStatic('SELECT * FROM LATERAL (SELECT 1 AS x) JOIN LATERAL (SELECT x + 1 AS y)', [])).rows).toEqual([{ x: 1, y: 2 }]);
  });

  it('a nondeterministic subquery beside relations of one row runs; beside more (a stream) it is refused', async () => {
    expect((await selectStatic('SELECT x, y >= 0 AS ok FROM VALUES (0) t(x) JOIN LATERAL (SELECT x + rand(0) AS y)', [])).rows).toEqual([{ x: 0, ok: true }]);
    expect((await selectStatic('SELECT s FROM (SELECT sum(v) AS s FROM VALUES (1), (2) AS t(v)), LATERAL (SELECT rand(0) AS r)', [])).rows).toEqual([{ s: 3 }]);
    expect(() => compileStreamingQuery('SELECT * FROM events e, LATERAL (SELECT rand(0) AS r)', { kind: 'StreamingRelation', sourceName: 'events', schema: SCHEMA }))
      .toThrow(/NON_DETERMINISTIC_LATERAL_SUBQUERIES/);
    await expect(selectStatic('SELECT * FROM VALUES (1), (2) AS t(v), LATERAL (SELECT rand(0) AS r)', [])).rejects.toThrow(/NON_DETERMINISTIC_LATERAL_SUBQUERIES/);
  });

  it('refuses a nondeterministic ON (LATERAL_JOIN_CONDITION_NON_DETERMINISTIC)', () => {
    const sql = 'SELECT * FROM events e JOIN LATERAL (SELECT v FROM VALUES (1) AS t(v)) s ON e.id + rand(0) = s.v';
    let error: unknown;
    try {
      compileStreamingQuery(sql, { kind: 'StreamingRelation', sourceName: 'events', schema: SCHEMA });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ errorClass: 'UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.LATERAL_JOIN_CONDITION_NON_DETERMINISTIC' });
  });

  it('JOIN LATERAL … ON keeps the pairs ON holds for; LEFT JOIN LATERAL pads the rows left with none', async () => {
    const sub = '(SELECT v FROM VALUES (1), (2), (3) AS t(v) WHERE v <= e.k + 1) t';
    expect(await run(`SELECT e.id, t.v FROM events e JOIN LATERAL ${sub} ON t.v > 1`, ROWS)).toEqual([{ id: 1, v: 2 }, { id: 1, v: 3 }]);
    expect(await run(`SELECT e.id, t.v FROM events e LEFT JOIN LATERAL ${sub} ON t.v > 1`, ROWS))
      .toEqual([{ id: 1, v: 2 }, { id: 1, v: 3 }, { id: 2, v: null }, { id: 3, v: null }]);
    // An aggregate per row: one row each (count over no rows is 0).
    expect(await run('SELECT e.id, c.n FROM events e, LATERAL (SELECT count(*) AS n FROM VALUES (1), (2), (3) AS t(v) WHERE v <= e.k) c', ROWS))
      .toEqual([{ id: 1, n: 2 }, { id: 2, n: 0 }, { id: 3, n: 0 }]);
  });

  it('a join after it joins its rows as any relation\'s: the subquery reads only the relations before it (Spark\'s LateralJoin)', async () => {
    const w = 'VALUES (1, \'one\'), (3, \'three\') AS w(v, name)';
    expect(await run(`SELECT e.id, s.v, w.name FROM events e JOIN LATERAL (SELECT e.k + 1 AS v) s JOIN ${w} ON s.v = w.v`, ROWS)).toEqual([{ id: 1, v: 3, name: 'three' }, { id: 2, v: 1, name: 'one' }]);
    expect(await run(`SELECT e.id, s.v, w.name FROM events e, LATERAL (SELECT e.k + 1 AS v) s, ${w} WHERE s.v = w.v`, ROWS)).toEqual([{ id: 1, v: 3, name: 'three' }, { id: 2, v: 1, name: 'one' }]);
    expect(await run(`SELECT e.id, s.v, w.name FROM events e LEFT JOIN LATERAL (SELECT v FROM VALUES (1), (2) AS t(v) WHERE v > e.k) s LEFT JOIN ${w} ON s.v = w.v`, ROWS))
      .toEqual([{ id: 1, v: null, name: null }, { id: 2, v: 1, name: 'one' }, { id: 2, v: 2, name: null }, { id: 3, v: null, name: null }]);
    // Of static data alone, a batch (join-lateral.sql's answers).
    const t1 = 'WITH t1(c1, c2) AS (VALUES (0, 1), (1, 2)), t2(c1, c2) AS (VALUES (0, 2), (0, 3)) ';
    expect((await selectStatic(`${t1}SELECT * FROM t1 LEFT OUTER JOIN LATERAL (SELECT c2 FROM t2 WHERE t1.c1 = t2.c1) s LEFT OUTER JOIN t1 t3 ON s.c2 = t3.c2`, [])).rows.map((r) => Object.values(r)))
      .toEqual([[0, 1, 2, 1, 2], [0, 1, 3, null, null], [1, 2, null, null, null]]);
    // A relation to its right is none the subquery reads.
    const compile = (sql: string) => () => compileStreamingQuery(sql, { kind: 'StreamingRelation', sourceName: 'events', schema: SCHEMA });
    expect(compile(`SELECT * FROM events e JOIN LATERAL (SELECT e.k AS a, w.v AS b) s JOIN ${w} ON s.b = w.v`)).toThrow(/name `w` cannot be resolved/);
  });

  it('over a static table: read once per batch, the plan run once per distinct tuple of outer values', async () => {
    const regions: StaticTableSpec = { name: 'regions', path: 'memory:regions', format: 'json', schema: [{ name: 'weight', type: 'long' }] };
    const q = compileStreamingQuery('SELECT e.id, r.weight FROM events e LEFT JOIN LATERAL (SELECT weight FROM regions WHERE weight > e.k ORDER BY weight LIMIT 1) r ON true', { kind: 'StreamingRelation', sourceName: 'events', schema: SCHEMA }, { staticTables: [regions] });
    let reads = 0;
    let weights = [1, 5, 9];
    const loadStaticTable = async (): Promise<Row[]> => {
      reads++;
      return weights.map((weight) => ({ weight }));
    };
    const batch = async (rows: Row[], batchId: number) => {
      let out = rows;
      for (const op of q.operators) out = await op.execute(out, { batchId, batchWatermarkMs: 0, batchTimestampMs: 0, loadStaticTable });
      return out;
    };
    expect(await batch([{ id: 1, k: 4 }, { id: 2, k: 9 }, { id: 3, k: 4 }], 0)).toEqual([{ id: 1, weight: 5 }, { id: 2, weight: null }, { id: 3, weight: 5 }]);
    expect(reads).toBe(1);
    // The next batch reads the table as it is then.
    weights = [6];
    expect(await batch([{ id: 4, k: 4 }], 1)).toEqual([{ id: 4, weight: 6 }]);
    expect(reads).toBe(2);
  });
});
