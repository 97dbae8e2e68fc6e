/**
 * UNPIVOT and PIVOT over a stream, checked against DuckDB running the same SQL over the same rows
 * (DuckDB takes the SQL standard's forms Spark takes: its output columns, their names and order,
 * EXCLUDE and INCLUDE NULLS, a PIVOT grouped by the relation's other columns, agree with Spark's
 * sql-tests pivot.sql.out and unpivot.sql.out). UNPIVOT is stateless: one batch in Append mode.
 * PIVOT with aggregates of strings is one streaming aggregation: several batches in Complete
 * mode, whose last output is the aggregation of every row.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock';
import { useDuckDB } from '../query/testing/duckdb';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import { validateJob } from '../spec/validate-job';
import { MicroBatchExecution } from './micro-batch-execution';
import { mustParse } from './testing/test-fixtures';

const duck = useDuckDB();
const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

const EVENTS = [
  { name: 'course', type: 'string' }, { name: 'y2012', type: 'int' }, { name: 'y2013', type: 'long' }, { name: 'y2014', type: 'int' },
  { name: 's', type: 'string' }, { name: 'd', type: 'double' },
];
const DDL = 'CREATE TABLE events (course VARCHAR, y2012 INTEGER, y2013 BIGINT, y2014 INTEGER, s VARCHAR, d DOUBLE)';

/** 60 rows, seeded: a few courses (and NULL), years' values with NULLs (some rows all NULL), strings. */
function rows(): Record<string, unknown>[] {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const maybe = <T>(v: T) => (next() < 0.25 ? null : v);
  return Array.from({ length: 60 }, (_, i) => ({
    course: [null, 'Java', 'dotNET', 'Scala'][i % 4], y2012: maybe(Math.floor(next() * 1000)), y2013: maybe(Math.floor(next() * 1000)), y2014: maybe(i),
    s: maybe(['a', 'b', 'c', 'd', 'e'][Math.floor(next() * 5)]), d: maybe(Math.round(next() * 100) / 4),
  }));
}
const ROWS = rows();

const text = (v: unknown): string => (v === null || v === undefined ? 'NULL' : Array.isArray(v) ? `[${v.map(text).join(',')}]` : String(v));

async function duckdb(sql: string): Promise<{ columns: string[]; rows: string[] }> {
  const c = duck();
  await c.run('DROP TABLE IF EXISTS events');
  await c.run(DDL);
  for (const r of ROWS) await c.run(`INSERT INTO events VALUES (${EVENTS.map((f) => (r[f.name] === null ? 'NULL' : typeof r[f.name] === 'string' ? `'${r[f.name]}'` : r[f.name])).join(', ')})`);
  const reader = await c.runAndReadAll(sql);
  return { columns: reader.columnNames(), rows: (reader.getRowsJson() as unknown[][]).map((r) => r.map(text).join('|')).sort() };
}

let n = 0;
/** The query over ROWS through the engine, in `batches` batches: its columns, and its (last Complete) output rows. */
async function weir(sql: string, outputMode: 'append' | 'complete', batches: number): Promise<{ columns: string[]; rows: string[] }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-pivot-'));
  roots.push(dir);
  const name = `pivot-duckdb-${process.pid}-${n++}`;
  const spec = {
    name, source: { name: 'events', type: 'memory', options: { stream: name }, schema: EVENTS }, sql, outputMode,
    sink: { type: 'memory', options: { table: name } }, trigger: { type: 'available-now' }, checkpointLocation: path.join(dir, 'cp'),
  };
  const v = validateJob(spec);
  expect(v.errors).toEqual([]);
  const q = new MicroBatchExecution({ spec: mustParse(spec), clock: new ManualClock(0) });
  const size = Math.ceil(ROWS.length / batches);
  for (let i = 0; i < ROWS.length; i += size) {
    MemoryStream.named(name).addData(...ROWS.slice(i, i + size));
    await q.processAllAvailable();
  }
  await q.stop();
  const sink = MemorySinkTable.named(name);
  // Complete mode: the last batch's output is the whole result.
  const out = outputMode === 'complete' ? sink.batches.at(-1)!.rows : sink.rows;
  return { columns: v.outputSchema!.map((f) => f.name), rows: out.map((r) => Object.values(r).map(text).join('|')).sort() };
}

/** `sql` through Weir and DuckDB (`duckSql` where DuckDB's SQL for Spark's semantics differs). */
async function same(sql: string, outputMode: 'append' | 'complete' = 'append', batches = 1, duckSql = sql) {
  const [w, d] = [await weir(sql, outputMode, batches), await duckdb(duckSql)];
  expect(w.columns).toEqual(d.columns);
  expect(w.rows).toEqual(d.rows);
  expect(w.rows.length).toBeGreaterThan(0);
  return w;
}

describe('UNPIVOT over a stream, as DuckDB runs it', () => {
  it('one value column: the other columns, then the name and the value; EXCLUDE NULLS by default', async () => {
    await same('SELECT * FROM events UNPIVOT (v FOR year IN (y2012, y2013, y2014))');
    await same('SELECT * FROM events UNPIVOT EXCLUDE NULLS (v FOR year IN (y2012, y2014))');
  });

  it('INCLUDE NULLS keeps the rows whose value is NULL', async () => {
    await same('SELECT * FROM events UNPIVOT INCLUDE NULLS (v FOR year IN (y2012, y2013, y2014))');
  });

  it('IN entries aliased name their rows; an INT beside a BIGINT widens to BIGINT', async () => {
    const w = await same('SELECT course, year, v FROM events UNPIVOT (v FOR year IN (y2012 AS twelve, y2013 AS thirteen, y2014)) WHERE v > 100');
    expect(validateJob({ name: 'x', source: { name: 'events', type: 'memory', options: { stream: 'x' }, schema: EVENTS }, sql: 'SELECT * FROM events UNPIVOT (v FOR year IN (y2012, y2013))', sink: { type: 'memory', options: { table: 'x' } } }).outputSchema?.at(-1)?.type).toBe('long');
    expect(w.rows.some((r) => r.includes('|twelve|'))).toBe(true);
  });

  it('several value columns: sets named by their columns joined by _, or by their alias', async () => {
    await same('SELECT * FROM events UNPIVOT INCLUDE NULLS ((a, b) FOR year IN ((y2012, y2013), (y2014, y2014)))');
    await same('SELECT * FROM events UNPIVOT INCLUDE NULLS ((a, b) FOR year IN ((y2012, y2013) AS p, (y2014, y2013) AS q))');
  });

  it('EXCLUDE NULLS of several value columns drops a row when all its values are NULL, as Spark (DuckDB drops it when any is)', async () => {
    // Spark's AstBuilder.withUnpivot: Filter(IsNotNull(Coalesce(values))) over the Unpivot.
    const w = await same('SELECT * FROM events UNPIVOT ((a, b) FOR year IN ((y2012, y2013) AS p, (y2014, y2013) AS q))', 'append', 1,
      'SELECT * FROM events UNPIVOT INCLUDE NULLS ((a, b) FOR year IN ((y2012, y2013) AS p, (y2014, y2013) AS q)) WHERE coalesce(a, b) IS NOT NULL');
    expect(w.rows.some((r) => r.endsWith('|NULL'))).toBe(true);
  });

  it('over a subquery and under an aggregation', async () => {
    await same('SELECT * FROM (SELECT course, y2012, y2014 * 2 AS y2014 FROM events WHERE s IS NOT NULL) UNPIVOT (v FOR year IN (y2012, y2014))');
    await same('SELECT year, count(*) AS n, sum(v) AS total FROM events UNPIVOT (v FOR year IN (y2012, y2013, y2014)) GROUP BY year', 'complete', 3);
  });
});

describe('PIVOT over a stream, as DuckDB runs it', () => {
  it('one aggregate of strings: one column per value, grouped by the other columns', async () => {
    await same("SELECT * FROM (SELECT course, s, y2014 % 3 AS g FROM events) PIVOT (max(s) FOR course IN ('Java', 'dotNET' AS dn, 'Scala'))", 'complete', 3);
  });

  it('several aggregates: <value>_<alias or aggregate> columns', async () => {
    await same("SELECT * FROM (SELECT course, s, y2014 % 3 AS g FROM events) PIVOT (max(s) AS mx, min(s) FOR course IN ('Java', 'Scala'))", 'complete', 4);
  });
});
