/**
 * The worker test suite, run against each queue backend (worker.postgres.integration.test.ts,
 * worker.redis.integration.test.ts): real worker processes, a real database, real checkpoints and sinks.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CommitLog, LocalCheckpointFileManager } from '@/lib/engine';
import { enqueueRun } from '@/lib/queue/run-queue';
import { deleteJob, startJob, stopJob, type JobServiceContext } from '@/lib/server/services/job-service';
import { waitFor } from '@/lib/testing/wait-for';
import { exactlyOnce, WorkerHarness, type Backend } from './harness';

/**
 * Each case starts two or three worker processes (tsx compiles each on start) and waits for
 * conditions one after another; on a 2-core machine at load 20 the starts alone took most of
 * the default 60 s. The waits themselves assert states, never how long they took.
 */
const CASE_TIMEOUT_MS = 240_000;

export function workerSuite(backend: Backend, redisDb: number) {
  describe(`worker on the ${backend} queue backend`, { timeout: CASE_TIMEOUT_MS }, () => {
    const h = new WorkerHarness(backend, redisDb);
    beforeAll(async () => {
      await h.setup();
    }, 60_000);
    afterAll(async () => h.teardown(), 60_000);
    afterEach(async () => h.killAll());

    it('runs a job, records each committed batch, and stops gracefully on request', async () => {
      const w = h.spawnWorker();
      const workerId = await w.id;
      const j = await h.createFilesJob('basic');
      j.addRows(0, 5);
      await h.start(j.job.id);
      await waitFor('RUNNING', async () => (await h.db.job.findUnique({ where: { id: j.job.id } }))?.status === 'RUNNING');
      j.addRows(5, 5);
      const batches = await waitFor('two batches', async () => {
        const b = await h.db.batchProgress.findMany({ where: { jobId: j.job.id }, orderBy: { batchId: 'asc' } });
        return b.length >= 2 && b;
      });
      expect(batches.map((b) => b.numInputRows).slice(0, 2)).toEqual([5, 5]);
      expect((batches[0].progress as { contract: { guarantee: string } }).contract.guarantee).toBe('exactly-once');
      const run = await h.db.run.findFirstOrThrow({ where: { jobId: j.job.id } });
      expect(run.workerId).toBe(workerId);
      expect(run.status).toBe('RUNNING');

      await h.stop(j.job.id);
      const stopped = await waitFor('STOPPED', async () => {
        const job = await h.db.job.findUnique({ where: { id: j.job.id } });
        return job?.status === 'STOPPED' && job;
      });
      expect(stopped.queryId).toMatch(/[0-9a-f-]{36}/);
      const ended = await h.db.run.findUniqueOrThrow({ where: { id: run.id } });
      expect(ended).toMatchObject({ status: 'STOPPED', exitReason: 'stop requested' });
      expect(ended.endedAt).not.toBeNull();
      expect(exactlyOnce(await j.sinkIds(), 10)).toEqual({ missing: [], duplicated: [] });
      w.child.kill('SIGTERM');
      expect(await w.exited).toBe(0);
    });

    it('restarts a running job as a new run that resumes from the checkpoint', async () => {
      const w = h.spawnWorker();
      await w.id;
      const j = await h.createFilesJob('restart');
      j.addRows(0, 3);
      await h.start(j.job.id);
      await waitFor('first batch', async () => (await h.db.batchProgress.count({ where: { jobId: j.job.id } })) >= 1);
      await h.restart(j.job.id);
      await waitFor('a second run RUNNING', async () => {
        const runs = await h.db.run.findMany({ where: { jobId: j.job.id }, orderBy: { startedAt: 'asc' } });
        return runs.length === 2 && runs[1].status === 'RUNNING' && runs;
      });
      j.addRows(3, 3);
      await waitFor('rows after restart', async () => exactlyOnce(await j.sinkIds(), 6).missing.length === 0);
      const runs = await h.db.run.findMany({ where: { jobId: j.job.id }, orderBy: { startedAt: 'asc' } });
      expect(runs[0]).toMatchObject({ status: 'STOPPED', exitReason: 'restart requested' });
      expect(exactlyOnce(await j.sinkIds(), 6)).toEqual({ missing: [], duplicated: [] });
      await h.stop(j.job.id);
      await waitFor('STOPPED', async () => (await h.db.job.findUnique({ where: { id: j.job.id } }))?.status === 'STOPPED');
      w.child.kill('SIGTERM');
      await w.exited;
    });

    it('fails over to another worker when the worker running a job is killed with SIGKILL', async () => {
      const a = h.spawnWorker();
      const b = h.spawnWorker();
      const [idA, idB] = await Promise.all([a.id, b.id]);
      const j = await h.createFilesJob('failover');
      j.addRows(0, 4);
      await h.start(j.job.id);
      const first = await waitFor('RUNNING run', async () => h.db.run.findFirst({ where: { jobId: j.job.id, status: 'RUNNING' } }));
      await waitFor('first batch', async () => (await h.db.batchProgress.count({ where: { jobId: j.job.id } })) >= 1);
      const victim = first.workerId === idA ? a : b;
      const survivorId = first.workerId === idA ? idB : idA;
      victim.child.kill('SIGKILL');
      await victim.exited;
      j.addRows(4, 4);
      const recovered = await waitFor(
        'a recovery run on the other worker',
        async () => h.db.run.findFirst({ where: { jobId: j.job.id, workerId: survivorId, status: 'RUNNING' } }),
        30_000,
      );
      const history = await h.db.run.findMany({ where: { jobId: j.job.id }, orderBy: { startedAt: 'asc' } });
      expect(recovered.recoveredFromRunId, JSON.stringify(history.map((r) => [r.id, r.workerId, r.status, r.exitReason, r.recoveredFromRunId]))).toBe(first.id);
      const dead = await h.db.run.findUniqueOrThrow({ where: { id: first.id } });
      expect(dead.status).toBe('FAILED');
      expect(dead.exitReason).toMatch(/lost/);
      await waitFor('all rows', async () => exactlyOnce(await j.sinkIds(), 8).missing.length === 0);
      expect(exactlyOnce(await j.sinkIds(), 8)).toEqual({ missing: [], duplicated: [] });
      await h.stop(j.job.id);
      await waitFor('STOPPED', async () => (await h.db.job.findUnique({ where: { id: j.job.id } }))?.status === 'STOPPED');
      const survivor = victim === a ? b : a;
      survivor.child.kill('SIGTERM');
      await survivor.exited;
    });

    it('a stop during a failover ends STOPPED with the dead worker’s run LOST; start and delete work afterwards', async () => {
      const a = h.spawnWorker();
      const b = h.spawnWorker();
      const [idA, idB] = await Promise.all([a.id, b.id]);
      const api: JobServiceContext = {
        db: h.db,
        principal: { actor: 'test:admin', role: 'admin', via: 'bearer' },
        checkpointRoot: h.dir,
        filesRoots: [h.dir],
        enqueue: async (p) => enqueueRun(h.queue, { ...p, attempt: 0 }),
      };
      const j = await h.createFilesJob('stop-in-failover');
      j.addRows(0, 2);
      j.addRows(2, 2);
      await startJob(api, j.job.id);
      const first = await waitFor('RUNNING run', async () => h.db.run.findFirst({ where: { jobId: j.job.id, status: 'RUNNING' } }));
      await waitFor('two batches', async () => (await h.db.batchProgress.count({ where: { jobId: j.job.id } })) >= 2);
      const victim = first.workerId === idA ? a : b;
      const survivorId = first.workerId === idA ? idB : idA;
      victim.child.kill('SIGKILL');
      await victim.exited;
      const killedAt = Date.now();
      // As if the run had died before recording its batches: batch 0's row never written, and
      // batch 1 committed just before progress/1 (so only its offsets tell of it).
      await h.db.batchProgress.deleteMany({ where: { jobId: j.job.id } });
      rmSync(path.join(j.base, 'cp', 'progress', '1'));
      expect((await stopJob(api, j.job.id)).status).toBe('STOPPING');
      // Bounded by the worker timeout plus a reconciler interval (2 s + 1 s here); generous for a loaded machine.
      const stopped = await waitFor('STOPPED', async () => {
        const job = await h.db.job.findUnique({ where: { id: j.job.id } });
        return job?.status === 'STOPPED' && job;
      }, 60_000);
      console.log(`stop during failover: STOPPED ${Date.now() - killedAt} ms after the SIGKILL (WEIR_FAILOVER_MS ${h.env.WEIR_FAILOVER_MS})`);
      expect(stopped).toMatchObject({ desiredState: 'STOPPED', leaseOwner: null });
      const lost = await h.db.run.findUniqueOrThrow({ where: { id: first.id } });
      expect(lost.status).toBe('LOST');
      expect(lost.endedAt).not.toBeNull();
      expect(lost.exitReason).toMatch(new RegExp(`worker ${first.workerId} .*asked to stop.*run lost`));
      // Nobody took over the stopped job.
      expect(await h.db.run.count({ where: { jobId: j.job.id } })).toBe(1);
      // STOPPED means recorded: the reconciler filled in the lost run's committed batches.
      const committed = await new CommitLog(new LocalCheckpointFileManager(path.join(j.base, 'cp'))).batchIds();
      const history = await h.db.batchProgress.findMany({ where: { jobId: j.job.id }, orderBy: { batchId: 'asc' } });
      expect(history.map((b) => b.batchId)).toEqual(committed);
      expect(history.slice(0, 2).map((b) => [b.batchId, b.runId, b.numInputRows, (b.progress as { reconstructed?: boolean }).reconstructed ?? false])).toEqual([
        [0, null, 2, false],
        [1, null, 0, true],
      ]);

      // The way out: start runs it again on the survivor from the checkpoint; then stop and delete act.
      j.addRows(4, 4);
      await startJob(api, j.job.id);
      await waitFor('RUNNING on the survivor', async () => h.db.run.findFirst({ where: { jobId: j.job.id, workerId: survivorId, status: 'RUNNING' } }), 60_000);
      await waitFor('all rows', async () => exactlyOnce(await j.sinkIds(), 8).missing.length === 0);
      expect(exactlyOnce(await j.sinkIds(), 8)).toEqual({ missing: [], duplicated: [] });
      await stopJob(api, j.job.id);
      await waitFor('STOPPED again', async () => (await h.db.job.findUnique({ where: { id: j.job.id } }))?.status === 'STOPPED');
      await deleteJob(api, j.job.id);
      expect(await h.db.job.findUnique({ where: { id: j.job.id } })).toBeNull();
    });

    it('ends a job FAILED with the error and where it happened, after its restart policy is spent', async () => {
      const w = h.spawnWorker();
      await w.id;
      const j = await h.createFilesJob('bad-record', { restartPolicy: { maxRestarts: 2, backoffMs: 100 } });
      j.addRows(0, 2);
      j.addBadFile();
      await h.start(j.job.id);
      const failed = await waitFor('FAILED', async () => {
        const job = await h.db.job.findUnique({ where: { id: j.job.id } });
        return job?.status === 'FAILED' && job.desiredState === 'STOPPED' && job;
      });
      const err = failed.lastError as { code: string; message: string; details?: { file?: string; line?: number } };
      expect(err.code).toBe('BAD_RECORD');
      expect(err.message).toMatch(/part-00001\.json/);
      expect(err.details?.line).toBe(2);
      const runs = await h.db.run.findMany({ where: { jobId: j.job.id }, orderBy: { startedAt: 'asc' } });
      expect(runs.map((r) => [r.status, r.attempt])).toEqual([
        ['FAILED', 0],
        ['FAILED', 1],
        ['FAILED', 2],
      ]);
      // The good file before the bad one was committed once; nothing of the bad file was.
      expect(exactlyOnce(await j.sinkIds(), 2)).toEqual({ missing: [], duplicated: [] });
      w.child.kill('SIGTERM');
      await w.exited;
    });

    // A real full filesystem: a 256 KiB tmpfs mounted on the job's checkpoint (the tests run as
    // root). Once per suite is enough: the queue backend plays no part in it.
    it.runIf(backend === 'postgres')('a full checkpoint disk fails runs with CHECKPOINT_WRITE_FAILED, the restart policy retries, and the job resumes once space is freed', async (ctx) => {
      const j = await h.createFilesJob('disk-full', { restartPolicy: { maxRestarts: 10, backoffMs: 200 } });
      const cp = path.join(j.base, 'cp');
      mkdirSync(cp, { recursive: true });
      try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', cp], { stdio: 'pipe' });
      } catch (e) {
        console.warn(`cannot mount a tmpfs here (${(e as Error).message.split('\n')[0]}); lib/engine/checkpoint/storage-errors.test.ts covers the engine side with injected faults`);
        ctx.skip();
      }
      const w = h.spawnWorker();
      try {
        await w.id;
        j.addRows(0, 3);
        await h.start(j.job.id);
        await waitFor('first batch', async () => (await h.db.batchProgress.count({ where: { jobId: j.job.id } })) >= 1);
        // Fill the disk to its last byte (a hidden name: not part of the checkpoint's listing).
        const filler = path.join(cp, '.filler');
        const fd = openSync(filler, 'w');
        try {
          for (const chunk = Buffer.alloc(4096, 1); ; ) writeSync(fd, chunk);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
        } finally {
          closeSync(fd);
        }
        j.addRows(3, 3);
        const failed = await waitFor('two runs failed on the full disk', async () => {
          const runs = await h.db.run.findMany({ where: { jobId: j.job.id, status: 'FAILED' }, orderBy: { startedAt: 'asc' } });
          return runs.length >= 2 && runs;
        });
        for (const r of failed) {
          const err = r.error as { code: string; message: string; details: { file: string; errno: string } };
          expect(err.code).toBe('CHECKPOINT_WRITE_FAILED');
          expect(err.details.errno).toBe('ENOSPC');
          expect(err.details.file.startsWith(cp + path.sep)).toBe(true);
          expect(err.message).toMatch(/The filesystem is full: free space on it/);
        }
        expect(failed.map((r) => r.attempt)).toEqual(failed.map((_, i) => i));
        expect(readdirSync(cp, { recursive: true }).filter((n) => String(n).endsWith('.tmp'))).toEqual([]);

        rmSync(filler);
        await waitFor('every row after space was freed', async () => exactlyOnce(await j.sinkIds(), 6).missing.length === 0, 60_000);
        expect(exactlyOnce(await j.sinkIds(), 6)).toEqual({ missing: [], duplicated: [] });
        expect((await h.db.job.findUniqueOrThrow({ where: { id: j.job.id } })).desiredState).toBe('RUNNING');
        await h.stop(j.job.id);
        await waitFor('STOPPED', async () => (await h.db.job.findUnique({ where: { id: j.job.id } }))?.status === 'STOPPED');
      } finally {
        w.child.kill('SIGTERM');
        await w.exited;
        execFileSync('umount', ['-l', cp]);
      }
    });

    it('on SIGTERM finishes the running batch, exits 0 and hands the job to the next worker', async () => {
      const a = h.spawnWorker();
      await a.id;
      const j = await h.createFilesJob('sigterm');
      j.addRows(0, 3);
      await h.start(j.job.id);
      const first = await waitFor('RUNNING', async () => h.db.run.findFirst({ where: { jobId: j.job.id, status: 'RUNNING' } }));
      a.child.kill('SIGTERM');
      // However long the running batch takes on a loaded machine (the test's timeout bounds it).
      const code = await a.exited;
      expect(code, a.output().slice(-3000)).toBe(0);
      const ended = await h.db.run.findUniqueOrThrow({ where: { id: first.id } });
      expect(ended).toMatchObject({ status: 'STOPPED', exitReason: 'worker shutdown' });
      const b = h.spawnWorker();
      const idB = await b.id;
      j.addRows(3, 3);
      await waitFor('taken over', async () => h.db.run.findFirst({ where: { jobId: j.job.id, workerId: idB, status: 'RUNNING' } }));
      await waitFor('all rows', async () => exactlyOnce(await j.sinkIds(), 6).missing.length === 0);
      expect(exactlyOnce(await j.sinkIds(), 6)).toEqual({ missing: [], duplicated: [] });
      await h.stop(j.job.id);
      await waitFor('STOPPED', async () => (await h.db.job.findUnique({ where: { id: j.job.id } }))?.status === 'STOPPED');
      b.child.kill('SIGTERM');
      await b.exited;
    });

    it('fences a paused worker: after another run took over, the woken zombie writes nothing', async () => {
      const a = h.spawnWorker();
      const idA = await a.id;
      const j = await h.createFilesJob('zombie');
      j.addRows(0, 3);
      await h.start(j.job.id);
      const first = await waitFor('RUNNING on A', async () => h.db.run.findFirst({ where: { jobId: j.job.id, workerId: idA, status: 'RUNNING' } }));
      await waitFor('first batch', async () => (await h.db.batchProgress.count({ where: { jobId: j.job.id } })) >= 1);
      a.child.kill('SIGSTOP');
      const b = h.spawnWorker();
      const idB = await b.id;
      const takeover = await waitFor('B took over', async () => h.db.run.findFirst({ where: { jobId: j.job.id, workerId: idB, status: 'RUNNING' } }), 30_000);
      expect(takeover.recoveredFromRunId).toBe(first.id);
      j.addRows(3, 3);
      await waitFor('rows via B', async () => exactlyOnce(await j.sinkIds(), 6).missing.length === 0);
      a.child.kill('SIGCONT');
      const zombie = await waitFor('the zombie run ends', async () => {
        const r = await h.db.run.findUnique({ where: { id: first.id } });
        return r?.exitReason ? r : null;
      });
      // Either B marked it lost when it took over, or the zombie found its lease gone on waking.
      expect(zombie.exitReason).toMatch(/lost/);
      j.addRows(6, 3);
      await waitFor('rows after the zombie woke', async () => exactlyOnce(await j.sinkIds(), 9).missing.length === 0);
      expect(exactlyOnce(await j.sinkIds(), 9)).toEqual({ missing: [], duplicated: [] });
      const job = await h.db.job.findUniqueOrThrow({ where: { id: j.job.id } });
      expect(job.status).toBe('RUNNING');
      expect(job.leaseOwner).toBe(takeover.runId);
      // The woken zombie logs it when it next touches its lease: on a loaded machine that can come
      // after B has already written the last rows.
      await waitFor('the zombie logs its lost lease', async () => /lease lost|lost the checkpoint lease/.test(a.output()));
    });
  });
}
