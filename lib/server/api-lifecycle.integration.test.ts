/**
 * Start, stop, restart and reset-checkpoint through the route handlers, with runs enqueued on the
 * real BullMQ Postgres backend in the test database, following the lifecycle contract the worker
 * relies on (job-service.ts header).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalCheckpointFileManager } from '@/lib/engine';
import { env } from '@/lib/env';
import { queueConfigFrom } from '@/lib/queue/connection';
import { runQueue } from '@/lib/queue/run-queue';
import { setupApiTestKit, filesSpec, type ApiTestKit } from './testing/api-test-kit';

let kit: ApiTestKit;
let jobs: typeof import('@/app/api/jobs/route');
let start: typeof import('@/app/api/jobs/[id]/start/route');
let stop: typeof import('@/app/api/jobs/[id]/stop/route');
let restart: typeof import('@/app/api/jobs/[id]/restart/route');
let reset: typeof import('@/app/api/jobs/[id]/reset-checkpoint/route');
let one: typeof import('@/app/api/jobs/[id]/route');
const dir = '/tmp/weir-api-lifecycle-test';

beforeAll(async () => {
  kit = await setupApiTestKit();
  jobs = await import('@/app/api/jobs/route');
  start = await import('@/app/api/jobs/[id]/start/route');
  stop = await import('@/app/api/jobs/[id]/stop/route');
  restart = await import('@/app/api/jobs/[id]/restart/route');
  reset = await import('@/app/api/jobs/[id]/reset-checkpoint/route');
  one = await import('@/app/api/jobs/[id]/route');
});
afterAll(async () => kit?.teardown());

async function newJob(name: string): Promise<string> {
  const res = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: filesSpec(name, dir) });
  expect(res.status).toBe(201);
  return res.body.job.id;
}

async function queuedFor(jobId: string): Promise<{ jobId: string; reason: string }[]> {
  const q = runQueue(queueConfigFrom(env()));
  const all = await q.getJobs(['waiting', 'delayed', 'prioritized', 'active']);
  return all.filter((j) => j.data.jobId === jobId).map((j) => ({ jobId: j.data.jobId, reason: j.data.reason }));
}

const post = (h: typeof start.POST, id: string, token: string, body?: unknown) =>
  kit.call(h, `/api/jobs/${id}/x`, { method: 'POST', token, params: { id }, body });

async function auditActions(id: string): Promise<string[]> {
  return (await kit.db.auditEvent.findMany({ where: { targetId: id }, orderBy: { createdAt: 'asc' } })).map((e) => e.action);
}

describe('start / stop / restart', () => {
  it('start sets RUNNING/PENDING, clears lastError and enqueues one run; a second start is 409', async () => {
    const id = await newJob('lc-start');
    await kit.db.job.update({ where: { id }, data: { status: 'FAILED', lastError: { code: 'SINK_ERROR', message: 'x' } } });
    const viewer = await post(start.POST, id, kit.tokens.viewer);
    expect(viewer.status).toBe(403);
    const res = await post(start.POST, id, kit.tokens.operator);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ desiredState: 'RUNNING', status: 'PENDING', lastError: null });
    expect(await queuedFor(id)).toEqual([{ jobId: id, reason: 'start' }]);
    const again = await post(start.POST, id, kit.tokens.operator);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/already PENDING/);
    expect(await queuedFor(id)).toHaveLength(1);
    const ev = await kit.db.auditEvent.findFirstOrThrow({ where: { targetId: id, action: 'job.start' } });
    expect(ev.before).toMatchObject({ status: 'FAILED', desiredState: 'STOPPED' });
    expect(ev.after).toMatchObject({ status: 'PENDING', desiredState: 'RUNNING', lastError: null });
  });

  it('concurrent starts enqueue exactly one run', async () => {
    const id = await newJob('lc-race');
    const results = await Promise.all([0, 1, 2, 3].map(() => post(start.POST, id, kit.tokens.operator)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    expect(await queuedFor(id)).toHaveLength(1);
  });

  it('stop on an active job asks for STOPPING; on a stopped job it is an idempotent 200 that changes nothing', async () => {
    const id = await newJob('lc-stop');
    await post(start.POST, id, kit.tokens.operator);
    await kit.db.job.update({ where: { id }, data: { status: 'RUNNING' } }); // the worker took it
    const s = await post(stop.POST, id, kit.tokens.operator);
    expect(s.body).toMatchObject({ desiredState: 'STOPPED', status: 'STOPPING' });
    await kit.db.job.update({ where: { id }, data: { status: 'STOPPED' } }); // the worker finished the batch
    const n = (await auditActions(id)).length;
    const again = await post(stop.POST, id, kit.tokens.operator);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ desiredState: 'STOPPED', status: 'STOPPED' });
    expect((await auditActions(id)).length).toBe(n);
    expect(await auditActions(id)).toEqual(['job.create', 'job.start', 'job.stop']);
  });

  it('restart of an active job stops it with desired RUNNING; of a stopped job it starts with reason restart', async () => {
    const id = await newJob('lc-restart');
    const r1 = await post(restart.POST, id, kit.tokens.operator);
    expect(r1.body).toMatchObject({ desiredState: 'RUNNING', status: 'PENDING' });
    expect(await queuedFor(id)).toEqual([{ jobId: id, reason: 'restart' }]);
    await kit.db.job.update({ where: { id }, data: { status: 'RUNNING' } });
    const r2 = await post(restart.POST, id, kit.tokens.operator);
    expect(r2.body).toMatchObject({ desiredState: 'RUNNING', status: 'STOPPING' });
    expect(await queuedFor(id)).toHaveLength(1); // the worker enqueues the next run itself
  });
});

describe('reset checkpoint', () => {
  it('is admin only, needs the name typed, refuses an active job, then deletes files and history and audits it', async () => {
    const id = await newJob('lc-reset');
    const job = await kit.db.job.findUniqueOrThrow({ where: { id } });
    const fm = new LocalCheckpointFileManager(job.checkpointLocation);
    await fm.createAtomic('metadata', '{"id":"q-1"}');
    await fm.createAtomic('offsets/0', 'v1\n{}\n{"logOffset":0}');
    await fm.createAtomic('commits/0', 'v1\n{"nextBatchWatermarkMs":0}');
    await fm.createAtomic('state/0/0/1.delta', Buffer.from([0, 1, 2, 3]));
    await kit.db.job.update({ where: { id }, data: { queryId: 'q-1', lastBatchId: 0, lastCommittedAt: new Date() } });
    await kit.db.batchProgress.create({ data: { jobId: id, batchId: 0, timestamp: new Date(), numInputRows: 1, inputRowsPerSecond: 1, processedRowsPerSecond: 1, batchDurationMs: 1, durationMs: {}, progress: {} } });

    expect((await post(reset.POST, id, kit.tokens.operator, { confirm: 'lc-reset' })).status).toBe(403);
    const wrong = await post(reset.POST, id, kit.tokens.admin, { confirm: 'lc-rese' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.path).toBe('confirm');
    expect((await post(reset.POST, id, kit.tokens.admin, {})).status).toBe(400);
    await kit.db.job.update({ where: { id }, data: { status: 'RUNNING' } });
    expect((await post(reset.POST, id, kit.tokens.admin, { confirm: 'lc-reset' })).status).toBe(409);
    expect(await fm.exists('offsets/0')).toBe(true);
    await kit.db.job.update({ where: { id }, data: { status: 'STOPPED' } });

    const ok = await post(reset.POST, id, kit.tokens.admin, { confirm: 'lc-reset' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ deletedFiles: 4, deletedBatches: 1, job: { queryId: null, lastBatchId: null, lastCommittedAt: null } });
    expect(await fm.list('')).toEqual([]);
    expect(await kit.db.batchProgress.count({ where: { jobId: id } })).toBe(0);
    const ev = await kit.db.auditEvent.findFirstOrThrow({ where: { targetId: id, action: 'job.reset-checkpoint' } });
    expect(ev).toMatchObject({ actor: 'token:admin-token', actorRole: 'admin' });
    expect(ev.before).toMatchObject({ queryId: 'q-1', lastBatchId: 0 });
    expect(ev.after).toMatchObject({ queryId: null, lastBatchId: null, deletedFiles: 4, deletedBatches: 1 });
  });
});

describe('reset checkpoint of a webhook sink', () => {
  /** A webhook job whose recorded batches POSTed `rows` rows (the guard's figure for what goes again). */
  async function webhookJob(name: string, options: Record<string, unknown>, rows: number, spec: Record<string, unknown> = {}) {
    const res = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: filesSpec(name, dir, { sink: { type: 'webhook', options: { url: 'http://127.0.0.1:9/hook', ...options } }, ...spec }) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = res.body.job.id as string;
    const progress = (batchId: number) => ({ jobId: id, batchId, timestamp: new Date(), numInputRows: rows / 2, inputRowsPerSecond: 1, processedRowsPerSecond: 1, batchDurationMs: 1, durationMs: {}, progress: { sink: { numOutputRows: rows / 2 } } });
    if (rows > 0) await kit.db.batchProgress.createMany({ data: [progress(0), progress(1)] });
    await kit.db.job.update({ where: { id }, data: { queryId: 'q-1', lastBatchId: rows > 0 ? 1 : null } });
    return id;
  }

  // An Idempotency-Key embeds the query id, and a reset is a new query id: the receiver that drops
  // a repeated key sees every batch as new, so this sink is as exposed as an at-least-once one.
  it.each([
    { label: 'idempotent (the receiver honours the key)', options: { receiverHonoursIdempotencyKey: true }, newQueryIdMatters: true, says: /Idempotency-Key embeds the query id/ },
    { label: 'at-least-once', options: {}, newQueryIdMatters: false, says: /at-least-once: nothing recognizes a batch/ },
  ])('$label, with batches POSTed: refused until acknowledged, saying how many rows go again', async ({ options, newQueryIdMatters, says }) => {
    const name = `lc-hook-${newQueryIdMatters ? 'idem' : 'alo'}`;
    const id = await webhookJob(name, options, 6);
    const refused = await post(reset.POST, id, kit.tokens.admin, { confirm: name });
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'REPROCESSING_NOT_ACKNOWLEDGED', details: { cause: 'reset-checkpoint', rowsWrittenAgain: 6, historyRows: 6, sinkRows: null, batches: 2, newQueryIdMatters } });
    expect(refused.body.error.message).toMatch(says);
    expect(refused.body.error.message).toContain('6 rows would be written again');
    expect(await kit.db.batchProgress.count({ where: { jobId: id } })).toBe(2);
    const ok = await post(reset.POST, id, kit.tokens.admin, { confirm: name, acknowledgeReprocessing: true });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(await kit.db.batchProgress.count({ where: { jobId: id } })).toBe(0);
  });

  it('of a job of several sources: the refusal names where each source starts reading again', async () => {
    const files = (name: string) => ({ name, type: 'files', options: { path: `${dir}/${name}`, format: 'json' }, schema: [{ name: 'user', type: 'string' }, { name: 'n', type: 'long' }] });
    const id = await webhookJob('lc-hook-sources', {}, 4, { source: undefined, sources: [files('clicks'), files('views')], sql: 'SELECT user, n FROM clicks UNION ALL SELECT user, n FROM views' });
    const refused = await post(reset.POST, id, kit.tokens.admin, { confirm: 'lc-hook-sources' });
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    const startPosition = `the beginning of files source clicks: every file still in ${dir}/clicks, and the beginning of files source views: every file still in ${dir}/views`;
    expect(refused.body.error).toMatchObject({ code: 'REPROCESSING_NOT_ACKNOWLEDGED', details: { cause: 'reset-checkpoint', rowsWrittenAgain: 4, startPosition } });
    expect(refused.body.error.message).toContain(`makes the next start read from ${startPosition}, and write into the sink`);
  });

  it('with nothing POSTed yet, the reset is not asked about', async () => {
    const id = await webhookJob('lc-hook-empty', { receiverHonoursIdempotencyKey: true }, 0);
    expect((await post(reset.POST, id, kit.tokens.admin, { confirm: 'lc-hook-empty' })).status).toBe(200);
  });
});

describe('delete with the checkpoint', () => {
  async function withCheckpoint(name: string) {
    const id = await newJob(name);
    const job = await kit.db.job.findUniqueOrThrow({ where: { id } });
    const fm = new LocalCheckpointFileManager(job.checkpointLocation);
    await fm.createAtomic('metadata', '{"id":"q-1"}');
    await fm.createAtomic('offsets/0', 'v1\n{}\n{"logOffset":0}');
    await fm.createAtomic('state/0/0/1.delta', Buffer.from([0, 1, 2, 3]));
    return { id, job, fm };
  }
  const del = (id: string, query: string) => kit.call(one.DELETE, `/api/jobs/${id}${query}`, { method: 'DELETE', token: kit.tokens.admin, params: { id } });

  it('needs the name typed, deletes the files then the job, and audits how many files went; a plain delete keeps them', async () => {
    const { id, fm } = await withCheckpoint('lc-delete');
    const wrong = await del(id, '?deleteCheckpoint=true&confirm=lc-delet');
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.path).toBe('confirm');
    expect(await kit.db.job.findUnique({ where: { id } })).not.toBeNull();
    expect(await fm.exists('offsets/0')).toBe(true);

    const ok = await del(id, '?deleteCheckpoint=true&confirm=lc-delete');
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ deletedCheckpointFiles: 3 });
    expect(await fm.list('')).toEqual([]);
    expect(await kit.db.job.findUnique({ where: { id } })).toBeNull();
    const ev = await kit.db.auditEvent.findFirstOrThrow({ where: { targetId: id, action: 'job.delete' } });
    expect(ev.after).toMatchObject({ deletedCheckpointFiles: 3 });

    const kept = await withCheckpoint('lc-delete-keep');
    expect((await del(kept.id, '')).status).toBe(204);
    expect(await kept.fm.exists('offsets/0')).toBe(true);
  });

  it('refuses, for reset and delete alike, a checkpoint location another job also uses', async () => {
    const a = await withCheckpoint('lc-shared-a');
    const b = await newJob('lc-shared-b');
    await kit.db.job.update({ where: { id: b }, data: { checkpointLocation: a.job.checkpointLocation } });
    const d = await del(a.id, '?deleteCheckpoint=true&confirm=lc-shared-a');
    expect(d.status).toBe(409);
    expect(d.body.error.message).toContain('lc-shared-b');
    const r = await post(reset.POST, a.id, kit.tokens.admin, { confirm: 'lc-shared-a' });
    expect(r.status).toBe(409);
    expect(await a.fm.exists('offsets/0')).toBe(true);
    expect(await kit.db.job.findUnique({ where: { id: a.id } })).not.toBeNull();
  });
});

describe('allowedActions: what the dashboard offers is what the server accepts', () => {
  const STATUSES = ['PENDING', 'STARTING', 'RUNNING', 'STOPPING', 'STOPPED', 'FAILED', 'RECOVERING'] as const;
  const ACTIONS = ['start', 'stop', 'restart', 'reset-checkpoint', 'delete', 'edit'] as const;

  async function act(action: (typeof ACTIONS)[number], id: string, name: string) {
    switch (action) {
      case 'start': return post(start.POST, id, kit.tokens.admin);
      case 'stop': return post(stop.POST, id, kit.tokens.admin);
      case 'restart': return post(restart.POST, id, kit.tokens.admin);
      case 'reset-checkpoint': return post(reset.POST, id, kit.tokens.admin, { confirm: name });
      case 'delete': return kit.call(one.DELETE, `/api/jobs/${id}`, { method: 'DELETE', token: kit.tokens.admin, params: { id } });
      case 'edit': return kit.call(one.PUT, `/api/jobs/${id}`, { method: 'PUT', token: kit.tokens.admin, params: { id }, body: { spec: filesSpec(name, dir, { sql: 'SELECT user FROM clicks' }) } });
    }
  }

  it('in every status, the job and the jobs list offer exactly the actions that do not answer 409', async () => {
    for (const status of STATUSES) {
      for (const action of ACTIONS) {
        const name = `lc-allowed-${status.toLowerCase()}-${action}`;
        const id = await newJob(name);
        await kit.db.job.update({ where: { id }, data: { status, desiredState: ['STOPPED', 'FAILED', 'STOPPING'].includes(status) ? 'STOPPED' : 'RUNNING' } });
        const offered = (await kit.call(one.GET, `/api/jobs/${id}`, { token: kit.tokens.viewer, params: { id } })).body.allowedActions as string[];
        const listed = (await kit.call(jobs.GET, `/api/jobs?q=${name}`, { token: kit.tokens.viewer })).body.items.find((j: { id: string }) => j.id === id);
        expect(listed.allowedActions, `${status} list`).toEqual(offered);
        const res = await act(action, id, name);
        // A stop that changes nothing (already stopping or stopped) is accepted but not offered.
        if (offered.includes(action)) expect(res.status, `${action} offered on ${status}: ${JSON.stringify(res.body)}`).not.toBe(409);
        else if (action !== 'stop') expect(res.status, `${action} not offered on ${status}`).toBe(409);
      }
    }
  });

  it('a STOPPING job offers only restart: no start, stop, edit, reset or delete', async () => {
    const id = await newJob('lc-allowed-stopping');
    await kit.db.job.update({ where: { id }, data: { status: 'STOPPING', desiredState: 'STOPPED' } });
    expect((await kit.call(one.GET, `/api/jobs/${id}`, { token: kit.tokens.viewer, params: { id } })).body.allowedActions).toEqual(['restart']);
  });
});
