/**
 * Test support for queries over Spark's `courseSales`-like rows (its pivot.sql's data, with a
 * string and a map column beside): a memory stream of them, run through MicroBatchExecution one
 * row a batch into a memory sink, and validateJob's refusals as the CLI prints them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import { ManualClock } from '../../clock';
import { withErrorClass } from '../../errors';
import { MemorySinkTable } from '../../sinks/memory-sink';
import { MemoryStream } from '../../sources/memory-source';
import { validateJob } from '../../spec/validate-job';
import { MicroBatchExecution } from '../micro-batch-execution';
import { mustParse } from './test-fixtures';

const EVENTS = [
  { name: 'course', type: 'string' }, { name: 'y2012', type: 'int' }, { name: 'y2013', type: 'long' }, { name: 's', type: 'string' },
  { name: 'tags', type: 'map', keyType: { name: 'key', type: 'string' }, valueType: { name: 'value', type: 'string' } },
];
const ROWS = [
  { course: 'dotNET', y2012: 15000, y2013: 48000, s: 'a', tags: {} },
  { course: 'Java', y2012: 20000, y2013: null, s: 'b', tags: {} },
  { course: 'Java', y2012: 5, y2013: 30000, s: 'c', tags: {} },
];

/**
 * A test file's runner of SQL over `events` (EVENTS, fed ROWS), its stream and sink names
 * starting with `prefix` (unique per file: test files share a process's named streams).
 */
export function courseEvents(prefix: string) {
  const roots: string[] = [];
  afterAll(async () => {
    for (const r of roots) await rm(r, { recursive: true, force: true });
  });
  let n = 0;
  const specOf = (sql: string, outputMode = 'append', dir = '/nonexistent', name = `${prefix}-${process.pid}-${n++}`) => ({
    name, source: { name: 'events', type: 'memory', options: { stream: name }, schema: EVENTS }, sql, outputMode,
    sink: { type: 'memory', options: { table: name } }, trigger: { type: 'available-now' }, checkpointLocation: path.join(dir, 'cp'),
  });

  /** The query's output over ROWS, a batch of each row: each batch's rows as `a:b:…` in column order. */
  async function run(sql: string, outputMode = 'append'): Promise<string[][]> {
    const dir = await mkdtemp(path.join(tmpdir(), `weir-${prefix}-`));
    roots.push(dir);
    const spec = specOf(sql, outputMode, dir);
    expect(validateJob(spec).errors).toEqual([]);
    const q = new MicroBatchExecution({ spec: mustParse(spec), clock: new ManualClock(0) });
    for (const r of ROWS) {
      MemoryStream.named(spec.name).addData(r);
      await q.processAllAvailable();
    }
    await q.stop();
    return MemorySinkTable.named(spec.name).batches.map((b) => b.rows.map((r) => Object.values(r).map(String).join(':')));
  }

  /** The validation's errors, each as the CLI prints it: `[<error class>] <message>`. */
  const errorOf = (sql: string, outputMode = 'append') => validateJob(specOf(sql, outputMode)).errors.map((e) => withErrorClass(e.message, e.errorClass)).join('\n');

  return { run, errorOf };
}
