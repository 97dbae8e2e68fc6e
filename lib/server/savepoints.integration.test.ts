/**
 * Savepoints through the API, over a checkpoint the real engine wrote: a stopped job's copy holds
 * its last commit with every file checksummed and read back; a damaged copy is caught; a running
 * job's savepoint is taken the same way; a viewer may list but not take one; taking one is
 * audited.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpointFileManagerFor, MicroBatchExecution, parseJobSpec } from '@/lib/engine';
import { verifySavepoint } from './services/savepoint-manifest';
import { filesSpec } from './testing/api-test-kit';
import { useSavepointTestKit } from './testing/savepoint-test-kit';

const t = useSavepointTestKit('weir-savepoints-');
const { dir } = t;

describe('POST /api/jobs/:id/savepoints', () => {
  it('copies a stopped job’s checkpoint at its last commit with checksums, lists it, and audits it', async () => {
    const created = await t.kit.call(t.routes.jobs.POST, '/api/jobs', { method: 'POST', token: t.kit.tokens.admin, body: { spec: filesSpec('kept', dir) } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id: string = created.body.job.id;
    const take = (token: string, body: unknown = { name: 'before-upgrade' }) => t.kit.call(t.routes.savepoints.POST, `/api/jobs/${id}/savepoints`, { method: 'POST', token, params: { id }, body });

    // Nothing committed yet: nothing to keep.
    expect((await take(t.kit.tokens.operator)).status).toBe(409);

    mkdirSync(path.join(dir, 'in'), { recursive: true });
    writeFileSync(path.join(dir, 'in', 'a.json'), '{"user":"a","n":1}\n{"user":"b","n":2}\n');
    const stored = await t.kit.db.job.findUniqueOrThrow({ where: { id } });
    const parsed = parseJobSpec({ ...(stored.spec as object), checkpointLocation: stored.checkpointLocation });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const exec = new MicroBatchExecution({ spec: parsed.spec });
    await exec.processAllAvailable();
    writeFileSync(path.join(dir, 'in', 'b.json'), '{"user":"c","n":3}\n');
    await exec.processAllAvailable();
    await exec.stop();

    expect((await take(t.kit.tokens.viewer)).status).toBe(403);
    expect((await take(t.kit.tokens.operator, { name: 'bad name/..' })).status).toBe(400);
    const res = await take(t.kit.tokens.operator);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ jobId: id, name: 'before-upgrade', batchId: 1, createdBy: 'token:operator-token' });
    expect(res.body.fileCount).toBeGreaterThanOrEqual(5); // metadata, offsets/0-1, commits/0-1, the files source's log
    expect(res.body.location.startsWith(path.join(dir, 'cp', 'savepoints', id))).toBe(true);
    // The copy holds what the checkpoint holds, and every file matches its checksum.
    const copy = checkpointFileManagerFor(res.body.location);
    const manifest = await verifySavepoint(copy);
    expect(manifest.files.map((f) => f.path)).toEqual(expect.arrayContaining(['metadata', 'offsets/1', 'commits/1']));
    expect(readdirSync(path.join(res.body.location, 'commits')).sort()).toEqual(['0', '1']);
    // The same name again is refused; the list has it; the audit log says who took it.
    expect((await take(t.kit.tokens.operator)).status).toBe(409);
    const list = await t.kit.call(t.routes.savepoints.GET, `/api/jobs/${id}/savepoints`, { token: t.kit.tokens.viewer, params: { id } });
    expect(list.body.items.map((s: { name: string }) => s.name)).toEqual(['before-upgrade']);
    expect(await t.kit.db.auditEvent.count({ where: { action: 'job.savepoint', targetId: id } })).toBe(1);

    // A damaged copy is caught by its checksums.
    writeFileSync(path.join(res.body.location, 'commits', '1'), 'tampered');
    await expect(verifySavepoint(copy)).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('commits/1') });

    // A running job's savepoint is the same copy of its last commit (savepoints-restore.integration.test.ts runs one).
    await t.kit.db.job.update({ where: { id }, data: { status: 'RUNNING' } });
    const running = await take(t.kit.tokens.operator, { name: 'while-running' });
    expect(running.status, JSON.stringify(running.body)).toBe(201);
    expect(running.body.batchId).toBe(1);
  }, 120_000);
});
