/**
 * A job of one query over a memory stream `events` (id, k BIGINT) of four rows, for tests of what
 * a query reads beside its stream (inline tables, range()): its output over one batch, its
 * validated output schema, and its validation's errors as the CLI prints them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { ManualClock } from '../../clock';
import { withErrorClass } from '../../errors';
import { MemorySinkTable } from '../../sinks/memory-sink';
import { MemoryStream } from '../../sources/memory-source';
import { validateJob } from '../../spec/validate-job';
import type { Row, Schema } from '../../types';
import { MicroBatchExecution } from '../micro-batch-execution';
import { mustParse } from './test-fixtures';

export const EVENTS: Schema = [{ name: 'id', type: 'long' }, { name: 'k', type: 'long' }];
const ROWS: Row[] = [{ id: 1, k: 1 }, { id: 2, k: 2 }, { id: 3, k: 3 }, { id: 4, k: null }];

/** The queries' helpers, their jobs' names starting `prefix`; the checkpoints go after the file's tests. */
export function eventsQueries(prefix: string) {
  const roots: string[] = [];
  afterAll(async () => {
    for (const r of roots) await rm(r, { recursive: true, force: true });
  });
  let n = 0;
  const specOf = (sql: string, name = `${prefix}-${process.pid}-${n++}`, dir = '/nonexistent') => ({
    name,
    source: { name: 'events', type: 'memory', options: { stream: name }, schema: EVENTS },
    sql,
    sink: { type: 'memory', options: { table: name } },
    trigger: { type: 'available-now' },
    checkpointLocation: path.join(dir, 'cp'),
  });

  /** The query's output over ROWS in one batch, each row as `a:b:…` in column order, sorted. */
  async function run(sql: string): Promise<string[]> {
    const dir = await mkdtemp(path.join(tmpdir(), `weir-${prefix}-`));
    roots.push(dir);
    const spec = specOf(sql, undefined, dir);
    const q = new MicroBatchExecution({ spec: mustParse(spec), clock: new ManualClock(0) });
    MemoryStream.named(spec.name).addData(...ROWS);
    try {
      await q.processAllAvailable();
    } finally {
      await q.stop();
    }
    return MemorySinkTable.named(spec.name).rows.map((r) => Object.values(r).map((v) => (typeof v === 'bigint' ? `${v}n` : String(v))).join(':')).sort();
  }

  const outputSchema = (sql: string) => validateJob(specOf(sql)).outputSchema?.map((f) => `${f.name} ${f.type}`);
  /** The validation's errors, each as the CLI prints it: `[<error class>] <message>`. */
  const errorOf = (sql: string) => validateJob(specOf(sql)).errors.map((e) => withErrorClass(e.message, e.errorClass)).join('\n');
  return { specOf, run, outputSchema, errorOf };
}
