/**
 * Savepoints when something goes wrong, each once a 500 or an untrue message:
 * - two restores of one job at once: the loser hit "commits/0 already exists" (500); now 409
 *   CONFLICT saying another restore is in progress or has just finished, and the winner's
 *   restore stands;
 * - a savepoint whose directory was removed, or a file where `savepoints/<job>` should be: 500;
 *   now 409 naming the path and what to do, with the job's checkpoint untouched;
 * - a restore that storage refuses half-way (ENOSPC on the Nth file) said "Nothing half-written
 *   was left; the job resumes from the last committed batch" while it left offsets and commits
 *   without metadata. Now the files it wrote are removed and the checkpoint put back as it was,
 *   and the message says so; where even that fails, the message says what is left (a checkpoint
 *   a start refuses), where the old one is kept, and what to do. A new job from a savepoint that
 *   storage refuses is not created, and what was written of its checkpoint is removed.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpointFileManagerFor, CheckpointWriteFailedError, MicroBatchExecution, parseJobSpec, type CheckpointFileManager } from '@/lib/engine';
import type { Principal } from './auth';
import { newJobFromSavepoint, restoreSavepoint } from './services/savepoint-service';
import { filesSpec } from './testing/api-test-kit';
import { useSavepointTestKit } from './testing/savepoint-test-kit';

const t = useSavepointTestKit('weir-sp-fail-');
const { dir } = t;

/** A stopped job whose checkpoint holds batches 0-2, with a savepoint `at-1` taken after batch 1. */
async function prepare(name: string) {
  const base = path.join(dir, name);
  mkdirSync(path.join(base, 'in'), { recursive: true });
  const created = await t.kit.call(t.routes.jobs.POST, '/api/jobs', { method: 'POST', token: t.kit.tokens.admin, body: { spec: filesSpec(name, base) } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id: string = created.body.job.id;
  const job = await t.kit.db.job.findUniqueOrThrow({ where: { id } });
  const parsed = parseJobSpec({ ...(job.spec as object), checkpointLocation: job.checkpointLocation });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  const batch = async (no: number) => {
    writeFileSync(path.join(base, 'in', `${no}.json`), `{"user":"u${no}","n":${no + 1}}\n`);
    const exec = new MicroBatchExecution({ spec: parsed.spec });
    await exec.processAllAvailable();
    await exec.stop();
  };
  await batch(0);
  await batch(1);
  const sp = await t.kit.call(t.routes.savepoints.POST, `/api/jobs/${id}/savepoints`, { method: 'POST', token: t.kit.tokens.operator, params: { id }, body: { name: 'at-1' } });
  expect(sp.status, JSON.stringify(sp.body)).toBe(201);
  await batch(2);
  const restoreCall = () =>
    t.kit.call(t.routes.restore.POST, `/api/jobs/${id}/savepoints/${sp.body.id}/restore`, { method: 'POST', token: t.kit.tokens.admin, params: { id, savepointId: sp.body.id }, body: { confirm: name, acknowledgeReprocessing: true } });
  return { id, name, base, job, savepoint: sp.body as { id: string; location: string; name: string }, restoreCall, checkpoint: () => snapshot(job.checkpointLocation) };
}

/** Every file under `root` (hidden temp files included) with its SHA-256. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(root, p)] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  if (existsSync(root)) walk(root);
  return out;
}

const admin: Principal = { actor: 'token:admin-token', role: 'admin', via: 'bearer' };

/** The job's checkpoint storage, refusing with ENOSPC every create from the `from`-th on (1-based) up to `until`. */
function fullDisk(inner: CheckpointFileManager, from: number, until = Number.POSITIVE_INFINITY): CheckpointFileManager & { creates: number } {
  const fm = Object.create(inner) as CheckpointFileManager & { creates: number };
  fm.creates = 0;
  fm.createAtomic = async (p, data, opts) => {
    fm.creates++;
    if (fm.creates >= from && fm.creates <= until) throw new CheckpointWriteFailedError(`${inner.description}/${p}`, 'ENOSPC', 'no space left on device, write');
    return inner.createAtomic(p, data, opts);
  };
  return fm;
}

function serviceCtx(files?: (location: string) => CheckpointFileManager) {
  return { db: t.kit.db, principal: admin, checkpointRoot: path.join(dir, 'cp'), filesRoots: [dir], enqueue: async () => 'never', ...(files ? { checkpointFiles: files } : {}) };
}

describe('two restores of one job at once', () => {
  it('one restores, the others get 409 CONFLICT saying another restore is in progress or finished; none is a 500', async () => {
    const p = await prepare('sp-race');
    const answers = await Promise.all([p.restoreCall(), p.restoreCall(), p.restoreCall()]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses, JSON.stringify(answers.map((a) => a.body))).toEqual([200, 409, 409]);
    for (const lost of answers.filter((a) => a.status === 409)) {
      expect(lost.body.error.code).toBe('CONFLICT');
      expect(lost.body.error.message).toMatch(/another restore of sp-race (is in progress|has just finished)/i);
      expect(lost.body.error.message).toMatch(/GET \/api\/jobs\/[\w-]+/);
    }
    const won = answers.find((a) => a.status === 200)!;
    // The winner's restore stands: its query id in the checkpoint and the row, the lease released.
    const job = await t.kit.db.job.findUniqueOrThrow({ where: { id: p.id } });
    expect(JSON.parse(readFileSync(path.join(job.checkpointLocation, 'metadata'), 'utf8')).id).toBe(won.body.queryId);
    expect(job).toMatchObject({ queryId: won.body.queryId, lastBatchId: 1, leaseOwner: null });
    expect(await t.kit.db.auditEvent.count({ where: { targetId: p.id, action: 'job.restore-savepoint' } })).toBe(1);
    // Afterwards a restore goes through again.
    expect((await p.restoreCall()).status).toBe(200);
  }, 120_000);
});

describe('a savepoint whose files are gone', () => {
  it('a removed savepoint directory is 409 naming it, for a restore and a new job; the checkpoint is untouched', async () => {
    const p = await prepare('sp-removed');
    const before = p.checkpoint();
    rmSync(p.savepoint.location, { recursive: true, force: true });
    const res = await p.restoreCall();
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(p.savepoint.location) });
    expect(res.body.error.message).toMatch(/removed/);
    expect(p.checkpoint()).toEqual(before);
    const nj = await t.kit.call(t.routes.newJob.POST, `/api/jobs/${p.id}/savepoints/${p.savepoint.id}/new-job`, { method: 'POST', token: t.kit.tokens.admin, params: { id: p.id, savepointId: p.savepoint.id }, body: { name: 'sp-removed-copy', acknowledgeReprocessing: true } });
    expect(nj.status, JSON.stringify(nj.body)).toBe(409);
    expect(await t.kit.db.job.count({ where: { name: 'sp-removed-copy' } })).toBe(0);
  }, 120_000);

  it('a file where savepoints/<job> should be is 409 naming it, for taking a savepoint and for a restore', async () => {
    const p = await prepare('sp-file');
    const before = p.checkpoint();
    const jobDir = path.dirname(p.savepoint.location);
    rmSync(jobDir, { recursive: true, force: true });
    writeFileSync(jobDir, 'not a directory');
    const take = await t.kit.call(t.routes.savepoints.POST, `/api/jobs/${p.id}/savepoints`, { method: 'POST', token: t.kit.tokens.operator, params: { id: p.id }, body: { name: 'again' } });
    expect(take.status, JSON.stringify(take.body)).toBe(409);
    expect(take.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(jobDir) });
    expect(take.body.error.message).toMatch(/not a directory/);
    const res = await p.restoreCall();
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.error.code).toBe('CONFLICT');
    expect(p.checkpoint()).toEqual(before);
    expect(statSync(jobDir).isFile()).toBe(true);
  }, 120_000);
});

describe('a restore that storage refuses half-way', () => {
  it('removes what it wrote, puts the checkpoint back as it was, and says so', async () => {
    const p = await prepare('sp-enospc');
    const before = p.checkpoint();
    const jobBefore = await t.kit.db.job.findUniqueOrThrow({ where: { id: p.id } });
    let disk: ReturnType<typeof fullDisk> | undefined;
    // The 3rd file written into the checkpoint finds the disk full; the put-back writes succeed.
    const ctx = serviceCtx((loc) => (disk = fullDisk(checkpointFileManagerFor(loc), 3, 3)));
    const err = await restoreSavepoint(ctx, p.id, p.savepoint.id, { confirm: p.name, acknowledgeReprocessing: true }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CHECKPOINT_WRITE_FAILED', details: { errno: 'ENOSPC', checkpoint: 'as-before' } });
    const message = (err as Error).message;
    expect(message).not.toMatch(/Nothing half-written was left; the job resumes/);
    expect(message).toMatch(/free space/i);
    expect(message).toMatch(/put back as it was/);
    expect(disk!.creates).toBeGreaterThan(3);
    expect(p.checkpoint()).toEqual(before);
    const jobAfter = await t.kit.db.job.findUniqueOrThrow({ where: { id: p.id } });
    expect({ queryId: jobAfter.queryId, lastBatchId: jobAfter.lastBatchId, leaseOwner: jobAfter.leaseOwner }).toEqual({ queryId: jobBefore.queryId, lastBatchId: jobBefore.lastBatchId, leaseOwner: null });
    // With space again, the same restore goes through.
    expect((await p.restoreCall()).status).toBe(200);
  }, 120_000);

  it('when the put-back fails too, says what is left, that a start refuses it, where the old checkpoint is kept and what to do', async () => {
    const p = await prepare('sp-enospc-stuck');
    // From the 3rd create on, every write fails: the restore and the put-back alike.
    const ctx = serviceCtx((loc) => fullDisk(checkpointFileManagerFor(loc), 3));
    const err = await restoreSavepoint(ctx, p.id, p.savepoint.id, { confirm: p.name, acknowledgeReprocessing: true }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CHECKPOINT_WRITE_FAILED', details: { errno: 'ENOSPC', checkpoint: 'partial', backupSavepointId: expect.any(String) } });
    const message = (err as Error).message;
    expect(message).not.toMatch(/Nothing half-written was left/);
    expect(message).toMatch(/without its metadata/);
    expect(message).toMatch(/CORRUPT_CHECKPOINT/);
    expect(message).toMatch(/before-restore-/);
    // What the message says is true: files without metadata, which a run refuses.
    const left = Object.keys(p.checkpoint());
    expect(left.length).toBeGreaterThan(0);
    expect(left).not.toContain('metadata');
    const job = await t.kit.db.job.findUniqueOrThrow({ where: { id: p.id } });
    const parsed = parseJobSpec({ ...(job.spec as object), checkpointLocation: job.checkpointLocation });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    await expect(new MicroBatchExecution({ spec: parsed.spec }).processAllAvailable()).rejects.toMatchObject({ code: 'CORRUPT_CHECKPOINT' });
    // Sent again once storage is fixed, the restore replaces the partial files; no backup is
    // taken of a checkpoint without metadata (the real one is already kept).
    const backups = await t.kit.db.savepoint.count({ where: { jobId: p.id, name: { startsWith: 'before-restore-' } } });
    const again = await p.restoreCall();
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.backup).toBeUndefined();
    expect(await t.kit.db.savepoint.count({ where: { jobId: p.id, name: { startsWith: 'before-restore-' } } })).toBe(backups);
    expect(JSON.parse(readFileSync(path.join(job.checkpointLocation, 'metadata'), 'utf8')).id).toBe(again.body.queryId);
  }, 120_000);

  it('a new job from a savepoint that storage refuses half-way is not created, and leaves no files behind', async () => {
    const p = await prepare('sp-newjob-full');
    const root = path.join(dir, 'cp');
    const before = readdirSync(root).sort();
    const ctx = serviceCtx((loc) => fullDisk(checkpointFileManagerFor(loc), 2, 2));
    const err = await newJobFromSavepoint(ctx, p.id, p.savepoint.id, { name: 'sp-newjob-copy', acknowledgeReprocessing: true }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CHECKPOINT_WRITE_FAILED', details: { errno: 'ENOSPC' } });
    expect((err as Error).message).not.toMatch(/the job resumes/);
    expect((err as Error).message).toMatch(/sp-newjob-copy was not created/);
    expect(await t.kit.db.job.count({ where: { name: 'sp-newjob-copy' } })).toBe(0);
    for (const entry of readdirSync(root).filter((e) => !before.includes(e))) expect(snapshot(path.join(root, entry)), entry).toEqual({});
  }, 120_000);
});
