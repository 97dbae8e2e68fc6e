/**
 * Safe edits: saving a changed spec of a job whose checkpoint holds batches runs the restart
 * check first. A windowed count whose window goes from 10 to 15 minutes is refused with 409
 * INCOMPATIBLE_QUERY_CHANGE naming the change and both ways out, and nothing is saved; a change
 * Spark allows (a filter before the aggregation) is saved; the editor's draft check gives the
 * same verdict live; and saving the refused change as a new job works. The checkpoint is written
 * by the real engine (MicroBatchExecution over the job's own files), not faked.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MicroBatchExecution, parseJobSpec } from '@/lib/engine';
import { setupApiTestKit, type ApiTestKit } from './testing/api-test-kit';

const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-safe-edit-'));
let kit: ApiTestKit;
let jobs: typeof import('@/app/api/jobs/route');
let job: typeof import('@/app/api/jobs/[id]/route');
let draft: typeof import('@/app/api/jobs/draft-check/route');

const windowSql = (w: string, where = '') => `SELECT window(ts, '${w}') AS w, region, count(*) AS n FROM events ${where} GROUP BY window(ts, '${w}'), region`;

function spec(sql: string, name = 'windowed') {
  return {
    name,
    source: {
      name: 'events',
      type: 'files',
      options: { path: path.join(dir, 'in'), format: 'json' },
      schema: [{ name: 'ts', type: 'timestamp' }, { name: 'region', type: 'string' }],
      eventTime: 'ts',
      watermarkDelay: '5 minutes',
    },
    sql,
    sink: { type: 'files', options: { path: path.join(dir, `out-${name}`), format: 'json' } },
    outputMode: 'append',
    trigger: { type: 'processing-time', interval: '1 second' },
  };
}

beforeAll(async () => {
  kit = await setupApiTestKit({ checkpointRoot: path.join(dir, 'cp'), filesRoots: [dir] });
  jobs = await import('@/app/api/jobs/route');
  job = await import('@/app/api/jobs/[id]/route');
  draft = await import('@/app/api/jobs/draft-check/route');
  mkdirSync(path.join(dir, 'in'), { recursive: true });
  mkdirSync(path.join(dir, 'cp'), { recursive: true });
}, 60_000);

afterAll(async () => {
  await kit?.teardown();
  rmSync(dir, { recursive: true, force: true });
});

describe('PUT /api/jobs/:id of a job with a checkpoint', () => {
  it('refuses an incompatible change with 409 naming it and both ways out, live in the draft check too; allows a compatible one', async () => {
    const created = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: { spec: spec(windowSql('10 minutes')) } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id: string = created.body.job.id;
    const checkDraft = async (sql: string) =>
      (await kit.call(draft.POST, '/api/jobs/draft-check', { method: 'POST', token: kit.tokens.viewer, body: { spec: spec(sql), jobId: id } })).body.restartCheck;

    // Before any batch, the checkpoint holds nothing to break: any change is fine.
    expect(await checkDraft(windowSql('15 minutes'))).toEqual({ compatible: true, checkpointHasBatches: false });

    // The real engine runs the stored spec: batches and state in the job's checkpoint.
    writeFileSync(path.join(dir, 'in', 'a.json'), ['{"ts":"2026-12-01T10:01:00Z","region":"eu"}', '{"ts":"2026-12-01T10:02:00Z","region":"us"}'].join('\n') + '\n');
    const stored = await kit.db.job.findUniqueOrThrow({ where: { id } });
    const parsed = parseJobSpec({ ...(stored.spec as object), checkpointLocation: stored.checkpointLocation });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const exec = new MicroBatchExecution({ spec: parsed.spec });
    await exec.processAllAvailable();
    await exec.stop();
    expect(exec.lastProgress?.batchId).toBeGreaterThanOrEqual(0);

    // Live: the editor is told before saving.
    const live = await checkDraft(windowSql('15 minutes'));
    expect(live).toMatchObject({ compatible: false, checkpointHasBatches: true, details: { waysOut: ['revert', 'save-as-new-job'] } });
    expect(live.message).toMatch(/window/i);

    const put = await kit.call(job.PUT, `/api/jobs/${id}`, { method: 'PUT', token: kit.tokens.admin, params: { id }, body: { spec: spec(windowSql('15 minutes')) } });
    expect(put.status).toBe(409);
    expect(put.body.error.code).toBe('INCOMPATIBLE_QUERY_CHANGE');
    // Names the change (old and new window) and the two ways out.
    expect(put.body.error.message).toMatch(/10 minutes/);
    expect(put.body.error.message).toMatch(/15 minutes/);
    expect(put.body.error.message).toMatch(/revert/i);
    expect(put.body.error.message).toMatch(/Save as a new job/);
    expect(put.body.error.details.waysOut).toEqual(['revert', 'save-as-new-job']);
    // Nothing was saved, nothing audited.
    expect((await kit.db.job.findUniqueOrThrow({ where: { id } })).sql).toBe(windowSql('10 minutes'));
    expect(await kit.db.auditEvent.count({ where: { action: 'job.update', targetId: id } })).toBe(0);

    // A filter before the aggregation is a change Spark allows: saved.
    const filtered = windowSql('10 minutes', "WHERE region <> 'xx'");
    expect(await checkDraft(filtered)).toEqual({ compatible: true, checkpointHasBatches: true });
    const ok = await kit.call(job.PUT, `/api/jobs/${id}`, { method: 'PUT', token: kit.tokens.admin, params: { id }, body: { spec: spec(filtered) } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);

    // The second way out: the same change as a new job, on its own new checkpoint.
    const copy = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: { spec: spec(windowSql('15 minutes'), 'windowed-15m') } });
    expect(copy.status, JSON.stringify(copy.body)).toBe(201);
    expect(copy.body.job.checkpointLocation).not.toBe(stored.checkpointLocation);
  }, 120_000);
});
