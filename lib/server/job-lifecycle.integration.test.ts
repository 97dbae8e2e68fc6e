/**
 * The job lifecycle table (job-lifecycle.ts): every state has a way out, and stop, start and
 * delete (and restart) from every state (with either desired state) either act as the table says or answer 409
 * saying why and what to do. Against a real database through the job service; the reconciler's
 * endLostRuns against real Run and Worker rows.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaClient } from '@/lib/generated/prisma/client';
import type { Principal } from './auth';
import { WeirError } from '@/lib/engine/errors';
import { endLostRuns, JOB_STATUSES, JOB_TRANSITIONS, refusal, transitionFor, type JobStatus } from './job-lifecycle';
import { createJob, deleteJob, restartJob, startJob, stopJob, type JobServiceContext } from './services/job-service';
import { createTestDatabase, type TestDatabase } from './testing/database';
import { filesSpec } from './testing/api-test-kit';

const admin: Principal = { actor: 'test:admin', role: 'admin', via: 'bearer' };

describe('the transition table', () => {
  it('leads from every status to STOPPED, and from STOPPED back to RUNNING', () => {
    const reach = (from: JobStatus, to: JobStatus): boolean => {
      const seen = new Set<JobStatus>([from]);
      const todo = [from];
      while (todo.length) {
        const s = todo.pop()!;
        if (s === to) return true;
        for (const t of JOB_TRANSITIONS) {
          if (!t.from.includes(s) || t.to === 'unchanged' || t.to === 'deleted' || seen.has(t.to)) continue;
          seen.add(t.to);
          todo.push(t.to);
        }
      }
      return false;
    };
    for (const s of JOB_STATUSES) expect(reach(s, 'STOPPED'), s).toBe(true);
    expect(reach('STOPPED', 'RUNNING')).toBe(true);
  });

  it('lets a job in a winding-down or active status be stopped by the API, and every API refusal names the status and a way out', () => {
    for (const s of JOB_STATUSES) {
      expect(transitionFor('stop', s), s).toBeDefined();
      for (const event of ['start', 'delete', 'edit', 'reset-checkpoint'] as const) {
        if (transitionFor(event, s)) continue;
        const e = refusal(event, { id: 'j1', name: 'orders', status: s });
        expect(e.code).toBe('CONFLICT');
        expect(e.message).toContain(s);
        expect(e.message).toMatch(/stop it|wait for STOPPED/);
      }
    }
  });
});

describe('docs/api.md', () => {
  it('prints every row of the table', () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, '../../docs/api.md'), 'utf8');
    for (const t of JOB_TRANSITIONS) expect(doc, t.event).toContain(`| \`${t.event}\` | ${t.by.join(', ')} | ${t.from.join(', ')} | ${t.to} |`);
  });
});

describe('stop, start and delete from every state', () => {
  let tdb: TestDatabase;
  let db: PrismaClient;
  let ctx: JobServiceContext;
  const enqueued: string[] = [];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-lifecycle-'));
  let n = 0;

  beforeAll(async () => {
    tdb = await createTestDatabase('weir_lifecycle');
    db = new PrismaClient({ adapter: new PrismaPg({ connectionString: tdb.url }) });
    ctx = { db, principal: admin, checkpointRoot: path.join(dir, 'cp'), filesRoots: [dir], enqueue: async (p) => (enqueued.push(p.jobId), 'queued') };
  }, 60_000);
  afterAll(async () => {
    await db?.$disconnect();
    await tdb?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function jobIn(status: JobStatus, desiredState: 'RUNNING' | 'STOPPED'): Promise<string> {
    const { job } = await createJob(ctx, { spec: filesSpec(`lc-${n++}`, dir) });
    await db.job.update({ where: { id: job.id }, data: { status, desiredState } });
    return job.id;
  }

  async function outcome(fn: () => Promise<unknown>): Promise<{ ok: true } | { ok: false; error: WeirError }> {
    try {
      await fn();
      return { ok: true };
    } catch (e) {
      if (e instanceof WeirError) return { ok: false, error: e };
      throw e;
    }
  }

  for (const status of JOB_STATUSES) {
    for (const desired of ['RUNNING', 'STOPPED'] as const) {
      it(`${status} (desired ${desired})`, async () => {
        // stop: always acts; an active job winds down, any other keeps its status with desired STOPPED.
        const a = await jobIn(status, desired);
        expect(await outcome(() => stopJob(ctx, a))).toEqual({ ok: true });
        const stopped = await db.job.findUniqueOrThrow({ where: { id: a } });
        const stopRow = transitionFor('stop', status)!;
        expect(stopped.status).toBe(stopRow.to === 'unchanged' ? status : stopRow.to);
        expect(stopped.desiredState).toBe('STOPPED');

        // start: acts from STOPPED/FAILED (PENDING, one run enqueued), else 409 saying why and what to do.
        const b = await jobIn(status, desired);
        const started = await outcome(() => startJob(ctx, b));
        const startRow = transitionFor('start', status);
        if (startRow) {
          expect(started).toEqual({ ok: true });
          expect(await db.job.findUniqueOrThrow({ where: { id: b } })).toMatchObject({ status: 'PENDING', desiredState: 'RUNNING' });
          expect(enqueued.filter((id) => id === b)).toHaveLength(1);
        } else {
          expect(started.ok).toBe(false);
          const e = (started as { error: WeirError }).error;
          expect(e.code).toBe('CONFLICT');
          expect(e.message).toContain(`already ${status}`);
          expect(e.message).toMatch(status === 'STOPPING' ? /wait for STOPPED.*LOST.*restart/ : /stop it first, or use restart/);
          expect(await db.job.findUniqueOrThrow({ where: { id: b } })).toMatchObject({ status, desiredState: desired });
        }

        // restart: an active or stopping job winds down with desired RUNNING (the worker enqueues
        // the next run); a stopped or failed one starts (one run enqueued).
        const r = await jobIn(status, desired);
        await restartJob(ctx, r);
        const restarted = await db.job.findUniqueOrThrow({ where: { id: r } });
        const startable = status === 'STOPPED' || status === 'FAILED';
        expect(restarted).toMatchObject({ status: startable ? 'PENDING' : 'STOPPING', desiredState: 'RUNNING' });
        expect(enqueued.filter((id) => id === r)).toHaveLength(startable ? 1 : 0);

        // delete: acts from STOPPED/FAILED, else 409 and the job is still there.
        const c = await jobIn(status, desired);
        const deleted = await outcome(() => deleteJob(ctx, c));
        if (transitionFor('delete', status)) {
          expect(deleted).toEqual({ ok: true });
          expect(await db.job.findUnique({ where: { id: c } })).toBeNull();
        } else {
          expect(deleted.ok).toBe(false);
          const e = (deleted as { error: WeirError }).error;
          expect(e.code).toBe('CONFLICT');
          expect(e.message).toContain(status);
          expect(e.message).toMatch(/before deleting it/);
          expect(await db.job.findUnique({ where: { id: c } })).not.toBeNull();
        }
      });
    }
  }

  it('the reconciler ends a run whose worker is gone as LOST and stops its job; a live worker’s run is left alone', async () => {
    const dead = await jobIn('STOPPING', 'STOPPED');
    const live = await jobIn('STOPPING', 'STOPPED');
    const wanted = await jobIn('RUNNING', 'RUNNING');
    await db.worker.create({ data: { id: 'w-dead', hostname: 'h', pid: 1, queueBackend: 'postgres', lastHeartbeatAt: new Date(Date.now() - 60_000) } });
    await db.worker.create({ data: { id: 'w-live', hostname: 'h', pid: 2, queueBackend: 'postgres', lastHeartbeatAt: new Date() } });
    const far = new Date(Date.now() + 60_000);
    await db.job.update({ where: { id: dead }, data: { leaseOwner: 'run-dead', leaseExpiresAt: far, leaseEpoch: 1 } });
    await db.job.update({ where: { id: live }, data: { leaseOwner: 'run-live', leaseExpiresAt: far, leaseEpoch: 1 } });
    await db.job.update({ where: { id: wanted }, data: { leaseOwner: 'run-wanted', leaseExpiresAt: far, leaseEpoch: 1 } });
    const deadRun = await db.run.create({ data: { jobId: dead, runId: 'run-dead', workerId: 'w-dead', status: 'RUNNING' } });
    const liveRun = await db.run.create({ data: { jobId: live, runId: 'run-live', workerId: 'w-live', status: 'RUNNING' } });
    const wantedRun = await db.run.create({ data: { jobId: wanted, runId: 'run-wanted', workerId: 'w-dead', status: 'RUNNING' } });

    const { lost } = await endLostRuns(db, 5_000);
    expect(lost.map((l) => l.jobId)).toEqual([dead]);
    const ended = await db.run.findUniqueOrThrow({ where: { id: deadRun.id } });
    expect(ended.status).toBe('LOST');
    expect(ended.endedAt).not.toBeNull();
    expect(ended.exitReason).toMatch(/worker w-dead has not heartbeaten since .*WEIR_WORKER_TIMEOUT_MS 5000.*asked to stop.*run lost/);
    expect(await db.job.findUniqueOrThrow({ where: { id: dead } })).toMatchObject({ status: 'STOPPED', leaseOwner: null, leaseExpiresAt: null });
    // A live worker's run winds down by itself; a job still wanted RUNNING is failover's.
    expect((await db.run.findUniqueOrThrow({ where: { id: liveRun.id } })).status).toBe('RUNNING');
    expect((await db.job.findUniqueOrThrow({ where: { id: live } })).status).toBe('STOPPING');
    expect((await db.run.findUniqueOrThrow({ where: { id: wantedRun.id } })).status).toBe('RUNNING');
    // Once STOPPED, start and delete act.
    await startJob(ctx, dead);
    expect((await db.job.findUniqueOrThrow({ where: { id: dead } })).status).toBe('PENDING');
    await db.job.update({ where: { id: dead }, data: { status: 'STOPPED', desiredState: 'STOPPED' } });
    await deleteJob(ctx, dead);
    expect(await db.job.findUnique({ where: { id: dead } })).toBeNull();
    // Ending again finds nothing (a run ends once).
    expect((await endLostRuns(db, 5_000)).lost).toEqual([]);
  });

  it('the reconciler settles a job asked to stop whose queued run never started', async () => {
    const id = await jobIn('STOPPING', 'STOPPED');
    await db.$executeRawUnsafe(`UPDATE "Job" SET "updatedAt" = now() - interval '1 minute' WHERE id = $1`, id);
    const { settled } = await endLostRuns(db, 5_000);
    expect(settled).toContain(id);
    expect((await db.job.findUniqueOrThrow({ where: { id } })).status).toBe('STOPPED');
  });
});
