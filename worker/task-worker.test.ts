import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrismaClient } from '@/lib/server/db';
import { specVersionOf } from './shuffle';
import { jobSinkOptions, jobSourceOptions } from './task-worker';

// A task reads its job's options from the database once per spec version, not once per task.
describe("a task worker's job options", () => {
  let dir: string;
  beforeAll(async () => (dir = await mkdtemp(path.join(tmpdir(), 'weir-task-options-'))));
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const specWith = (maxFilesPerTrigger: number, table = 'out') => ({
    name: 'opts',
    source: { name: 'events', type: 'files', options: { path: dir, format: 'json', maxFilesPerTrigger }, schema: [{ name: 'k', type: 'string' }] },
    sql: 'SELECT k FROM events',
    sink: { type: 'memory', options: { table } },
    outputMode: 'append',
    checkpointLocation: path.join(dir, 'checkpoint'),
  });

  /** The jobs table: one job whose stored spec the test edits, counting the reads. */
  function fakeDb(spec: () => unknown) {
    const reads = { n: 0 };
    const db = {
      job: {
        findUnique: async () => {
          reads.n++;
          // A new object each read, as the database returns it.
          return { spec: JSON.parse(JSON.stringify(spec())) as unknown };
        },
      },
    } as unknown as PrismaClient;
    return { db, reads };
  }

  it('reads the job once per spec version, and a changed option reaches the next run’s tasks', async () => {
    let stored = specWith(2);
    const { db, reads } = fakeDb(() => stored);
    const sourceOptions = jobSourceOptions(db, { filesRoots: [dir] });
    const v1 = specVersionOf(stored);
    // One batch's two map tasks, then the next batch's two: one read in all.
    for (let t = 0; t < 4; t++) expect((await sourceOptions('job', v1))[0].maxFilesPerTrigger).toBe(2);
    expect(reads.n).toBe(1);

    // An edit (between runs: refused while one is going); the next run stamps the new version.
    stored = specWith(5);
    const v2 = specVersionOf(stored);
    expect(v2).not.toBe(v1);
    expect((await sourceOptions('job', v2))[0].maxFilesPerTrigger).toBe(5);
    expect((await sourceOptions('job', v2))[0].maxFilesPerTrigger).toBe(5);
    expect(reads.n).toBe(2);

    // A zombie task of the run before the edit: it reads, and gets the stored spec's options.
    expect((await sourceOptions('job', v1))[0].maxFilesPerTrigger).toBe(5);
    expect(reads.n).toBe(3);
    // The cache still holds the stored version.
    await sourceOptions('job', v2);
    expect(reads.n).toBe(3);
  });

  it('reads the job for every task that names no version (a driver from before the versions)', async () => {
    const stored = specWith(3);
    const { db, reads } = fakeDb(() => stored);
    const sourceOptions = jobSourceOptions(db, { filesRoots: [dir] });
    for (let t = 0; t < 3; t++) await sourceOptions('job');
    expect(reads.n).toBe(3);
  });

  it("keeps the sink's options by the same rule", async () => {
    let stored = specWith(1, 'a');
    const { db, reads } = fakeDb(() => stored);
    const sinkOptions = jobSinkOptions(db, { filesRoots: [dir] });
    expect((await sinkOptions('job', specVersionOf(stored))).table).toBe('a');
    expect((await sinkOptions('job', specVersionOf(stored))).table).toBe('a');
    expect(reads.n).toBe(1);
    stored = specWith(1, 'b');
    expect((await sinkOptions('job', specVersionOf(stored))).table).toBe('b');
    expect(reads.n).toBe(2);
  });
});
