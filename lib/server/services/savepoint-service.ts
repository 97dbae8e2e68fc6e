/**
 * Savepoints, as Flink users know them: a named, consistent copy of a job's checkpoint, taken
 * before an upgrade to keep a known-good state. Consistency comes from the job being stopped: no
 * runner writes the checkpoint (the lease is released), so the copy is exactly what its last
 * commit references, plus the offsets of a pending batch if the last run died in one.
 *
 * The copy goes through CheckpointFileManager on both sides, so local disk, a shared volume and
 * s3:// work alike, to `<WEIR_CHECKPOINT_ROOT>/savepoints/<job id>/<savepoint id>/`, with
 * `_savepoint.json` listing every file's size and SHA-256; every file written is read back and
 * checked against it before the savepoint is recorded (and audited). No job may keep its
 * checkpoint there (job-paths.ts), and a reset or delete never deletes there (checkpoint-reset.ts).
 *
 * Not here yet: savepoints of a running job (pausing it between batches), resetting a job to a
 * savepoint or starting a new job from one (a rollback re-uses batch ids the sink has already
 * seen, which needs the sink's batch log rolled back too), and the CLI's export/import.
 */
import { createHash, randomUUID } from 'node:crypto';
import { checkpointFileManagerFor, type CheckpointFileManager } from '@/lib/engine';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { requireRole, type Principal } from '../auth';
import { ConflictError } from '../http/http-errors';
import { ACTIVE_STATUSES } from '../job-lifecycle';
import { openCheckpoint, walkCheckpoint } from '../presenters/checkpoint-presenter';
import { findJobOrThrow } from '../presenters/jobs-presenter';
import { recordAudit } from './audit-service';
import { savepointsDirectory } from './job-paths';

const SAVEPOINT_MANIFEST = '_savepoint.json';

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

interface Manifest {
  formatVersion: 1;
  jobId: string;
  name: string;
  batchId: number;
  source: string;
  files: { path: string; size: number; sha256: string }[];
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

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

/** Every file of the savepoint read back and checked against its manifest; throws naming the first that differs. */
export async function verifySavepoint(fm: CheckpointFileManager): Promise<Manifest> {
  const manifest = JSON.parse((await fm.read(SAVEPOINT_MANIFEST)).toString('utf8')) as Manifest;
  for (const f of manifest.files) {
    const data = await fm.read(f.path);
    if (data.byteLength !== f.size || sha256(data) !== f.sha256) {
      throw new ConflictError(`Savepoint file ${f.path} in ${fm.description} does not match its manifest (size or SHA-256 differ): the copy is damaged; take a new savepoint.`, { path: f.path });
    }
  }
  return manifest;
}

export async function createSavepoint(
  ctx: { db: PrismaClient; principal: Principal; checkpointRoot: string },
  jobId: string,
  input: { name?: string },
): Promise<SavepointView> {
  requireRole(ctx.principal, 'operator', 'take savepoints');
  const job = await findJobOrThrow(ctx.db, jobId);
  if ([...ACTIVE_STATUSES, 'STOPPING'].includes(job.status as never)) {
    throw new ConflictError(
      `${job.name} is ${job.status}: stop it first (POST /api/jobs/${job.id}/stop), then take the savepoint. A stopped job's checkpoint is exactly what its last commit references; savepoints of a running job are not supported yet.`,
      { status: job.status },
    );
  }
  const name = input.name?.trim() || `savepoint-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  if (await ctx.db.savepoint.findUnique({ where: { jobId_name: { jobId, name } } })) {
    throw new ConflictError(`${job.name} already has a savepoint named ${name}; choose another name.`, { path: 'name' });
  }
  const src = openCheckpoint(job.checkpointLocation, ctx.checkpointRoot);
  const walk = await walkCheckpoint(src);
  const commits = walk.files.map((f) => /^commits\/(\d+)$/.exec(f.path)?.[1]).filter((n): n is string => n !== undefined).map(Number);
  if (commits.length === 0) throw new ConflictError(`${job.name} has no committed batch yet: there is nothing to keep in a savepoint. Run it first.`);
  const batchId = Math.max(...commits);
  const id = randomUUID();
  const location = savepointLocation(ctx.checkpointRoot, jobId, id);
  const dst = checkpointFileManagerFor(location);
  const files: Manifest['files'] = [];
  for (const f of walk.files) {
    const data = await src.read(f.path);
    await dst.createAtomic(f.path, data);
    files.push({ path: f.path, size: data.byteLength, sha256: sha256(data) });
  }
  const manifest: Manifest = { formatVersion: 1, jobId, name, batchId, source: src.description, files };
  await dst.createAtomic(SAVEPOINT_MANIFEST, JSON.stringify(manifest, null, 1));
  await verifySavepoint(dst);
  const sizeBytes = files.reduce((a, f) => a + f.size, 0);
  const row = await ctx.db.$transaction(async (tx) => {
    const r = await tx.savepoint.create({ data: { id, jobId, name, batchId, location, sizeBytes: BigInt(sizeBytes), fileCount: files.length, createdBy: ctx.principal.actor } });
    await recordAudit(tx, ctx.principal, { action: 'job.savepoint', targetType: 'job', targetId: jobId, after: { savepointId: id, name, batchId, location, fileCount: files.length, sizeBytes } });
    return r;
  });
  return view(row);
}
