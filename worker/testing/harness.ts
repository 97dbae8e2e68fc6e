/**
 * Test harness for the worker suites: a fresh database, real worker processes (spawned exactly as
 * `npm run worker` runs them) on either queue backend, jobs over a files source in a temp dir,
 * and the start/stop requests the API makes (desired state + enqueue).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { createTestDatabase, type TestDatabase } from '@/lib/server/testing/database';
import { migrate } from '@/lib/server/migrate';
import { queueConfigFrom, type QueueConfig } from '@/lib/queue/connection';
import { closeRunQueues, enqueueRun } from '@/lib/queue/run-queue';
import { readCommittedRows } from '@/lib/engine';
import { waitFor } from '@/lib/testing/wait-for';

const ROOT = path.resolve(import.meta.dirname, '../..');

export type Backend = 'postgres' | 'redis';

export interface SpawnedWorker {
  child: ChildProcess;
  id: Promise<string>;
  output(): string;
  exited: Promise<number | null>;
}

export class WorkerHarness {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'weir-worker-'));
  db!: PrismaClient;
  queue!: QueueConfig;
  env!: Record<string, string>;
  private database!: Pick<TestDatabase, 'name' | 'url' | 'drop'>;
  private workers: SpawnedWorker[] = [];

  constructor(
    readonly backend: Backend,
    private readonly redisDb = 9,
  ) {}

  /**
   * `databaseUrl`: a database the test owns elsewhere (e.g. its own embedded PostgreSQL, which it
   * may kill); it is migrated here and left for its owner to remove.
   */
  async setup(opts: { databaseUrl?: string } = {}): Promise<void> {
    if (opts.databaseUrl) {
      await migrate(opts.databaseUrl);
      this.database = { name: new URL(opts.databaseUrl).pathname.slice(1), url: opts.databaseUrl, drop: async () => {} };
    } else {
      this.database = await createTestDatabase(`weir_worker_${this.backend}`);
    }
    this.db = new PrismaClient({ adapter: new PrismaPg({ connectionString: this.database.url }) });
    const redisUrl = `redis://127.0.0.1:6379/${this.redisDb}`;
    if (this.backend === 'redis') {
      const r = new Redis(redisUrl);
      await r.flushdb();
      r.disconnect();
    }
    this.env = {
      DATABASE_URL: this.database.url,
      REDIS_URL: this.backend === 'redis' ? redisUrl : '',
      // Short enough for failover tests to be quick, long enough to hold on a loaded machine: with
      // a 2 s lease, renewals late by two seconds (load average 15-25 on 2 cores) let a
      // reconciler's recovery run take over healthy runs, which then thrashed (lease lost,
      // recovered, lost again) and made no progress.
      WEIR_FAILOVER_MS: '6000',
      WEIR_LEASE_TTL_MS: '5000',
      WEIR_LEASE_RENEW_MS: '250',
      WEIR_WORKER_HEARTBEAT_MS: '500',
      WEIR_WORKER_TIMEOUT_MS: '2000',
      WEIR_DATA_DIR: path.join(this.dir, 'data'),
      // The jobs' files and checkpoints live side by side in this harness's temp dir.
      WEIR_FILES_ROOTS: this.dir,
      WEIR_CHECKPOINT_ROOT: this.dir,
      LOG_LEVEL: 'info',
      // Test-only seam (lib/env.ts): the jobs' postgres and redis sources and sinks live on the
      // same servers as this harness's metadata database and queue.
      NODE_ENV: 'test',
      WEIR_TEST_SHARED_SERVERS: '1',
    };
    this.queue = queueConfigFrom({ DATABASE_URL: this.database.url, REDIS_URL: this.env.REDIS_URL || undefined });
  }

  async teardown(): Promise<void> {
    await killWorkers(this.workers);
    await closeRunQueues();
    await this.db?.$disconnect();
    await this.database?.drop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Kills every worker this harness spawned (between tests, so none leaks into the next). */
  async killAll(): Promise<void> {
    await killWorkers(this.workers);
  }

  spawnWorker(extraEnv: Record<string, string> = {}): SpawnedWorker {
    const w = spawnWorkerProcess({ ...this.env, ...extraEnv });
    this.workers.push(w);
    return w;
  }

  /** A job over a files source in its own temp dir, with a files sink (exactly-once). */
  async createFilesJob(name: string, opts: { trigger?: object; restartPolicy?: object; sql?: string; sink?: { type: string; options: object }; spec?: object } = {}) {
    const base = path.join(this.dir, name);
    for (const d of ['in', 'out']) mkdirSync(path.join(base, d), { recursive: true });
    const spec = {
      name,
      source: {
        name: 'events',
        type: 'files',
        options: { path: path.join(base, 'in'), format: 'json', maxFilesPerTrigger: 1 },
        schema: [
          { name: 'id', type: 'long' },
          { name: 'v', type: 'double' },
        ],
      },
      sql: opts.sql ?? 'SELECT id, v * 2 AS doubled FROM events',
      sink: opts.sink ?? { type: 'files', options: { path: path.join(base, 'out'), format: 'json' } },
      outputMode: 'append',
      trigger: opts.trigger ?? { type: 'processing-time', interval: '200 milliseconds' },
      checkpointLocation: path.join(base, 'cp'),
      ...opts.spec,
    };
    const job = await this.db.job.create({
      data: {
        name,
        spec,
        sql: spec.sql,
        sourceType: 'files',
        sinkType: spec.sink.type,
        outputMode: 'append',
        trigger: spec.trigger,
        checkpointLocation: spec.checkpointLocation,
        restartPolicy: opts.restartPolicy ?? undefined,
      },
    });
    let fileNo = 0;
    return {
      job,
      base,
      /** Adds one input file with rows ids [from, from+n). */
      addRows: (from: number, n: number) => {
        const lines = Array.from({ length: n }, (_, i) => JSON.stringify({ id: from + i, v: from + i }));
        const name = `part-${String(fileNo++).padStart(5, '0')}.json`;
        // Files appear atomically (the files source's contract): write a hidden file, then rename.
        writeFileSync(path.join(base, 'in', `.${name}`), `${lines.join('\n')}\n`);
        renameSync(path.join(base, 'in', `.${name}`), path.join(base, 'in', name));
      },
      addBadFile: () => {
        writeFileSync(path.join(base, 'in', `part-${String(fileNo++).padStart(5, '0')}.json`), '{"id": 1, "v": 1}\nnot json at all\n');
      },
      sinkIds: async () => (await readCommittedRows(path.join(base, 'out'), 'json')).flatMap((b) => b.rows.map((r) => Number(r.id))),
    };
  }

  async start(jobId: string, reason: 'start' | 'restart' = 'start'): Promise<void> {
    await this.db.job.update({ where: { id: jobId }, data: { desiredState: 'RUNNING', status: 'PENDING', lastError: undefined } });
    await enqueueRun(this.queue, { jobId, reason, attempt: 0 });
  }

  async stop(jobId: string): Promise<void> {
    await this.db.job.update({ where: { id: jobId }, data: { desiredState: 'STOPPED', status: 'STOPPING' } });
  }

  async restart(jobId: string): Promise<void> {
    await this.db.job.update({ where: { id: jobId }, data: { desiredState: 'RUNNING', status: 'STOPPING' } });
  }
}

/**
 * A worker process spawned exactly as `npm run worker` runs it, with `env` over this process's
 * environment (a test that owns its database elsewhere, such as the API test kit's, passes its
 * DATABASE_URL). `id` resolves with the worker's id once it logs its start.
 */
export function spawnWorkerProcess(env: Record<string, string>): SpawnedWorker {
  const child = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', 'worker/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let resolveId!: (id: string) => void;
  const id = new Promise<string>((r) => (resolveId = r));
  const onData = (d: Buffer) => {
    out += d;
    const m = /"workerId":"([^"]+)"[^\n]*"msg":"worker started"/.exec(out);
    if (m) resolveId(m[1]);
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, id, output: () => out, exited };
}

/**
 * SIGKILLs the workers still alive and waits for every one to exit: only then may their
 * database be dropped (dropping it WITH FORCE under a live worker terminates its connections
 * mid-write, 57P01).
 */
export async function killWorkers(workers: SpawnedWorker[]): Promise<void> {
  for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  await Promise.all(workers.map((w) => w.exited));
}

/** Waits until `n` workers heartbeat in `db` (a worker process's start, tsx compiling it, can take most of a minute on a loaded machine). */
export function workersHeartbeating(db: PrismaClient, n: number, timeoutMs = 150_000): Promise<boolean> {
  return waitFor(`${n} worker(s) heartbeating`, async () => (await db.worker.count({ where: { stoppedAt: null } })) >= n, timeoutMs);
}

export function exactlyOnce(ids: number[], expected: number): { missing: number[]; duplicated: number[] } {
  const counts = new Map<number, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  const missing = [];
  for (let i = 0; i < expected; i++) if (!counts.has(i)) missing.push(i);
  const duplicated = [...counts].filter(([, c]) => c > 1).map(([id]) => id);
  return { missing, duplicated };
}
