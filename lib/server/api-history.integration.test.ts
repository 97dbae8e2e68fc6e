/**
 * Reads of a job's history through the route handlers: runs and batches keyset-paginated newest
 * first (property: paging through any history with any page size yields every run and every
 * batch exactly once, in order, runs with equal start times included), one batch's full progress, the checkpoint tree with the pending
 * batch, file reads that cannot leave the checkpoint, and the live SSE stream fed by NOTIFY.
 * Secrets quoted in errors, progress and checkpoint files are redacted.
 */
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalCheckpointFileManager } from '@/lib/engine';
import { checkStateVersion } from './presenters/checkpoint-presenter';
import { progressEventStream } from './progress-stream';
import { setupApiTestKit, postgresSinkSpec, PG_SECRET_PASSWORD, type ApiTestKit } from './testing/api-test-kit';

let kit: ApiTestKit;
let runs: typeof import('@/app/api/jobs/[id]/runs/route');
let batches: typeof import('@/app/api/jobs/[id]/batches/route');
let batch: typeof import('@/app/api/jobs/[id]/batches/[batchId]/route');
let checkpoint: typeof import('@/app/api/jobs/[id]/checkpoint/route');
let file: typeof import('@/app/api/jobs/[id]/checkpoint/file/route');
let stream: typeof import('@/app/api/jobs/[id]/progress/stream/route');
let jobId: string;
const CONN = `postgres://writer:${PG_SECRET_PASSWORD}@127.0.0.1:5432/analytics`;

beforeAll(async () => {
  kit = await setupApiTestKit();
  const jobs = await import('@/app/api/jobs/route');
  runs = await import('@/app/api/jobs/[id]/runs/route');
  batches = await import('@/app/api/jobs/[id]/batches/route');
  batch = await import('@/app/api/jobs/[id]/batches/[batchId]/route');
  checkpoint = await import('@/app/api/jobs/[id]/checkpoint/route');
  file = await import('@/app/api/jobs/[id]/checkpoint/file/route');
  stream = await import('@/app/api/jobs/[id]/progress/stream/route');
  const res = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: postgresSinkSpec('history', '/tmp/weir-api-history') });
  jobId = res.body.job.id;
});
afterAll(async () => kit?.teardown());

const batchRow = (batchId: number, extra: Record<string, unknown> = {}) => ({
  jobId,
  batchId,
  timestamp: new Date(1_700_000_000_000 + batchId * 1000),
  numInputRows: batchId * 10,
  inputRowsPerSecond: 1,
  processedRowsPerSecond: 2,
  batchDurationMs: 5,
  durationMs: { triggerExecution: 5 },
  stateRowsTotal: BigInt(batchId),
  progress: { batchId, sink: { description: `PostgresSink[${CONN}]` } },
  ...extra,
});

describe('runs', () => {
  it('newest first, with the error of a failed run redacted', async () => {
    await kit.db.run.create({ data: { jobId, runId: 'run-a', status: 'FAILED', startedAt: new Date(1000), endedAt: new Date(2000), error: { code: 'SINK_ERROR', message: `could not connect to ${CONN}` }, exitReason: 'failed' } });
    await kit.db.run.create({ data: { jobId, runId: 'run-b', status: 'RUNNING', startedAt: new Date(3000), recoveredFromRunId: 'run-a', attempt: 1 } });
    const res = await kit.call(runs.GET, `/api/jobs/${jobId}/runs`, { token: kit.tokens.viewer, params: { id: jobId } });
    expect(res.body.items.map((r: { runId: string }) => r.runId)).toEqual(['run-b', 'run-a']);
    expect(res.body.items[0]).toMatchObject({ recoveredFromRunId: 'run-a', attempt: 1, endedAt: null });
    expect(res.body.items[1].error.code).toBe('SINK_ERROR');
    expect(JSON.stringify(res.body)).not.toContain(PG_SECRET_PASSWORD);
    expect((await kit.call(runs.GET, `/api/jobs/${jobId}/runs?limit=0`, { token: kit.tokens.viewer, params: { id: jobId } })).status).toBe(400);
    expect((await kit.call(runs.GET, `/api/jobs/${jobId}/runs?before=yesterday`, { token: kit.tokens.viewer, params: { id: jobId } })).status).toBe(400);
  });

  it('names the run recovered from by the runId its exit reason quotes, not the row id the database joins on', async () => {
    await kit.db.run.deleteMany({ where: { jobId } });
    const lost = await kit.db.run.create({
      data: { jobId, runId: 'lost-run-0001', status: 'LOST', startedAt: new Date(1000), endedAt: new Date(2000), exitReason: 'worker w-1 lost (lease expired); recovered by run take-over-0002' },
    });
    // As the worker records a takeover: the recovery run points at the lost run's row.
    await kit.db.run.create({ data: { jobId, runId: 'take-over-0002', status: 'RUNNING', startedAt: new Date(3000), recoveredFromRunId: lost.id, attempt: 1 } });
    // Page size 1: the lost run is on the next page, and is still named by its runId.
    const res = await kit.call(runs.GET, `/api/jobs/${jobId}/runs?limit=1`, { token: kit.tokens.viewer, params: { id: jobId } });
    expect(res.body.items).toHaveLength(1);
    expect(res.body.items[0]).toMatchObject({ runId: 'take-over-0002', recoveredFromRunId: 'lost-run-0001' });
    const all = await kit.call(runs.GET, `/api/jobs/${jobId}/runs`, { token: kit.tokens.viewer, params: { id: jobId } });
    const [recovery, before] = all.body.items as { runId: string; recoveredFromRunId: string | null; exitReason: string | null }[];
    expect(before.exitReason).toContain(`recovered by run ${recovery.runId}`);
    expect(all.body.items.map((r: { runId: string }) => r.runId)).toContain(recovery.recoveredFromRunId);
    await kit.db.run.deleteMany({ where: { jobId } });
  });

  it('keyset pages, newest first, cover any run history exactly once, ties on start time too (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 30 }), fc.integer({ min: 1, max: 8 }), async (starts, limit) => {
        await kit.db.run.deleteMany({ where: { jobId } });
        // Few distinct start times: many runs share one, so the id breaks the tie.
        for (const [i, t] of starts.entries()) await kit.db.run.create({ data: { jobId, runId: `r${i}`, status: 'STOPPED', startedAt: new Date(1_000_000 + t * 1000) } });
        const all = await kit.db.run.findMany({ where: { jobId }, orderBy: [{ startedAt: 'desc' }, { id: 'desc' }] });
        const seen: string[] = [];
        let before: string | null | undefined;
        for (let page = 0; page <= starts.length; page++) {
          const q = before === undefined || before === null ? `?limit=${limit}` : `?limit=${limit}&before=${encodeURIComponent(before)}`;
          const res = await kit.call(runs.GET, `/api/jobs/${jobId}/runs${q}`, { token: kit.tokens.viewer, params: { id: jobId } });
          expect(res.status).toBe(200);
          expect(res.body.items.length).toBeLessThanOrEqual(limit);
          seen.push(...res.body.items.map((r: { id: string }) => r.id));
          before = res.body.nextBefore;
          if (before === null) break;
        }
        expect(seen).toEqual(all.map((r) => r.id));
      }),
      { numRuns: 20, seed: 9 },
    );
  });
});

describe('batches', () => {
  it('keyset pages, newest first, cover any history exactly once (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 0, max: 400 }), { maxLength: 40 }), fc.integer({ min: 1, max: 12 }), async (ids, limit) => {
        await kit.db.batchProgress.deleteMany({ where: { jobId } });
        if (ids.length) await kit.db.batchProgress.createMany({ data: ids.map((b) => batchRow(b)) });
        const seen: number[] = [];
        let before: number | null | undefined;
        for (let page = 0; page <= ids.length; page++) {
          const q = before === undefined ? `?limit=${limit}` : `?limit=${limit}&before=${before}`;
          const res = await kit.call(batches.GET, `/api/jobs/${jobId}/batches${q}`, { token: kit.tokens.viewer, params: { id: jobId } });
          expect(res.status).toBe(200);
          expect(res.body.items.length).toBeLessThanOrEqual(limit);
          seen.push(...res.body.items.map((b: { batchId: number }) => b.batchId));
          before = res.body.nextBefore;
          if (before === null) break;
        }
        expect(seen).toEqual([...ids].sort((a, b) => b - a));
      }),
      { numRuns: 25, seed: 6 },
    );
  });

  it('one batch returns the full progress (secrets redacted); a missing one is 404, a bad id 400', async () => {
    await kit.db.batchProgress.deleteMany({ where: { jobId } });
    await kit.db.batchProgress.create({ data: batchRow(7, { commitLag: BigInt(3), watermarkMs: BigInt(1_700_000_000_000) }) });
    const res = await kit.call(batch.GET, `/api/jobs/${jobId}/batches/7`, { token: kit.tokens.viewer, params: { id: jobId, batchId: '7' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ batchId: 7, numInputRows: 70, stateRowsTotal: 7, commitLag: 3, watermarkMs: 1_700_000_000_000, progress: { batchId: 7 } });
    expect(res.body.progress.sink.description).toBe('PostgresSink[********]');
    expect(JSON.stringify(res.body)).not.toContain(PG_SECRET_PASSWORD);
    const missing = await kit.call(batch.GET, 'x', { token: kit.tokens.viewer, params: { id: jobId, batchId: '8' } });
    expect(missing.status).toBe(404);
    // Where the job's batches are listed (there is no /api/batchs).
    expect(missing.body.error.message).toBe(`batch 8 of job ${jobId} does not exist. List them with GET /api/jobs/${jobId}/batches.`);
    expect((await kit.call(batch.GET, 'x', { token: kit.tokens.viewer, params: { id: jobId, batchId: 'abc' } })).status).toBe(400);
  });
});

describe('one id per run', () => {
  it('batches and drills name their runs by runId, as the runs list does, not by the row id the database joins on', async () => {
    const drills = await import('@/app/api/jobs/[id]/drills/route');
    await kit.db.batchProgress.deleteMany({ where: { jobId } });
    const crashed = await kit.db.run.create({ data: { jobId, runId: 'crashed-run-0001', status: 'FAILED', startedAt: new Date(5000), endedAt: new Date(6000) } });
    const recovery = await kit.db.run.create({ data: { jobId, runId: 'recovery-run-0002', status: 'RUNNING', startedAt: new Date(7000), recoveredFromRunId: crashed.id } });
    await kit.db.batchProgress.create({ data: batchRow(9, { runId: recovery.id }) });
    await kit.db.drill.create({ data: { jobId, point: 'after-sink', status: 'RECOVERED', requestedBy: 'user:admin', crashedRunId: crashed.id, recoveryRunId: recovery.id } });

    const page = await kit.call(batches.GET, `/api/jobs/${jobId}/batches`, { token: kit.tokens.viewer, params: { id: jobId } });
    expect(page.body.items[0]).toMatchObject({ batchId: 9, runId: 'recovery-run-0002' });
    const one = await kit.call(batch.GET, 'x', { token: kit.tokens.viewer, params: { id: jobId, batchId: '9' } });
    expect(one.body.runId).toBe('recovery-run-0002');
    const listed = await kit.call(drills.GET, `/api/jobs/${jobId}/drills`, { token: kit.tokens.viewer, params: { id: jobId } });
    expect(listed.body.items[0]).toMatchObject({ crashedRunId: 'crashed-run-0001', recoveryRunId: 'recovery-run-0002' });
    const ran = await kit.call(runs.GET, `/api/jobs/${jobId}/runs`, { token: kit.tokens.viewer, params: { id: jobId } });
    expect(ran.body.items.find((r: { runId: string }) => r.runId === 'recovery-run-0002').recoveredFromRunId).toBe('crashed-run-0001');
  });
});

describe('checkpoint inspector', () => {
  it('lists files with sizes and the pending batch (offsets without a commit)', async () => {
    const job = await kit.db.job.findUniqueOrThrow({ where: { id: jobId } });
    const fm = new LocalCheckpointFileManager(job.checkpointLocation);
    await fm.createAtomic('metadata', '{"id":"q"}');
    await fm.createAtomic('offsets/0', 'v1\n{}\n{"logOffset":0}');
    await fm.createAtomic('commits/0', 'v1\n{"nextBatchWatermarkMs":0}');
    await fm.createAtomic('offsets/1', 'v1\n{}\n{"logOffset":1}');
    await fm.createAtomic('sources/0/0', `v1\n{"path":"${CONN}"}`);
    await fm.createAtomic('state/0/0/1.delta', Buffer.from([0, 255, 1, 2]));
    const res = await kit.call(checkpoint.GET, 'x', { token: kit.tokens.viewer, params: { id: jobId } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ offsets: [0, 1], commits: [0], latestOffsetsBatch: 1, latestCommittedBatch: 0, pendingBatch: 1, truncated: false });
    expect(res.body.files.map((f: { path: string }) => f.path)).toEqual(['commits/0', 'metadata', 'offsets/0', 'offsets/1', 'sources/0/0', 'state/0/0/1.delta']);
    expect(res.body.files.find((f: { path: string }) => f.path === 'metadata').size).toBe(10);
    expect(res.body.totalBytes).toBe(res.body.files.reduce((s: number, f: { size: number }) => s + f.size, 0));
    // The state store: commits/0 means a restart loads version 1, and version 1 is there.
    expect(res.body.state).toEqual([
      expect.objectContaining({ operatorId: 0, partitions: [expect.objectContaining({ partitionId: 0, latestVersion: 1, oldestLoadableVersion: 0, files: 1, check: expect.objectContaining({ status: 'ok', expectedVersion: 1 }) })] }),
    ]);
    // State files without their _metadata/schema: what a start refuses as CORRUPT_CHECKPOINT.
    expect(res.body.problems).toEqual([expect.objectContaining({ path: 'state/0/_metadata/schema', missing: true })]);

    const text = await kit.call(file.GET, `x?path=${encodeURIComponent('offsets/1')}`, { token: kit.tokens.viewer, params: { id: jobId } });
    expect(text.body).toMatchObject({ path: 'offsets/1', encoding: 'utf8', content: 'v1\n{}\n{"logOffset":1}', truncated: false });
    const secret = await kit.call(file.GET, 'x?path=sources/0/0', { token: kit.tokens.viewer, params: { id: jobId } });
    expect(secret.body.content).not.toContain(PG_SECRET_PASSWORD);
    const bin = await kit.call(file.GET, 'x?path=state/0/0/1.delta', { token: kit.tokens.viewer, params: { id: jobId } });
    expect(bin.body).toMatchObject({ encoding: 'base64', content: Buffer.from([0, 255, 1, 2]).toString('base64') });
    expect((await kit.call(file.GET, 'x?path=offsets/9', { token: kit.tokens.viewer, params: { id: jobId } })).status).toBe(404);
  });

  it('checks the state versions against commits/: ok, ahead after a crash mid-batch, missing, none yet', () => {
    expect(checkStateVersion({ latestVersion: 5, oldestLoadableVersion: 0 }, 4).status).toBe('ok');
    const ahead = checkStateVersion({ latestVersion: 6, oldestLoadableVersion: 0 }, 4);
    expect(ahead).toMatchObject({ status: 'ahead', expectedVersion: 5 });
    expect(ahead.message).toContain('re-run writes 6 again');
    const missing = checkStateVersion({ latestVersion: 3, oldestLoadableVersion: 0 }, 4);
    expect(missing).toMatchObject({ status: 'missing', expectedVersion: 5 });
    expect(missing.message).toContain('CORRUPT_CHECKPOINT');
    expect(checkStateVersion({ latestVersion: 120, oldestLoadableVersion: 21 }, 9).status).toBe('missing');
    expect(checkStateVersion({ latestVersion: null, oldestLoadableVersion: null }, null).status).toBe('no-commits');
  });

  it('refuses every path that could leave the checkpoint (property over traversal shapes)', async () => {
    const escaping = fc.oneof(
      fc.constantFrom('../etc/passwd', '/etc/passwd', 'offsets/../../x', '..', 'a\\..\\b', 'file:///etc/passwd', 's3://b/k', 'offsets/\0'),
      fc.tuple(fc.array(fc.constantFrom('offsets', 'state', '.', '0'), { maxLength: 3 }), fc.array(fc.constantFrom('offsets', 'x'), { maxLength: 2 })).map(([a, b]) => [...a, '..', ...b].join('/')),
    );
    await fc.assert(
      fc.asyncProperty(escaping, async (p) => {
        const res = await kit.call(file.GET, `x?path=${encodeURIComponent(p)}`, { token: kit.tokens.viewer, params: { id: jobId } });
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('BAD_REQUEST');
      }),
      { numRuns: 40, seed: 7 },
    );
  });
});

/** Reads until `marker` followed by the end of its SSE frame (a blank line) has arrived. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, marker: string): Promise<string> {
  const dec = new TextDecoder();
  let text = '';
  const complete = () => text.includes(marker) && text.indexOf('\n\n', text.indexOf(marker)) >= 0;
  while (!complete()) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before ${marker}: ${text}`);
    text += dec.decode(value);
  }
  return text;
}

describe('progress stream (SSE)', () => {
  it('sends each batch the worker NOTIFYs, as the batch read returns it, and ends when the client leaves', async () => {
    const abort = new AbortController();
    const req = new Request(`http://localhost/api/jobs/${jobId}/progress/stream`, { headers: { authorization: `Bearer ${kit.tokens.viewer}` }, signal: abort.signal });
    const res = await stream.GET(req, { params: Promise.resolve({ id: jobId }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    await readUntil(reader, ': connected');
    await kit.db.batchProgress.create({ data: batchRow(42) });
    const c = new pg.Client({ connectionString: kit.database.url });
    await c.connect();
    await c.query(`SELECT pg_notify('weir_progress', $1)`, [`other-job:1`]);
    await c.query(`SELECT pg_notify('weir_progress', $1)`, [`${jobId}:42`]);
    await c.end();
    const text = await readUntil(reader, 'event: progress');
    const full = text.slice(text.indexOf('event: progress'));
    expect(text).not.toContain('id: 1\n'); // the other job's batch is not ours
    const data = JSON.parse(/data: (.*)\n/.exec(full)![1]);
    expect(data).toMatchObject({ batchId: 42, numInputRows: 420 });
    expect(full).toContain('id: 42');
    expect(full).not.toContain(PG_SECRET_PASSWORD);
    abort.abort();
    await expect(reader.read()).resolves.toMatchObject({ done: true });
  });

  it('sends heartbeat comments, and 404s for an unknown job', async () => {
    const abort = new AbortController();
    const res = await progressEventStream(kit.db, jobId, abort.signal, 20);
    const reader = res.body!.getReader();
    expect(await readUntil(reader, ': heartbeat')).toContain(': heartbeat\n\n');
    abort.abort();
    const missing = await stream.GET(new Request('http://localhost/x', { headers: { authorization: `Bearer ${kit.tokens.viewer}` } }), { params: Promise.resolve({ id: 'nope' }) });
    expect(missing.status).toBe(404);
  });
});
