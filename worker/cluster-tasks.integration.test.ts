/**
 * One query across workers (WEIR_TASK_SCHEDULER=cluster): two real worker processes run the
 * reduce tasks of jobs with parallelism 2, a deduplication whose input repeats ids across batches
 * (so each partition's state decides what is emitted). One worker is SIGKILLed while it runs a
 * reduce task; the task is retried on the other, and a replacement worker joins. Every id reaches
 * the transactional postgres sink and the files sink exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@/lib/testing/wait-for';
import { exactlyOnce, WorkerHarness, type SpawnedWorker } from './testing/harness';

const FILES = 24;
const PER_FILE = 5;
/** Each file repeats this many ids of the one before (the dedup state must drop them). */
const OVERLAP = 3;
const CLUSTER = { WEIR_TASK_SCHEDULER: 'cluster', WEIR_TEST_TASK_DELAY_MS: '300' };

const started = (out: string) => out.split('\n').filter((l) => l.includes('"msg":"reduce task started"'));
const done = (out: string) => out.split('\n').filter((l) => l.includes('"msg":"reduce task done"'));

describe.each(['redis', 'postgres'] as const)('reduce tasks on two workers, one SIGKILLed mid-task (queue on %s)', (backend) => {
  const h = new WorkerHarness(backend, 12);
  beforeAll(async () => h.setup(), 120_000);
  afterAll(async () => h.teardown(), 60_000);

  it('retries the task on another worker; every id once in the postgres and files sinks', async () => {
    const workers: SpawnedWorker[] = [h.spawnWorker(CLUSTER), h.spawnWorker(CLUSTER)];
    const ids = await Promise.all(workers.map((w) => w.id));
    const dedup = { parallelism: 2, dedup: { keys: ['id'] } };
    const table = `cluster_sink_${backend}_${process.pid}`;
    const files = await h.createFilesJob('cluster-files', { spec: dedup });
    const pg = await h.createFilesJob('cluster-pg', { spec: dedup, sink: { type: 'postgres', options: { connectionString: h.env.DATABASE_URL, table } } });
    const pgIds = async () => {
      const exists = await h.db.$queryRawUnsafe<{ t: string | null }[]>('SELECT to_regclass($1)::text AS t', `"${table}"`);
      if (exists[0].t === null) return [];
      return (await h.db.$queryRawUnsafe<{ id: bigint | number }[]>(`SELECT id FROM "${table}"`)).map((r) => Number(r.id));
    };
    let added = 0;
    const addFile = () => {
      for (const j of [files, pg]) j.addRows(Math.max(0, added * PER_FILE - OVERLAP), PER_FILE + (added === 0 ? 0 : OVERLAP));
      added++;
    };
    for (let i = 0; i < FILES / 2; i++) addFile();
    await h.start(files.job.id);
    await h.start(pg.job.id);

    // A worker that is not the files job's driver, caught running one of its reduce tasks.
    let victim: SpawnedWorker | undefined;
    let bullJobId = '';
    await waitFor('a reduce task of the files job running on a worker that does not drive it', async () => {
      const run = await h.db.run.findFirst({ where: { jobId: files.job.id, endedAt: null }, orderBy: { startedAt: 'desc' } });
      const { queryId } = (await h.db.job.findUniqueOrThrow({ where: { id: files.job.id } }));
      if (!run || !queryId) return false;
      for (const [i, w] of workers.entries()) {
        if (ids[i] === run.workerId) continue;
        const finished = new Set(done(w.output()).map((l) => /"bullJobId":"([^"]+)"/.exec(l)![1]));
        const running = started(w.output()).filter((l) => l.includes(`"queryId":"${queryId}"`)).map((l) => /"bullJobId":"([^"]+)"/.exec(l)![1]).find((id) => !finished.has(id));
        if (running) {
          victim = w;
          bullJobId = running;
          return true;
        }
      }
      return false;
    }, 120_000, 20);
    victim!.child.kill('SIGKILL');
    await victim!.exited;
    const survivor = workers.find((w) => w !== victim)!;
    // The killed worker's task starts again elsewhere (after its lock expires), same job, next attempt.
    await waitFor('the killed task retried on the surviving worker', async () => started(survivor.output()).some((l) => l.includes(`"bullJobId":"${bullJobId}"`)), 120_000);
    workers.push(h.spawnWorker(CLUSTER));
    for (let i = FILES / 2; i < FILES; i++) addFile();
    const total = FILES * PER_FILE;
    await waitFor('every id in both sinks', async () => new Set(await files.sinkIds()).size >= total && new Set(await pgIds()).size >= total, 240_000).catch(async (e: unknown) => {
      // What the workers said, for whoever reads the failure.
      for (const w of workers) console.error(w.output().split('\n').filter((l) => /"level":(40|50|60)/.test(l)).slice(-20).join('\n'));
      console.error({ files: (await files.sinkIds()).length, pg: (await pgIds()).length, total });
      throw e;
    });
    // A few more triggers: a doubled write would show up now.
    await new Promise((r) => setTimeout(r, 1500));
    expect(exactlyOnce(await files.sinkIds(), total)).toEqual({ missing: [], duplicated: [] });
    expect(exactlyOnce(await pgIds(), total)).toEqual({ missing: [], duplicated: [] });
    // The tasks did run on both workers (not all on the driver's), and each batch's progress says
    // where (the batch detail's task table), the killed task's retry as a second attempt.
    expect(workers.filter((w) => started(w.output()).length > 0).length).toBeGreaterThanOrEqual(2);
    const batches = await h.db.batchProgress.findMany({ where: { jobId: { in: [files.job.id, pg.job.id] } }, select: { progress: true } });
    const tasks = batches.flatMap((b) => (b.progress as { tasks?: { workerId: string; attempt: number }[] }).tasks ?? []);
    expect(new Set(tasks.map((t) => t.workerId)).size).toBeGreaterThanOrEqual(2);
    expect(tasks.some((t) => t.attempt >= 2)).toBe(true);
  }, 480_000);
});
