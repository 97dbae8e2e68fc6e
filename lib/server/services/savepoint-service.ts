/**
 * Savepoints, as Flink users know them: a named, consistent copy of a job's checkpoint at a commit
 * boundary, taken before an upgrade to keep a known-good state, and the way back to it.
 *
 * Taking one, running or stopped alike: the copy is exactly what the last commit N references,
 * read while the job goes on (no pause). That is safe with the engine's file layout because every
 * file commit N needs is immutable once commit N exists, and later batches only add files:
 * - `metadata`, `offsets/k` and `commits/k` (k ≤ N) and `progress/k` are written create-if-absent;
 * - state version N+1 (what batch N committed; batch N+1 loads it) is the newest snapshot S ≤ N+1
 *   plus deltas S+1..N+1. A delta is rewritten only by a re-run of its batch, which commits/N
 *   rules out; a snapshot is only ever rewritten with the same version's rows. Files of versions
 *   above N+1 (batch N+1 committing) are left out;
 * - a source's log (`sources/<i>/`) is create-if-absent; entries a later batch planned are, for a
 *   restart from N, the next batch's range over the same input (as after a crash before offsets/N).
 * The one thing a running job does to those files is delete them (retention: offsets/commits past
 * minBatchesToRetain, state older than the retained snapshot, source-log deltas a compaction
 * folded in). So the copy re-checks instead of pinning: a file gone between the listing and its
 * read, or a listing that no longer makes version N+1 loadable, discards the attempt and starts
 * again at the then-latest commit. Pausing the runner through the worker would also be
 * consistent, but it stalls the job for the whole copy (minutes on a big state over s3://) and
 * needs the worker alive to answer; a retried copy stalls nothing.
 *
 * The copy goes through CheckpointFileManager on both sides, so local disk, a shared volume and
 * s3:// work alike, to `<WEIR_CHECKPOINT_ROOT>/savepoints/<job id>/<savepoint id>/`, with
 * `_savepoint.json` listing every file's size and SHA-256; every file written is read back and
 * checked against it before the savepoint is recorded (and audited). No job may keep its
 * checkpoint there (job-paths.ts), and a reset or delete never deletes there (checkpoint-reset.ts).
 *
 * Restoring (admin; the job stopped): "reset to this savepoint" replaces the job's checkpoint,
 * "new job from this savepoint" creates a stopped copy of the job on a checkpoint of its own. A
 * rollback re-uses batch ids the sink has already seen, and sinks that recognize replays within
 * one query id (transactional postgres keys its marker by (query id, batch id)) would skip the
 * re-run batches: silent loss of whatever the restored job writes differently. So the restored
 * checkpoint gets a new query id in `metadata`, and the sink treats batches after the savepoint
 * as new: what they wrote is written again (at-least-once for that span, as Flink's restore from a
 * savepoint re-emits). The caller acknowledges that (REPROCESSING_NOT_ACKNOWLEDGED otherwise), and
 * the audit records it. A sink that recognizes a batch id whatever query wrote it (the files
 * sink's batch log) keeps its first output for those batch ids instead; the message says which.
 * The job's checkpoint before a reset is kept as a savepoint of its own (`before-restore-…`).
 *
 * A restore holds the job's checkpoint lease (restore-lock.ts) from before it touches the
 * checkpoint until it has recorded the result: a second restore at the same time gets 409 (it
 * once interleaved its writes with the first), and so does one whose job was restored while it
 * was on its way; a run that starts meanwhile waits for the lease. The restored files are written
 * offsets first and `metadata` last, so at every moment the checkpoint is either whole or holds
 * offsets without metadata, which a run refuses (CORRUPT_CHECKPOINT) instead of running on it.
 * A write that fails half-way (a full disk) is undone: the checkpoint is put back from the
 * backup savepoint and what the restore wrote beyond it removed. Where even that fails, the error
 * says what the checkpoint holds now, where its old content is kept, and what to do.
 */
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { checkpointFileManagerFor, CheckpointWriteFailedError, convertStateProvider, stateStoreProviderOf, storageAdvice, WeirError, type CheckpointFileManager, type StateStoreProviderName } from '@/lib/engine';
import { METADATA_PATH } from '@/lib/engine/checkpoint/stream-metadata';
import type { Job, PrismaClient } from '@/lib/generated/prisma/client';
import { requireRole, type Principal } from '../auth';
import { BadRequestError, ConflictError, NotFoundError } from '../errors';
import { refusal, transitionFor, type JobStatus } from '../job-lifecycle';
import { assertReprocessingAcknowledged } from '../contracts/reprocessing-guard';
import { openCheckpoint, walkCheckpoint } from '../checkpoint-access';
import { formatDateTime } from '@/components/format';
import { actorName } from '../actor';
import { findJobOrThrow, presentJob, type JobDetail } from '../job-view';
import { recordAudit } from './audit-service';
import { createJob, deleteOwnCheckpoint, type JobServiceContext } from './job-service';
import { savepointsDirectory } from './job-paths';
import { lockForRestore } from './restore-lock';
import { filesOfLastCommit, isGone, isNotADirectory, SAVEPOINT_MANIFEST, sha256, verifySavepoint, type Manifest, type ManifestFile } from './savepoint-manifest';
import { failedRestore, writableCheckpoint, writeRestored } from './savepoint-restore-writes';

/** Copies discarded because retention deleted a file under them, before giving up. */
const COPY_ATTEMPTS = 8;

export interface SavepointView {
  id: string;
  jobId: string;
  name: string;
  batchId: number;
  location: string;
  sizeBytes: number;
  fileCount: number;
  createdBy: string;
  createdAt: string;
}

/** A directory or s3:// prefix alike: the root (trusted configuration) with a fixed leaf. */
function savepointLocation(checkpointRoot: string, jobId: string, id: string): string {
  return `${savepointsDirectory(checkpointRoot)}/${jobId}/${id}`;
}

function view(s: { id: string; jobId: string; name: string; batchId: number; location: string; sizeBytes: bigint; fileCount: number; createdBy: string; createdAt: Date }): SavepointView {
  return { ...s, sizeBytes: Number(s.sizeBytes), createdAt: s.createdAt.toISOString() };
}

export async function listSavepoints(db: PrismaClient, jobId: string): Promise<SavepointView[]> {
  await findJobOrThrow(db, jobId);
  return (await db.savepoint.findMany({ where: { jobId }, orderBy: { createdAt: 'desc' } })).map(view);
}

/**
 * Copies what the source's last commit references into `dst` (empty), retrying from a fresh
 * listing when retention deletes a file under the copy; returns the batch id and every file's checksum.
 */
async function copyLastCommit(src: CheckpointFileManager, dst: CheckpointFileManager, what: string, written: Set<string>): Promise<{ batchId: number; files: ManifestFile[] }> {
  let last = '';
  for (let attempt = 1; attempt <= COPY_ATTEMPTS; attempt++) {
    const files: ManifestFile[] = [];
    try {
      const picked = filesOfLastCommit((await walkCheckpoint(src)).files.map((f) => f.path));
      if (picked.batchId === null) {
        if (picked.reason === 'no committed batch') throw new ConflictError(`${what} has no committed batch yet: there is nothing to keep in a savepoint. Run it first.`);
        last = picked.reason;
        continue;
      }
      for (const p of picked.paths) {
        const data = await src.read(p);
        written.add(p);
        await dst.createAtomic(p, data);
        files.push({ path: p, size: data.byteLength, sha256: sha256(data) });
      }
      return { batchId: picked.batchId, files };
    } catch (e) {
      if (!isGone(e)) throw e;
      last = `${(e as Error).message} (deleted by retention during the copy)`;
      for (const f of files) {
        await dst.delete(f.path);
        written.delete(f.path);
      }
    }
  }
  throw new ConflictError(
    `${what}'s retention deleted files faster than the savepoint could copy them (${COPY_ATTEMPTS} attempts; last: ${last}). ` +
      'Raise the job\'s minBatchesToRetain, or take the savepoint while the job is stopped.',
  );
}

/** Takes a savepoint without a role check (the callers check): the copy, its manifest read back, its row. */
async function takeSavepoint(ctx: { db: PrismaClient; principal: Principal; checkpointRoot: string }, job: Job, name: string): Promise<SavepointView> {
  const src = openCheckpoint(job.checkpointLocation, ctx.checkpointRoot);
  const id = randomUUID();
  const location = savepointLocation(ctx.checkpointRoot, job.id, id);
  const dst = checkpointFileManagerFor(location);
  const written = new Set<string>();
  let batchId: number;
  let files: ManifestFile[];
  try {
    ({ batchId, files } = await copyLastCommit(src, dst, job.name, written));
    const manifest: Manifest = { formatVersion: 1, jobId: job.id, name, batchId, source: src.description, files };
    written.add(SAVEPOINT_MANIFEST);
    await dst.createAtomic(SAVEPOINT_MANIFEST, JSON.stringify(manifest, null, 1));
    await verifySavepoint(dst);
  } catch (e) {
    // No half a savepoint is left behind: nothing refers to it (its row is written last).
    for (const p of written) await dst.delete(p).catch(() => undefined);
    throw savepointCopyError(e, ctx.checkpointRoot, job);
  }
  const sizeBytes = files.reduce((a, f) => a + f.size, 0);
  const row = await ctx.db.$transaction(async (tx) => {
    const r = await tx.savepoint.create({ data: { id, jobId: job.id, name, batchId, location, sizeBytes: BigInt(sizeBytes), fileCount: files.length, createdBy: ctx.principal.actor } });
    await recordAudit(tx, ctx.principal, { action: 'job.savepoint', targetType: 'job', targetId: job.id, after: { savepointId: id, name, batchId, location, fileCount: files.length, sizeBytes, jobStatus: job.status } });
    return r;
  });
  return view(row);
}

/** Why a savepoint copy failed, in words that are true of it (the engine's storage message speaks of a run). */
function savepointCopyError(e: unknown, checkpointRoot: string, job: Job): unknown {
  const jobDir = `${savepointsDirectory(checkpointRoot)}/${job.id}`;
  if (isNotADirectory(e)) {
    const culprit = [savepointsDirectory(checkpointRoot), jobDir].find((p) => {
      try {
        return !statSync(p).isDirectory();
      } catch {
        return false;
      }
    });
    return new ConflictError(
      `${culprit ?? jobDir} is not a directory, so no savepoint of ${job.name} can be written under ${jobDir}. Move that file away (Weir keeps its savepoints there), then take the savepoint again; the job's checkpoint was not touched.`,
      { path: culprit ?? jobDir },
    );
  }
  if (e instanceof CheckpointWriteFailedError) {
    const { file, errno, cause } = e.details as { file: string; errno: string; cause: string };
    return new WeirError(
      e.code,
      `Could not write the savepoint copy ${file}: ${errno} (${cause}). ${storageAdvice(errno, file)} The partial copy was removed and ${job.name}'s checkpoint was not touched; take the savepoint again once that is fixed.`,
      e.details,
    );
  }
  return e;
}

const stamp = () => new Date().toISOString().replace(/[:.]/g, '-');

export async function createSavepoint(
  ctx: { db: PrismaClient; principal: Principal; checkpointRoot: string },
  jobId: string,
  input: { name?: string },
): Promise<SavepointView> {
  requireRole(ctx.principal, 'operator', 'take savepoints');
  const job = await findJobOrThrow(ctx.db, jobId);
  const name = input.name?.trim() || `savepoint-${stamp()}`;
  if (await ctx.db.savepoint.findUnique({ where: { jobId_name: { jobId, name } } })) {
    throw new ConflictError(`${job.name} already has a savepoint named ${name}; choose another name.`, { path: 'name' });
  }
  return takeSavepoint(ctx, job, name);
}

async function findSavepoint(db: PrismaClient, jobId: string, savepointId: string) {
  const sp = await db.savepoint.findFirst({ where: { id: savepointId, jobId } });
  if (!sp) throw new NotFoundError('savepoint', savepointId, `/api/jobs/${jobId}/savepoints`);
  return sp;
}

/** A restore replaces the checkpoint: allowed exactly where a reset is (stopped or failed). */
function assertStopped(job: Job): void {
  if (!transitionFor('reset-checkpoint', job.status as JobStatus)) throw refusal('reset-checkpoint', job);
}

export interface RestoreResult {
  job: JobDetail;
  savepoint: SavepointView;
  /** The new query id in the restored checkpoint's metadata. */
  queryId: string;
  /** The batch the next start runs: the savepoint's batch + 1. */
  nextBatchId: number;
  /** Batches of the history after the savepoint, whose output the restored job writes again. */
  reEmittedBatches: number;
  /** The savepoint kept of the job's checkpoint as it was before the reset (none for a new job). */
  backup?: SavepointView;
  message: string;
}

function reEmitMessage(batchId: number, rows: number, batches: number, recognizedById: boolean, sinkType: string): string {
  if (batches === 0) return `The next start runs batch ${batchId + 1}, right after the savepoint's batch ${batchId}; no batch after it is recorded, so nothing is written again.`;
  return recognizedById
    ? `The next start runs batch ${batchId + 1}. The ${sinkType} sink recognizes batch ids whatever query wrote them, so it keeps its earlier output of batches ${batchId + 1}–${batchId + batches} (${rows} rows) and does not write those batch ids again.`
    : `The next start runs batch ${batchId + 1} under a new query id, so the ${sinkType} sink writes the output of the ${batches} batches after the savepoint (${rows} rows recorded) again: at-least-once for that span, as a Flink restore from a savepoint re-emits.`;
}

/** Reset a stopped job's checkpoint to a savepoint of it (admin; audited; see the header). */
export async function restoreSavepoint(
  ctx: JobServiceContext & {
    /** The storage the restored files are written through (default: the location's own); tests inject a failing one. */
    checkpointFiles?: (location: string) => CheckpointFileManager;
  },
  jobId: string,
  savepointId: string,
  input: { confirm: string; acknowledgeReprocessing?: boolean },
): Promise<RestoreResult> {
  requireRole(ctx.principal, 'admin', 'reset jobs to savepoints');
  const job = await findJobOrThrow(ctx.db, jobId);
  const sp = await findSavepoint(ctx.db, jobId, savepointId);
  if (input.confirm !== job.name) {
    throw new BadRequestError(`To reset ${job.name} to savepoint ${sp.name}, type the job's name exactly as confirmation: {"confirm": "${job.name}"}.`, { path: 'confirm', expected: job.name });
  }
  assertStopped(job);
  const risk = await assertReprocessingAcknowledged(ctx.db, job, 'restore-savepoint', input.acknowledgeReprocessing, undefined, sp.batchId);
  const src = checkpointFileManagerFor(sp.location);
  const manifest = await verifySavepoint(src);
  const lock = await lockForRestore(ctx.db, job);
  try {
    await assertUnchangedSince(ctx.db, job);
    const current = await walkCheckpoint(openCheckpoint(job.checkpointLocation, ctx.checkpointRoot));
    const paths = current.files.map((f) => f.path);
    // A checkpoint without metadata is what a failed restore leaves: not a checkpoint to keep (its backup already is).
    const backup = paths.includes(METADATA_PATH) && filesOfLastCommit(paths).batchId !== null ? await takeSavepoint(ctx, job, `before-restore-${stamp()}`) : undefined;
    await deleteOwnCheckpoint(ctx, job);
    const dst = writableCheckpoint(job.checkpointLocation, ctx.checkpointRoot, ctx.checkpointFiles);
    const written = new Set<string>();
    let queryId: string;
    try {
      queryId = await writeRestored(src, manifest, dst, written, lock);
    } catch (e) {
      throw await failedRestore(e, { dst, written, backup, job, sp });
    }
    const message = reEmitMessage(sp.batchId, risk.historyRows, risk.batches, !risk.asked && risk.batches > 0, job.sinkType);
    const row = await ctx.db.$transaction(async (tx) => {
      await tx.batchProgress.deleteMany({ where: { jobId, batchId: { gt: sp.batchId } } });
      const r = await tx.job.update({ where: { id: jobId }, data: { queryId, lastBatchId: sp.batchId } });
      await recordAudit(tx, ctx.principal, {
        action: 'job.restore-savepoint',
        targetType: 'job',
        targetId: jobId,
        before: { queryId: job.queryId, lastBatchId: job.lastBatchId, checkpointLocation: job.checkpointLocation },
        after: { savepointId: sp.id, savepoint: sp.name, batchId: sp.batchId, queryId, backupSavepointId: backup?.id ?? null, reEmittedBatches: risk.batches, reEmittedRows: risk.historyRows, acknowledgedReprocessing: input.acknowledgeReprocessing === true, message },
      });
      return r;
    });
    return { job: presentJob(row), savepoint: view(sp), queryId, nextBatchId: sp.batchId + 1, reEmittedBatches: risk.batches, ...(backup ? { backup } : {}), message };
  } finally {
    await lock.release();
  }
}

/**
 * Refuses a restore whose job changed between this request's first read and its lock: another
 * restore finished in between (or something else rewrote the checkpoint's identity), and this
 * one was decided on what the job was before.
 */
async function assertUnchangedSince(db: PrismaClient, seen: Job): Promise<void> {
  const now = await findJobOrThrow(db, seen.id);
  if (now.queryId === seen.queryId && now.lastBatchId === seen.lastBatchId && now.checkpointLocation === seen.checkpointLocation) return;
  const last = await db.auditEvent.findFirst({ where: { targetId: seen.id, action: 'job.restore-savepoint' }, orderBy: { createdAt: 'desc' } });
  const what = last
    ? `Another restore of ${seen.name} has just finished (to savepoint ${(last.after as { savepoint?: string } | null)?.savepoint ?? '?'}, by ${actorName(last.actor)} at ${formatDateTime(last.createdAt)})`
    : `${seen.name}'s checkpoint changed (query id or last batch)`;
  throw new ConflictError(
    `${what} while this request was on its way, so it was not applied. Look at the job (GET /api/jobs/${seen.id}) and its savepoints; if the checkpoint is where you want it, there is nothing left to do, otherwise send the restore again.`,
    { jobId: seen.id, reason: last ? 'restored' : 'changed' },
  );
}

/** A new stopped job with the savepoint's job's spec, a new name and a checkpoint of its own restored from the savepoint (admin; audited). */
export async function newJobFromSavepoint(
  ctx: JobServiceContext & { checkpointFiles?: (location: string) => CheckpointFileManager },
  jobId: string,
  savepointId: string,
  input: { name: string; acknowledgeReprocessing?: boolean; stateStoreProvider?: StateStoreProviderName },
): Promise<RestoreResult> {
  requireRole(ctx.principal, 'admin', 'create jobs from savepoints');
  const job = await findJobOrThrow(ctx.db, jobId);
  const sp = await findSavepoint(ctx.db, jobId, savepointId);
  // The new job writes to the same sink as the old one: the batches after the savepoint go there again.
  const risk = await assertReprocessingAcknowledged(ctx.db, job, 'new-job-from-savepoint', input.acknowledgeReprocessing, undefined, sp.batchId);
  const src = checkpointFileManagerFor(sp.location);
  const manifest = await verifySavepoint(src);
  const spec: Record<string, unknown> = { ...(job.spec as Record<string, unknown>), name: input.name };
  delete spec.checkpointLocation;
  // Another provider: the new job's spec names it, and its restored state is converted to it (the
  // way out the editor gives for a provider switch, which it refuses on an existing checkpoint).
  const fromProvider = stateStoreProviderOf(job.spec as { stateStore?: { provider: StateStoreProviderName } });
  const convertTo = input.stateStoreProvider && input.stateStoreProvider !== fromProvider ? input.stateStoreProvider : null;
  if (convertTo) spec.stateStore = { ...(spec.stateStore as object | undefined), provider: convertTo };
  const created = await createJob(ctx, { spec, description: `From savepoint ${sp.name} (batch ${sp.batchId}) of ${job.name}` });
  const fresh = await ctx.db.job.findUniqueOrThrow({ where: { id: created.job.id } });
  let queryId: string;
  const dst = writableCheckpoint(fresh.checkpointLocation, ctx.checkpointRoot, ctx.checkpointFiles);
  const written = new Set<string>();
  let converted = 0;
  try {
    queryId = await writeRestored(src, manifest, dst, written);
    if (convertTo) converted = (await convertStateProvider(dst, convertTo)).files;
  } catch (e) {
    // No job is left behind on half a checkpoint, and no half a checkpoint behind for nobody
    // (a conversion's files included: the new job's checkpoint is its own).
    await ctx.db.job.delete({ where: { id: fresh.id } });
    for (const p of written) await dst.delete(p).catch(() => undefined);
    if (convertTo) for (const f of (await walkCheckpoint(dst).catch(() => ({ files: [] }))).files) await dst.delete(f.path).catch(() => undefined);
    if (!(e instanceof CheckpointWriteFailedError)) throw e;
    const { file, errno, cause } = e.details as { file: string; errno: string; cause: string };
    throw new WeirError(
      e.code,
      `Could not write ${file}: ${errno} (${cause}). ${storageAdvice(errno, file)} The new job ${input.name} was not created and what had been written of its checkpoint was removed; ${job.name} and the savepoint are untouched. Send the request again once that is fixed.`,
      e.details,
    );
  }
  const conversion = convertTo ? ` Its state was converted from the ${fromProvider} state store to ${convertTo} (${converted} change files rewritten).` : '';
  const message = reEmitMessage(sp.batchId, risk.historyRows, risk.batches, !risk.asked && risk.batches > 0, job.sinkType) + conversion;
  const row = await ctx.db.$transaction(async (tx) => {
    const r = await tx.job.update({ where: { id: fresh.id }, data: { queryId, lastBatchId: sp.batchId } });
    await recordAudit(tx, ctx.principal, {
      action: 'job.new-from-savepoint',
      targetType: 'job',
      targetId: fresh.id,
      after: { fromJobId: job.id, sourceLastBatchId: job.lastBatchId, savepointId: sp.id, savepoint: sp.name, batchId: sp.batchId, queryId, stateStoreProvider: convertTo ?? fromProvider, reEmittedBatches: risk.batches, reEmittedRows: risk.historyRows, acknowledgedReprocessing: input.acknowledgeReprocessing === true, message },
    });
    return r;
  });
  return { job: presentJob(row), savepoint: view(sp), queryId, nextBatchId: sp.batchId + 1, reEmittedBatches: risk.batches, message };
}
