/**
 * The stateless SQL subset: what compiles, what it computes on examples whose answers are
 * computed independently (Date APIs, string APIs), and what is refused with a position.
 */
import { describe, expect, it } from 'vitest';
import type { Row, Schema } from '../types';
import { writtenColumnName } from './column-names';
import { simpleTypeString } from './data-types';
import { SqlValidationError } from './sql-error';
import { compileStreamingQuery, readsOfSource, readsSource } from './streaming-query';

const SCHEMA: Schema = [
  { name: 'id', type: 'long' },
  { name: 's', type: 'string' },
  { name: 'x', type: 'double' },
  { name: 'ts', type: 'timestamp' },
  { name: 'ok', type: 'boolean' },
];
const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: SCHEMA };

async function evalRows(sql: string, rows: Row[], batchTimestampMs = 0): Promise<Row[]> {
  const q = compileStreamingQuery(sql, rel);
  let out = rows;
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs });
  return out;
}

function sqlError(sql: string): SqlValidationError {
  try {
    compileStreamingQuery(sql, rel);
  } catch (e) {
    if (e instanceof SqlValidationError) return e;
    throw e;
  }
  throw new Error(`expected ${sql} to fail`);
}

describe('stateless SQL', () => {
  const ts = Date.UTC(2024, 1, 29, 13, 45, 30, 250); // a leap day, a Thursday
  const row = { id: 7, s: ' Hello, World ', x: 2.5, ts, ok: true };

  it('evaluates date functions on timestamps in UTC', async () => {
    const [r] = await evalRows(
      "SELECT year(ts) y, month(ts) mo, day(ts) d, hour(ts) h, minute(ts) mi, second(ts) se, dayofweek(ts) dow, extract(hour FROM ts) eh, date_trunc('hour', ts) th, date_trunc('month', ts) tm, unix_timestamp(ts) u, CAST(ts AS STRING) str FROM src",
      [row],
    );
    const d = new Date(ts);
    expect(r).toEqual({
      y: d.getUTCFullYear(), mo: d.getUTCMonth() + 1, d: d.getUTCDate(), h: d.getUTCHours(), mi: d.getUTCMinutes(), se: d.getUTCSeconds(),
      dow: d.getUTCDay() + 1, eh: d.getUTCHours(),
      th: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours()),
      tm: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
      u: Math.floor(ts / 1000),
      str: d.toISOString().replace('T', ' ').replace('Z', '').replace(/0+$/, ''),
    });
  });

  it('evaluates string functions, CASE, CAST, IN and LIKE', async () => {
    const [r] = await evalRows(
      "SELECT upper(s) u, trim(s) t, length(s) l, substring(trim(s), 1, 5) sub, replace(s, 'o', '0') rep, concat(s, id) c, lpad(CAST(id AS STRING), 3, '0') p, CASE WHEN x > 2 THEN 'big' ELSE 'small' END sz, CASE id WHEN 7 THEN 'seven' END w, CAST('42' AS BIGINT) n, CAST('nope' AS DOUBLE) bad, id IN (1, 7) inn, s LIKE '%World%' lk, ts > '2024-01-01' after FROM src",
      [row],
    );
    expect(r).toEqual({
      u: row.s.toUpperCase(), t: row.s.trim(), l: row.s.length, sub: row.s.trim().slice(0, 5), rep: row.s.split('o').join('0'),
      c: `${row.s}${row.id}`, p: String(row.id).padStart(3, '0'), sz: 'big', w: 'seven', n: 42, bad: null, inn: true, lk: true, after: true,
    });
  });

  it('filters with SQL’s three-valued logic: NULL conditions drop the row', async () => {
    const rows = [{ id: 1, s: null, x: null, ts: null, ok: null }, { id: 2, s: 'a', x: 1, ts: 0, ok: true }, { id: 3, s: 'b', x: 5, ts: 0, ok: false }];
    expect((await evalRows('SELECT id FROM src WHERE ok OR x > 2', rows)).map((r) => r.id)).toEqual([2, 3]);
    expect((await evalRows('SELECT id FROM src WHERE NOT ok', rows)).map((r) => r.id)).toEqual([3]);
    expect((await evalRows('SELECT id FROM src WHERE s IS NULL', rows)).map((r) => r.id)).toEqual([1]);
  });

  it('uses aliases, * and qualified names, and names unaliased expressions after their text', () => {
    const q = compileStreamingQuery('SELECT *, src.id + 1, upper(s) AS up FROM src', rel);
    expect(q.outputSchema.map((f) => f.name)).toEqual(['id', 's', 'x', 'ts', 'ok', '(id + 1)', 'up']);
  });

  it('outputs a repeated name twice, as Spark does, an aggregation\'s repeat as a column of its own', async () => {
    const written = (sql: string, outputMode: 'append' | 'complete' = 'append') => compileStreamingQuery(sql, rel, { outputMode }).outputSchema.map((f) => writtenColumnName(f.name));
    expect(written('SELECT id, id FROM src')).toEqual(['id', 'id']);
    expect(written('SELECT s, count(*), count(1) FROM src GROUP BY s', 'complete')).toEqual(['s', 'count(1)', 'count(1)']);
    const [row] = await evalRows('SELECT id, id + 1 AS id FROM src', [{ id: 1, s: 'a', x: 0, ts: 0, ok: true }]);
    expect(compileStreamingQuery('SELECT id, id + 1 AS id FROM src', rel).outputSchema.map((f) => row[f.name])).toEqual([1, 2]);
  });

  it('refuses constructs outside the supported subset, naming them and where they are', () => {
    const cases: [string, RegExp, number, number][] = [
      ['SELECT id FROM src JOIN src ON id = id', /self-join of the stream src needs an alias for each side/, 1, 16],
      ['WITH q AS (SELECT id FROM src) SELECT id FROM r', /unknown source; this job's source is named "src" \(CTEs in scope: q\)/, 1, 47],
      ['SELECT row_number() OVER (ORDER BY id) FROM src', /Window function/, 1, 8],
      ['SELECT id FROM other', /unknown source; this job's source is named "src"/, 1, 16],
      ["SELECT id FROM src WHERE s + true > 2", /needs numbers, got double and boolean/, 1, 26],
      ['SELECT reflect(s) FROM src', /Cannot resolve routine `reflect` on search path .*needs a JVM/, 1, 8],
    ];
    for (const [sql, msg, line, column] of cases) {
      const e = sqlError(sql);
      expect(e.message, sql).toMatch(msg);
      expect([e.line, e.column], sql).toEqual([line, column]);
      expect(e.code).toBe('VALIDATION_ERROR');
    }
  });

  it('keeps a column of NULLs VOID where it is read again: over a subquery, an inline table, a join\'s static side', () => {
    const types = (sql: string) => compileStreamingQuery(sql, rel).outputSchema.map((f) => simpleTypeString(f));
    expect(types('SELECT b FROM (SELECT null AS b FROM src)')).toEqual(['void']);
    expect(types('SELECT q.* FROM src CROSS JOIN (VALUES (null, 1), (null, 2)) q')).toEqual(['void', 'int']);
    expect(types("SELECT q.* FROM src CROSS JOIN (SELECT null AS b, 'x' AS c FROM VALUES (0)) q")).toEqual(['void', 'string']);
  });

  it('refuses a relation no source or CTE in scope names with Spark\'s TABLE_OR_VIEW_NOT_FOUND', () => {
    for (const sql of ['SELECT id FROM other', 'WITH s AS (SELECT 1 FROM s) SELECT * FROM s', 'SELECT * FROM src JOIN other o ON true', 'SELECT * FROM (SELECT 1 AS x) q, other',
      // A misspelt table in a scalar subquery is no stream: it fails to resolve.
      'SELECT id, (SELECT max(v) FROM otehr) AS m FROM src', 'SELECT id, (SELECT max(x) FROM otehr) AS m FROM src', 'SELECT id FROM src WHERE id > (WITH v AS (SELECT 1 AS x FROM other) SELECT x FROM v)']) {
      expect(sqlError(sql).errorClass, sql).toBe('TABLE_OR_VIEW_NOT_FOUND');
    }
  });
});

describe('which sources the query reads', () => {
  it('counts each read of a source, its name matched ignoring case; a source it never names is not read', () => {
    const q = compileStreamingQuery('SELECT id FROM Src UNION ALL SELECT id FROM SRC', [rel, { ...rel, sourceName: 'Other' }]);
    expect([readsOfSource(q, 'src'), readsOfSource(q, 'SRC'), readsOfSource(q, 'other')]).toEqual([2, 2, 0]);
    expect([readsSource(q, 'sRc'), readsSource(q, 'Other'), readsSource(q, 'missing')]).toEqual([true, false, false]);
  });
});
