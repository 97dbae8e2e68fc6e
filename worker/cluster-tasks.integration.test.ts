/**
 * One query across workers (WEIR_TASK_SCHEDULER=cluster): two real worker processes run the map
 * tasks (one per input file, each reading its file) and the reduce tasks of jobs with parallelism
 * 2, a deduplication whose input repeats ids across batches (so each partition's state decides
 * what is emitted). A worker is SIGKILLed while it runs a map task, and later another while it
 * runs a reduce task; each task is retried on another worker, and a replacement worker joins
 * each time. Every id reaches the transactional postgres sink and the files sink exactly once.
 *
 * The killed worker never drives the files job (that would kill its run, not a task of it): while
 * the kill is prepared, the driver's worker is held from taking tasks (WEIR_TEST_TASK_HOLD_SIGNAL),
 * so the next batch's tasks can only run on another worker. Left to the queue, on a loaded machine
 * the driver's worker took the tasks for minutes, and a test that waited for that chance timed out.
 */
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@/lib/testing/wait-for';
import { exactlyOnce, WorkerHarness, type SpawnedWorker } from './testing/harness';

const FILES = 24;
const PER_FILE = 5;
/** Each file repeats this many ids of the one before (the dedup state must drop them). */
const OVERLAP = 3;
const CLUSTER = { WEIR_TASK_SCHEDULER: 'cluster', WEIR_TEST_TASK_DELAY_MS: '300', WEIR_TEST_TASK_HOLD_SIGNAL: '1' };
const HELD = 'tasks held (test seam)';
const RELEASED = 'tasks released (test seam)';

type Kind = 'map' | 'reduce';
const started = (out: string, kind: Kind) => out.split('\n').filter((l) => l.includes(`"msg":"${kind} task started"`));
const done = (out: string, kind: Kind) => out.split('\n').filter((l) => l.includes(`"msg":"${kind} task done"`));
/**
 * The task a log line is about: its query, batch, stage and split or partition. Not its queue job:
 * a reduce task whose preferred worker died is moved to the shared queue as another job.
 */
const taskOf = (line: string) => ['queryId', 'batchId', 'stageId', 'mapId', 'partitionId'].map((k) => new RegExp(`"${k}":("[^"]*"|\\d+)`).exec(line)?.[1] ?? '').join('/');
const logged = (w: SpawnedWorker, msg: string) => w.output().split('\n').filter((l) => l.includes(`"msg":"${msg}"`)).length;

/** Sends the worker SIGUSR2 (its task-worker.ts test seam) and waits until it says `msg`: held, or released. */
async function toggleHold(w: SpawnedWorker, msg: typeof HELD | typeof RELEASED): Promise<void> {
  const before = logged(w, msg);
  w.child.kill('SIGUSR2');
  await waitFor(`the worker's "${msg}"`, () => logged(w, msg) > before, 120_000);
}

/**
 * From now on, SIGKILLs the first of `candidates` that logs the start of a `kind` task of the
 * query, in the same turn its log line arrives: the task then waits WEIR_TEST_TASK_DELAY_MS before
 * it runs, so the kill lands mid-task. Returns a look at which worker was killed and its task.
 */
function killAtStart(candidates: SpawnedWorker[], kind: Kind, queryId: string): () => { victim: SpawnedWorker; task: string } | undefined {
  let caught: { victim: SpawnedWorker; task: string } | undefined;
  // Whole lines only: a line being written now is read once it is complete.
  const from = new Map(candidates.map((w) => [w, w.output().lastIndexOf('\n') + 1]));
  const look = () => {
    for (const [w, at] of from) {
      const line = started(w.output().slice(at), kind).find((l) => l.includes(`"queryId":"${queryId}"`));
      if (caught || !line) continue;
      w.child.kill('SIGKILL');
      caught = { victim: w, task: taskOf(line) };
      for (const c of candidates) c.child.stdout!.off('data', look);
    }
  };
  for (const w of candidates) w.child.stdout!.on('data', look);
  return () => caught;
}

describe.each(['redis', 'postgres'] as const)('map and reduce tasks on two workers, SIGKILLed mid-task (queue on %s)', (backend) => {
  const h = new WorkerHarness(backend, 12);
  beforeAll(async () => h.setup(), 120_000);
  afterAll(async () => h.teardown(), 60_000);

  it('retries a killed map task and a killed reduce task on another worker; every id once in the postgres and files sinks', async () => {
    const workers: SpawnedWorker[] = [h.spawnWorker(CLUSTER), h.spawnWorker(CLUSTER)];
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

    /**
     * Kills a worker, not the files job's driver, running a `kind` task of that job; waits for the
     * task's retry elsewhere and adds a worker. The driver's worker is held from taking tasks and
     * a file added: the batch it makes has its tasks run on the other worker alive.
     */
    const killDuring = async (kind: Kind) => {
      const { driver, queryId } = await waitFor('the files job running, on a worker of this test', async () => {
        const run = await h.db.run.findFirst({ where: { jobId: files.job.id, endedAt: null }, orderBy: { startedAt: 'desc' } });
        const { queryId } = await h.db.job.findUniqueOrThrow({ where: { id: files.job.id } });
        if (!run?.workerId || !queryId) return undefined;
        const ids = await Promise.all(workers.map((w) => w.id));
        return ids.includes(run.workerId) && { driver: workers[ids.indexOf(run.workerId)], queryId };
      }, 120_000);
      await toggleHold(driver, HELD);
      const caught = killAtStart(workers.filter((w) => w !== driver && w.child.exitCode === null && w.child.signalCode === null), kind, queryId);
      addFile();
      const { victim, task } = await waitFor(`a ${kind} task of the files job started on the worker that does not drive it`, caught, 240_000, 20);
      await victim.exited;
      // Killed mid-task: the task never completed there.
      expect(done(victim.output(), kind).map(taskOf)).not.toContain(task);
      await toggleHold(driver, RELEASED);
      // The killed worker's task starts again elsewhere (after its lock expires), next attempt.
      const others = workers.filter((w) => w !== victim);
      await waitFor(`the killed ${kind} task retried on another worker`, async () => others.some((w) => started(w.output(), kind).some((l) => taskOf(l) === task)), 120_000);
      workers.push(h.spawnWorker(CLUSTER));
    };
    await killDuring('map');
    while (added < (3 * FILES) / 4) addFile();
    await killDuring('reduce');
    while (added < FILES) addFile();
    const total = added * PER_FILE;
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
    // The files job's reduce tasks wrote its part files (named by batch, partition and attempt); the
    // driver only logged the completed attempts' in _weir_metadata (Sink.commitProtocol).
    const metadata = path.join(files.base, 'out', '_weir_metadata');
    const logged = (await readdir(metadata)).map((f) => readFileSync(path.join(metadata, f), 'utf8')).join('\n');
    expect(logged).toMatch(/"path":"part-\d{5}-\d{5}-[0-9a-f-]{36}\.json"/);
    // The tasks did run on both workers (not all on the driver's), and each batch's progress says
    // where (the batch detail's task table), the killed task's retry as a second attempt.
    for (const kind of ['map', 'reduce'] as const) expect(workers.filter((w) => started(w.output(), kind).length > 0).length).toBeGreaterThanOrEqual(2);
    const batches = await h.db.batchProgress.findMany({ where: { jobId: { in: [files.job.id, pg.job.id] } }, select: { progress: true } });
    const tasks = batches.flatMap((b) => (b.progress as { tasks?: { kind?: 'map'; workerId: string; attempt: number }[] }).tasks ?? []);
    expect(new Set(tasks.map((t) => t.workerId)).size).toBeGreaterThanOrEqual(2);
    expect(tasks.some((t) => t.kind === 'map' && t.attempt >= 2)).toBe(true);
    expect(tasks.some((t) => t.kind === undefined && t.attempt >= 2)).toBe(true);
  }, 900_000);
});
