/**
 * current_user(), user() and session_user() return whom the query runs as
 * (MicroBatchExecutionOptions.currentUser), on the driver and in a state partition's reduce task
 * alike; a query given no user runs as DEFAULT_CURRENT_USER. current_database(),
 * current_schema() and current_catalog() are Spark's defaults.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock';
import { MemorySinkTable } from '../sinks/memory-sink';
import { DEFAULT_CURRENT_USER } from '../query/function-types';
import { validateJob } from '../spec/validate-job';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { Executor } from './executor';
import { MicroBatchExecution } from './micro-batch-execution';
import { ExecutorsTaskScheduler } from './testing/executors-task-scheduler';
import { mustParse, tempDir } from './testing/test-fixtures';

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

async function run(sql: string, opts: { currentUser?: string; outputMode?: string; parallelism?: number; schema?: string; executors?: { mapTasks: boolean } } = {}) {
  const root = await tempDir('current-user');
  roots.push(root);
  const input = path.join(root, 'in');
  await mkdir(input);
  await writeFile(path.join(input, 'a.json'), '{"k": "a", "user": "column"}\n{"k": "b", "user": "column"}\n');
  const table = path.basename(root);
  const spec = mustParse({
    name: 'current-user',
    source: { name: 'events', type: 'files', options: { path: input, format: 'json' }, schema: opts.schema ?? 'k STRING' },
    sql,
    sink: { type: 'memory', options: { table } },
    outputMode: opts.outputMode ?? 'append',
    parallelism: opts.parallelism ?? 1,
    trigger: { type: 'available-now' },
    checkpointLocation: path.join(root, 'checkpoint'),
  });
  const clock = new ManualClock(0);
  // Tasks on executors standing for other workers: each gets its task as a structured clone.
  let picked = 0;
  const checkpoint = new InMemoryCheckpointFileManager();
  const taskScheduler = opts.executors && new ExecutorsTaskScheduler({
    executors: [new Executor({ clock }), new Executor({ clock })], spec, checkpoint, queryId: () => q.id, pick: () => picked++, mapTasks: opts.executors.mapTasks,
  });
  const q: MicroBatchExecution = new MicroBatchExecution({
    spec, clock, ...(taskScheduler ? { taskScheduler, checkpoint } : {}), ...(opts.currentUser !== undefined ? { currentUser: opts.currentUser } : {}),
  });
  await q.processAllAvailable();
  await q.stop();
  return MemorySinkTable.named(table).rows.sort((x, y) => String(x.k).localeCompare(String(y.k)));
}

describe('the session functions', () => {
  it('current_user(), user(), session_user() and the bare keywords give the user the query runs as', async () => {
    const rows = await run('SELECT k, current_user(), user(), session_user(), current_user AS cu, user AS u, session_user AS su FROM events', { currentUser: 'alice' });
    expect(rows).toEqual([
      { k: 'a', 'current_user()': 'alice', 'user()': 'alice', 'session_user()': 'alice', cu: 'alice', u: 'alice', su: 'alice' },
      { k: 'b', 'current_user()': 'alice', 'user()': 'alice', 'session_user()': 'alice', cu: 'alice', u: 'alice', su: 'alice' },
    ]);
  });

  it(`runs as ${DEFAULT_CURRENT_USER} when given no user`, async () => {
    expect(await run('SELECT k, current_user() AS u FROM events')).toEqual([{ k: 'a', u: 'weir' }, { k: 'b', u: 'weir' }]);
  });

  it('reads a column named user as the column (Catalyst resolves a column first)', async () => {
    expect(await run('SELECT k, user FROM events', { currentUser: 'alice', schema: 'k STRING, user STRING' })).toEqual([{ k: 'a', user: 'column' }, { k: 'b', user: 'column' }]);
  });

  for (const executors of [undefined, { mapTasks: false }, { mapTasks: true }]) {
    it(`gives the user in a state partition's task too (${executors ? `on executors, map tasks ${executors.mapTasks}` : 'local tasks'})`, async () => {
      const rows = await run('SELECT k, max(current_user()) AS u, count(*) AS n FROM events GROUP BY k', { currentUser: 'bob', outputMode: 'complete', parallelism: 2, executors });
      expect(rows).toEqual([{ k: 'a', u: 'bob', n: 1 }, { k: 'b', u: 'bob', n: 1 }]);
    });
  }

  it("current_database(), current_schema() and current_catalog() are Spark's defaults; version() is Weir's", async () => {
    const [row] = await run("SELECT current_database(), current_schema(), current_catalog(), version() AS v FROM events WHERE k = 'a'");
    expect(row).toEqual({ 'current_database()': 'default', 'current_schema()': 'default', 'current_catalog()': 'spark_catalog', v: '0.1.0 unknown' });
  });

  it('takes no arguments, as Spark', () => {
    const v = validateJob({
      name: 'x', source: { name: 'events', type: 'files', options: { path: '/tmp/x', format: 'json' }, schema: 'k STRING' },
      sql: "SELECT current_user('a') AS u FROM events", sink: { type: 'console', options: {} }, checkpointLocation: 'memory://x',
    });
    expect(v.errors.map((e) => e.message).join('\n')).toMatch(/current_user/);
  });
});
