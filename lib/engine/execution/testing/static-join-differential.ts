/**
 * A stream-static join checked against DuckDB: the stream's rows as a table there, the job's
 * static tables as tables, the same SQL run by both; Weir's through MicroBatchExecution over
 * one batch of a memory stream into a memory sink. A test file may add static tables of its own
 * (`regions` and `blocked` are always there).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import { ManualClock } from '../../clock';
import { withErrorClass } from '../../errors';
import { useDuckDB } from '../../query/testing/duckdb';
import { MemorySinkTable } from '../../sinks/memory-sink';
import { MemoryStream } from '../../sources/memory-source';
import { validateJob } from '../../spec/validate-job';
import type { Row } from '../../types';
import { MicroBatchExecution } from '../micro-batch-execution';
import { mustParse } from './test-fixtures';

export const EVENTS = [{ name: 'id', type: 'long' }, { name: 'region', type: 'string' }, { name: 'amount', type: 'long', integral: 32 }, { name: 'user', type: 'string' }];
export const REGIONS = [{ name: 'region', type: 'string' }, { name: 'weight', type: 'long', integral: 32 }, { name: 'tags', type: 'array', elementType: { name: 'element', type: 'string' } }];
export const BLOCKED = [{ name: 'user', type: 'string' }, { name: 'region', type: 'string' }];

const REGION_ROWS = [
  { region: 'eu', weight: 3, tags: ['a', 'b'] },
  { region: 'eu', weight: 5, tags: ['c'] },
  { region: 'us', weight: 2, tags: [] },
  { region: 'us', weight: 2, tags: null },
  { region: null, weight: 7, tags: ['n'] },
  { region: 'apac', weight: null, tags: ['x', 'x'] },
];
const BLOCKED_ROWS = [
  { user: 'ann', region: 'eu' }, { user: 'ann', region: 'eu' }, { user: 'ann', region: 'us' },
  { user: 'bob', region: 'us' }, { user: 'cid', region: null }, { user: null, region: 'apac' },
];
const EVENT_ROWS = [
  { id: 1, region: 'eu', amount: 4, user: 'ann' },
  { id: 2, region: 'us', amount: 1, user: 'bob' },
  { id: 3, region: 'apac', amount: 9, user: 'cid' },
  { id: 4, region: null, amount: 2, user: null },
  { id: 5, region: 'mars', amount: 3, user: 'dan' },
  { id: 6, region: 'eu', amount: 6, user: 'bob' },
];

/** A static table a test file adds: its columns (long, INT-sized long, double or string) and rows. */
export interface DifferentialTable {
  name: string;
  schema: { name: string; type: 'long' | 'double' | 'string'; integral?: 32 }[];
  rows: Record<string, unknown>[];
}

/** A column's type in DuckDB's DDL. */
const duckType = (f: DifferentialTable['schema'][number]) => (f.type === 'string' ? 'VARCHAR' : f.type === 'double' ? 'DOUBLE' : f.integral === 32 ? 'INTEGER' : 'BIGINT');

/** Rows as sorted JSON texts, numbers rounded to 9 places, so that Weir's and DuckDB's compare. */
const canon = (rows: Row[]): string[] =>
  rows.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? Math.round(v * 1e9) / 1e9 : v ?? null])))).sort();

/** The job a query runs as, with `events` a memory stream and `regions` and `blocked` static tables in `dir`. */
async function staticJoinJob(name: string, dir: string, sql: string, outputMode: 'append' | 'complete' | 'update' = 'append', extra: readonly DifferentialTable[] = []) {
  const table = async (file: string, rows: Record<string, unknown>[]) => {
    await writeFile(path.join(dir, file), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    return path.join(dir, file);
  };
  return {
    name,
    source: { name: 'events', type: 'memory', options: { stream: name }, schema: EVENTS },
    staticTables: [
      { name: 'regions', path: await table('regions.json', REGION_ROWS), format: 'json', schema: REGIONS },
      { name: 'blocked', path: await table('blocked.json', BLOCKED_ROWS), format: 'json', schema: BLOCKED },
      ...(await Promise.all(extra.map(async (t) => ({ name: t.name, path: await table(`${t.name}.json`, t.rows), format: 'json', schema: t.schema })))),
    ],
    sql,
    outputMode,
    sink: { type: 'memory', options: { table: name } },
    trigger: { type: 'available-now' },
    checkpointLocation: path.join(dir, 'cp'),
  };
}

/** Registers DuckDB and a temp-dir cleanup for the calling test file, with its own static tables `extra`; returns its `weir`, `duckRows` and `same`. */
export function staticJoinDifferential(prefix: string, extra: readonly DifferentialTable[] = []) {
  const roots: string[] = [];
  afterAll(async () => {
    for (const r of roots) await rm(r, { recursive: true, force: true });
  });
  const duck = useDuckDB();
  let tablesMade = false;
  const duckRows = async (sql: string): Promise<string[]> => {
    if (!tablesMade) {
      const lit = (v: unknown): string => (v === null ? 'NULL' : typeof v === 'string' ? `'${v}'` : Array.isArray(v) ? `[${v.map(lit).join(', ')}]::VARCHAR[]` : String(v));
      const values = (rows: Record<string, unknown>[]) => rows.map((r) => `(${Object.values(r).map(lit).join(', ')})`).join(', ');
      await duck().run(`CREATE TABLE events (id BIGINT, region VARCHAR, amount INTEGER, "user" VARCHAR); INSERT INTO events VALUES ${values(EVENT_ROWS)}`);
      await duck().run(`CREATE TABLE regions (region VARCHAR, weight INTEGER, tags VARCHAR[]); INSERT INTO regions VALUES ${values(REGION_ROWS)}`);
      await duck().run(`CREATE TABLE blocked ("user" VARCHAR, region VARCHAR); INSERT INTO blocked VALUES ${values(BLOCKED_ROWS)}`);
      for (const t of extra) {
        await duck().run(`CREATE TABLE ${t.name} (${t.schema.map((f) => `"${f.name}" ${duckType(f)}`).join(', ')})`);
        if (t.rows.length) await duck().run(`INSERT INTO ${t.name} VALUES ${values(t.rows.map((r) => Object.fromEntries(t.schema.map((f) => [f.name, r[f.name] ?? null]))))}`);
      }
      tablesMade = true;
    }
    const reader = await duck().runAndReadAll(sql);
    return canon(reader.getRowObjectsJS());
  };
  let n = 0;
  /** The query through MicroBatchExecution over the events in one batch: its rows, explain and output schema. */
  const weir = async (sql: string, outputMode: 'append' | 'complete' | 'update' = 'append') => {
    const name = `${prefix}-${process.pid}-${n++}`;
    const dir = await mkdtemp(path.join(tmpdir(), `weir-${prefix}-`));
    roots.push(dir);
    const spec = await staticJoinJob(name, dir, sql, outputMode, extra);
    const validated = validateJob(spec);
    if (validated.errors.length) throw new Error(validated.errors.map((e) => withErrorClass(e.message, e.errorClass)).join('\n'));
    const q = new MicroBatchExecution({ spec: mustParse(spec), clock: new ManualClock(0) });
    MemoryStream.named(name).addData(...EVENT_ROWS);
    await q.processAllAvailable();
    await q.stop();
    return { rows: canon(MemorySinkTable.named(name).rows), explain: validated.explain ?? '', schema: validated.outputSchema ?? [] };
  };
  /** Weir's rows equal DuckDB's for the query (DuckDB's own text where its dialect differs). */
  const same = async (sql: string, duckSql = sql, outputMode: 'append' | 'complete' | 'update' = 'append') => {
    const w = await weir(sql, outputMode);
    expect(w.rows).toEqual(await duckRows(duckSql));
    expect(w.rows.length).toBeGreaterThan(0);
    return w;
  };
  return { weir, duckRows, same };
}
