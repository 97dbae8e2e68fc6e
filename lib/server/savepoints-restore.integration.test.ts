/**
 * Savepoints of a running job and the way back from them, over checkpoints the real engine writes:
 * - savepoints taken while a stateful query runs batches (retention and state snapshots purging
 *   underneath) are each consistent: a query restored from one finishes with exactly the result
 *   of the uninterrupted run, so its offsets, commits, state and source log agree;
 * - reset to a savepoint is admin only, asks for the re-emission to be acknowledged, keeps the
 *   old checkpoint as a savepoint, writes a new query id; the next run re-emits the batches after
 *   the savepoint into a transactional postgres sink instead of skipping them, and the duplicate
 *   diagnosis names that restore (when, from which savepoint) as the known re-emission window;
 * - a new job from a savepoint gets a checkpoint of its own with another query id.
 */
import { formatDateTime } from '@/components/format';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import '@/lib/connectors/index';
import { checkpointFileManagerFor, FileBackedStateStoreProvider, inspectCheckpoint, MemorySinkTable, MicroBatchExecution, parseJobSpec, type StreamingQueryProgress } from '@/lib/engine';
import { verifySavepoint } from './services/savepoint-manifest';
import { filesSpec } from './testing/api-test-kit';
import { addJsonFile, useSavepointTestKit } from './testing/savepoint-test-kit';

const t = useSavepointTestKit('weir-sp-restore-');
const { dir } = t;

function engineSpec(spec: object) {
  const parsed = parseJobSpec(spec);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.spec;
}

/** What the run recorder stores per batch (the reprocessing guard reads rows from it). */
async function recordHistory(jobId: string, progress: StreamingQueryProgress[]): Promise<void> {
  await t.kit.db.batchProgress.createMany({
    data: progress.map((p) => ({ jobId, batchId: p.batchId, timestamp: new Date(), numInputRows: p.numInputRows, inputRowsPerSecond: 0, processedRowsPerSecond: 0, batchDurationMs: 0, durationMs: {}, progress: p as never })),
    skipDuplicates: true,
  });
}

describe('savepoints of a running job', () => {
  it('are each consistent while batches commit, retention purges and state snapshots roll', async () => {
    const base = path.join(dir, 'running');
    const inDir = path.join(base, 'in');
    mkdirSync(inDir, { recursive: true });
    const id = await t.createJob(filesSpec('running-agg', base));
    const job = await t.kit.db.job.findUniqueOrThrow({ where: { id } });
    await t.kit.db.job.update({ where: { id }, data: { status: 'RUNNING' } });
    const spec = (table: string, checkpointLocation: string) =>
      engineSpec({
        name: 'running-agg',
        source: { name: 'clicks', type: 'files', options: { path: inDir, format: 'json', maxFilesPerTrigger: 1 }, schema: [{ name: 'user', type: 'string' }, { name: 'n', type: 'long' }] },
        sql: 'SELECT user, count(*) AS c, sum(n) AS s FROM clicks GROUP BY user',
        sink: { type: 'memory', options: { table } },
        outputMode: 'complete',
        trigger: { type: 'processing-time', interval: '0 seconds' },
        minBatchesToRetain: 3,
        checkpointLocation,
      });
    // Snapshots every 2 versions and only 2 retained: retention deletes state files all along.
    const provider = (cp: Parameters<NonNullable<ConstructorParameters<typeof MicroBatchExecution>[0]['stateStoreProvider']>>[1], sid: { operatorId: number; partitionId: number }) =>
      new FileBackedStateStoreProvider(cp, sid, { minDeltasForSnapshot: 2, minVersionsToRetain: 2 });
    const exec = new MicroBatchExecution({ spec: spec('sp-running', job.checkpointLocation), stateStoreProvider: (sid, cp) => provider(cp, sid) });
    const rowsOf = (no: number) => Array.from({ length: 5 }, (_, i) => ({ user: `u${(no + i) % 7}`, n: no * 10 + i }));
    const FILES = 24;
    let done = false;
    const running = (async () => {
      while (!done) {
        await exec.processAllAvailable();
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const taken: { id: string; location: string; batchId: number }[] = [];
    for (let no = 0; no < FILES; no++) {
      addJsonFile(inDir, no, rowsOf(no));
      if (no < 2) continue;
      if (no === 2) for (let w = 0; w < 600 && !existsSync(path.join(job.checkpointLocation, 'commits', '0')); w++) await new Promise((r) => setTimeout(r, 50));
      const res = await t.kit.call(t.routes.savepoints.POST, `/api/jobs/${id}/savepoints`, { method: 'POST', token: t.kit.tokens.operator, params: { id }, body: { name: `while-running-${no}` } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      taken.push(res.body);
    }
    done = true;
    await running;
    await exec.processAllAvailable();
    await exec.stop();
    const expected = MemorySinkTable.named('sp-running').rows.map((r) => JSON.stringify(r)).sort();
    expect(expected).toHaveLength(7);
    const lastBatch = Math.max(...MemorySinkTable.named('sp-running').batches.map((b) => b.batchId));
    // Taken mid-run: not all at the end.
    expect(taken.some((t) => t.batchId < lastBatch)).toBe(true);

    for (const [i, t] of taken.entries()) {
      const copy = checkpointFileManagerFor(t.location);
      const manifest = await verifySavepoint(copy);
      // Exactly commit N: nothing of a later batch.
      expect(manifest.files.some((f) => f.path === `commits/${t.batchId}`)).toBe(true);
      expect(manifest.files.some((f) => /^(offsets|commits)\/(\d+)$/.test(f.path) && Number(f.path.split('/')[1]) > t.batchId)).toBe(false);
      const info = await inspectCheckpoint(copy);
      expect(info.problems).toEqual([]);
      expect(info.pendingBatch).toBeNull();
      // Restored on its own checkpoint, the query finishes with the uninterrupted run's result.
      const cp = path.join(dir, 'restored', String(i));
      mkdirSync(cp, { recursive: true });
      const fm = checkpointFileManagerFor(cp);
      for (const f of manifest.files) await fm.createAtomic(f.path, await copy.read(f.path));
      const table = `sp-restored-${i}`;
      const again = new MicroBatchExecution({ spec: spec(table, cp), stateStoreProvider: (sid, c) => provider(c, sid) });
      await again.processAllAvailable();
      await again.stop();
      expect(MemorySinkTable.named(table).batches[0]?.batchId ?? t.batchId + 1, `savepoint ${i}`).toBe(t.batchId + 1);
      if (t.batchId < lastBatch) expect(MemorySinkTable.named(table).rows.map((r) => JSON.stringify(r)).sort(), `savepoint ${i} at batch ${t.batchId}`).toEqual(expected);
    }
  }, 300_000);
});

describe('reset to a savepoint, and a new job from one', () => {
  it('re-emits the batches after the savepoint into a transactional sink under a new query id', async () => {
    const base = path.join(dir, 'reset');
    const inDir = path.join(base, 'in');
    mkdirSync(inDir, { recursive: true });
    const table = 'sp_reset_out';
    const apiSpec = {
      ...filesSpec('reset-pg', base),
      source: { name: 'orders', type: 'files', options: { path: inDir, format: 'json', maxFilesPerTrigger: 1 }, schema: [{ name: 'order_id', type: 'long' }] },
      sql: 'SELECT order_id FROM orders',
      sink: { type: 'postgres', options: { connectionString: t.kit.database.url, table, mode: 'transactional', batchIdColumn: 'weir_batch_id' } },
    };
    const id = await t.createJob(apiSpec);
    const job = await t.kit.db.job.findUniqueOrThrow({ where: { id } });
    const run = async () => {
      const progress: StreamingQueryProgress[] = [];
      const exec = new MicroBatchExecution({ spec: engineSpec({ ...apiSpec, checkpointLocation: job.checkpointLocation }), onProgress: (p) => void progress.push(p) });
      await exec.processAllAvailable();
      await exec.stop();
      await recordHistory(id, progress.filter((p) => p.numInputRows > 0));
    };
    const file = (no: number) => addJsonFile(inDir, no, [0, 1, 2].map((i) => ({ order_id: no * 10 + i })));
    for (let no = 0; no < 3; no++) file(no);
    await run(); // batches 0-2
    const sp = await t.kit.call(t.routes.savepoints.POST, `/api/jobs/${id}/savepoints`, { method: 'POST', token: t.kit.tokens.operator, params: { id }, body: { name: 'at-2' } });
    expect(sp.status, JSON.stringify(sp.body)).toBe(201);
    expect(sp.body.batchId).toBe(2);
    file(3);
    file(4);
    await run(); // batches 3-4
    const oldQueryId = JSON.parse(readFileSync(path.join(job.checkpointLocation, 'metadata'), 'utf8')).id;
    const client = new pg.Client({ connectionString: t.kit.database.url });
    await client.connect();
    try {
      const countBy = async () => (await client.query(`SELECT weir_batch_id AS b, count(*)::int AS n FROM ${table} GROUP BY 1 ORDER BY 1`)).rows.map((r) => [Number(r.b), r.n]);
      expect(await countBy()).toEqual([[0, 3], [1, 3], [2, 3], [3, 3], [4, 3]]);

      const spId: string = sp.body.id;
      const url = `/api/jobs/${id}/savepoints/${spId}/restore`;
      const reset = (token: string, body: object) => t.kit.call(t.routes.restore.POST, url, { method: 'POST', token, params: { id, savepointId: spId }, body });
      expect((await reset(t.kit.tokens.viewer, { confirm: 'reset-pg' })).status).toBe(403);
      expect((await reset(t.kit.tokens.operator, { confirm: 'reset-pg' })).status).toBe(403);
      expect((await reset(t.kit.tokens.admin, { confirm: 'wrong' })).status).toBe(400);
      const unknown = await t.kit.call(t.routes.restore.POST, `/api/jobs/${id}/savepoints/nope/restore`, { method: 'POST', token: t.kit.tokens.admin, params: { id, savepointId: 'nope' }, body: { confirm: 'reset-pg' } });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.message).toBe(`savepoint nope does not exist. List them with GET /api/jobs/${id}/savepoints.`);
      await t.kit.db.job.update({ where: { id }, data: { status: 'RUNNING' } });
      expect((await reset(t.kit.tokens.admin, { confirm: 'reset-pg', acknowledgeReprocessing: true })).status).toBe(409);
      await t.kit.db.job.update({ where: { id }, data: { status: 'STOPPED' } });
      const asked = await reset(t.kit.tokens.admin, { confirm: 'reset-pg' });
      expect(asked.status).toBe(409);
      expect(asked.body.error).toMatchObject({ code: 'REPROCESSING_NOT_ACKNOWLEDGED', details: { cause: 'restore-savepoint', batches: 2, firstBatchId: 3, lastBatchId: 4, historyRows: 6, newQueryIdMatters: true } });
      expect(asked.body.error.message).toMatch(/new query id/);
      expect(await countBy()).toHaveLength(5); // nothing touched

      const done = await reset(t.kit.tokens.admin, { confirm: 'reset-pg', acknowledgeReprocessing: true });
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(done.body).toMatchObject({ nextBatchId: 3, reEmittedBatches: 2 });
      expect(done.body.queryId).not.toBe(oldQueryId);
      expect(JSON.parse(readFileSync(path.join(job.checkpointLocation, 'metadata'), 'utf8')).id).toBe(done.body.queryId);
      // The checkpoint as it was is kept as a savepoint at batch 4.
      expect(done.body.backup).toMatchObject({ batchId: 4, name: expect.stringMatching(/^before-restore-/) });
      await verifySavepoint(checkpointFileManagerFor(done.body.backup.location));
      expect((await inspectCheckpoint(checkpointFileManagerFor(job.checkpointLocation))).commits.at(-1)?.batchId).toBe(2);
      expect(await t.kit.db.batchProgress.count({ where: { jobId: id, batchId: { gt: 2 } } })).toBe(0);
      const audit = await t.kit.db.auditEvent.findFirstOrThrow({ where: { targetId: id, action: 'job.restore-savepoint' } });
      expect(audit.after).toMatchObject({ savepointId: spId, batchId: 2, acknowledgedReprocessing: true, reEmittedBatches: 2, queryId: done.body.queryId });

      // The next run re-emits batches 3 and 4: the sink takes them as new, none is skipped.
      await run();
      expect(await countBy()).toEqual([[0, 3], [1, 3], [2, 3], [3, 6], [4, 6]]);

      // The duplicate diagnosis names the restore as the known re-emission window (when, by whom,
      // from which savepoint), not a lost checkpoint: its new query id is the restore's own.
      const diag = await t.kit.call(t.routes.diagnosis.GET, `/api/jobs/${id}/duplicate-diagnosis`, { token: t.kit.tokens.viewer, params: { id } });
      expect(diag.status, JSON.stringify(diag.body)).toBe(200);
      expect(diag.body.verdict, diag.body.summary).toBe('savepoint-restore');
      expect(diag.body.findings).toHaveLength(1);
      expect(diag.body.findings[0]).toMatchObject({
        kind: 'savepoint-restore',
        batches: [3, 4],
        rows: 6,
        event: { kind: 'savepoint-restore', savepointId: spId, savepoint: 'at-2', batchId: 2, actor: 'token:admin-token', acknowledged: true, queryId: done.body.queryId, at: audit.createdAt.toISOString() },
      });
      expect(diag.body.summary).toContain('at-2');
      expect(diag.body.summary).toContain(formatDateTime(audit.createdAt));
      expect(diag.body.summary).not.toMatch(/lost or replaced|Checkpoint loss/);
      expect(diag.body.evidence.losses).toEqual([]);

      // A new job from the savepoint: its own checkpoint at batch 2, another query id.
      const nj = (token: string, body: object) => t.kit.call(t.routes.newJob.POST, `/api/jobs/${id}/savepoints/${spId}/new-job`, { method: 'POST', token, params: { id, savepointId: spId }, body });
      expect((await nj(t.kit.tokens.operator, { name: 'reset-pg-copy', acknowledgeReprocessing: true })).status).toBe(403);
      expect((await nj(t.kit.tokens.admin, { name: 'reset-pg-copy' })).body.error.code).toBe('REPROCESSING_NOT_ACKNOWLEDGED');
      const made = await nj(t.kit.tokens.admin, { name: 'reset-pg-copy', acknowledgeReprocessing: true });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect(made.body.job).toMatchObject({ name: 'reset-pg-copy', status: 'STOPPED' });
      const copyJob = await t.kit.db.job.findUniqueOrThrow({ where: { id: made.body.job.id } });
      expect(copyJob.checkpointLocation).not.toBe(job.checkpointLocation);
      const copyInfo = await inspectCheckpoint(checkpointFileManagerFor(copyJob.checkpointLocation));
      expect(copyInfo.commits.at(-1)?.batchId).toBe(2);
      expect([oldQueryId, done.body.queryId]).not.toContain(copyInfo.id);
      expect(await t.kit.db.auditEvent.count({ where: { targetId: copyJob.id, action: 'job.new-from-savepoint' } })).toBe(1);
    } finally {
      await client.end();
    }
  }, 300_000);
});
