/**
 * Writes to jobs: create, update, delete (admin); start, stop, restart (operator); reset
 * checkpoint (admin). Each change and its AuditEvent commit in one transaction.
 *
 * The lifecycle contract with the worker (worker/, lib/server/lease.ts):
 * - The API writes `desiredState`; the worker reconciles and owns `status` from STARTING on.
 * - start: desiredState=RUNNING, status=PENDING, lastError=null, then enqueue a run
 *   (reason 'start'). Refused with 409 while the job is active (PENDING, STARTING, RUNNING,
 *   RECOVERING) or STOPPING.
 * - stop (graceful): desiredState=STOPPED; if active, status=STOPPING. The worker sees it within
 *   about a second, lets the running batch finish and commit, then writes STOPPED. Stopping a
 *   job that is not active changes nothing and is not an error.
 * - restart: desiredState=RUNNING; if active, status=STOPPING (the worker stops gracefully and,
 *   seeing RUNNING, enqueues the next run itself); if not active, a start with reason 'restart'.
 * - Status transitions are conditional updates (`updateMany … where status in …`), so two
 *   concurrent starts cannot both enqueue: the loser gets 409.
 * The whole table (every event, who may cause it, from which statuses) is lib/server/job-lifecycle.ts;
 * every status write here goes through its moveJob, and every refusal is its `refusal`.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import '@/lib/connectors'; // registers the connectors' source, sink and checkpoint types
import { canonicalJobSpec, checkRestartCompatibility, IncompatibleQueryChangeError, validateJob, type QueryPreview, type JobSpec, type OutboundPolicy, type ValidateJobResult } from '@/lib/engine';
import { Prisma, type Job, type PrismaClient } from '@/lib/generated/prisma/client';
import type { Principal, Role } from '../auth';
import { requireRole } from '../auth';
import { previewInProcess, type PreviewProcessLimits } from '../isolation/preview-host';
import { BadRequestError, ConflictError, InvalidJobSpecError } from '../errors';
import { ACTIVE_STATUSES, lockJobForHistory, moveJob, refusal, transitionFor, type JobEvent, type JobStatus } from '../job-lifecycle';
import { openCheckpoint } from '../checkpoint-access';
import { findJobOrThrow, presentJob, type JobDetail } from '../job-view';
import { unmaskSpec } from '../secret-masking';
import { serverOutboundPolicy } from '../outbound';
import { recordAudit } from './audit-service';
import { assertReprocessingAcknowledged } from '../contracts/reprocessing-guard';
import { deleteCheckpoint, type CheckpointDeletion } from './checkpoint-reset';
import { missingSourceFolder } from './source-folder';
import { assertCheckpointOwned, assertOutsideSavepoints, assertOwnPathsApart, confinePaths, lockJobPaths, savepointPathIssues, type ServerPathRoots } from './job-paths';

/** Refuses (409, saying why and what to do) an event the lifecycle table does not allow from the job's status. */
function assertAllowed(job: Job, event: JobEvent): void {
  if (!transitionFor(event, job.status as JobStatus)) throw refusal(event, job);
}

export interface JobServiceContext {
  db: PrismaClient;
  principal: Principal;
  /** Where a job's checkpoint goes when its spec names none: `<checkpointRoot>/<jobId>`. */
  checkpointRoot: string;
  /** Where the spec's webhooks and connections may go (lib/server/outbound.ts); default: this process's. */
  outbound?: OutboundPolicy;
  /** WEIR_FILES_ROOTS: where files sources, sinks, static tables and dead letters may be. */
  filesRoots: string[];
  /** Puts a run on the queue (lib/queue/run-queue.ts's enqueueRun, bound to the config). */
  enqueue: (payload: { jobId: string; reason: 'start' | 'restart' }) => Promise<string>;
}

export interface JobInput {
  spec: unknown;
  description?: string | null;
  restartPolicy?: { maxRestarts: number; backoffMs: number } | null;
  /** An edit that moves the checkpoint: acknowledged that the next start reprocesses into the sink (reprocessing-guard.ts). */
  acknowledgeReprocessing?: boolean;
}

type Obj = Record<string, unknown>;

function specObject(spec: unknown): Obj {
  if (typeof spec === 'string') {
    try {
      spec = JSON.parse(spec);
    } catch {
      // validateJob reports the syntax error with its line and column
      const v = validateJob(spec);
      throw new InvalidJobSpecError(v.errors, v.warnings);
    }
  }
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) {
    throw new InvalidJobSpecError([{ path: '(root)', message: 'expected a JSON object (the job spec)' }]);
  }
  // Spark's option spellings in the connectors' own names: what is stored and shown has one name per option.
  return canonicalJobSpec(spec as Obj);
}

/** `<root>/<leaf>`: an s3:// root keeps its `//` (path.join would fold it into a local path). */
function checkpointUnder(root: string, leaf: string): string {
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(root) ? `${root.replace(/\/+$/, '')}/${leaf}` : path.join(root, leaf);
}

function withCheckpoint(spec: Obj, fallback: string): Obj {
  return typeof spec.checkpointLocation === 'string' && spec.checkpointLocation.length > 0 ? spec : { ...spec, checkpointLocation: fallback };
}

/**
 * The engine's verdict on a spec, without saving anything (POST /api/jobs/validate), with every
 * path field checked against the roots and every destination against the outbound policy.
 */
export function validateSpec(spec: unknown, roots: ServerPathRoots, outbound: OutboundPolicy = serverOutboundPolicy()): ValidateJobResult {
  const obj = specObject(spec);
  const confined = confinePaths(withCheckpoint(obj, checkpointUnder(roots.checkpointRoot, '<job id>')), roots);
  const checked = validateJob(confined.spec, { outbound });
  const v = { ...checked, warnings: [...checked.warnings, ...missingSourceFolder(obj, roots.filesRoots)] };
  const errors = [...confined.errors, ...savepointPathIssues(confined.fields, roots.checkpointRoot)];
  if (errors.length === 0) return v;
  const { spec: _spec, contract: _contract, ...rest } = v;
  return { ...rest, ok: false, errors: [...errors, ...v.errors] };
}

/** The spec with its paths confined and rewritten to absolute locations, and the engine's verdict. */
function validated(raw: Obj, roots: ServerPathRoots, outbound: OutboundPolicy) {
  const confined = confinePaths(raw, roots);
  const result = validateJob(confined.spec, { outbound });
  if (confined.errors.length || !result.ok || !result.spec) throw new InvalidJobSpecError([...confined.errors, ...result.errors], result.warnings);
  assertOwnPathsApart(confined.fields);
  assertOutsideSavepoints(confined.fields, roots.checkpointRoot);
  const warnings = [...result.warnings, ...missingSourceFolder(raw, roots.filesRoots)];
  return { spec: confined.spec, result: { ...result, warnings } as ValidateJobResult & { ok: true }, fields: confined.fields };
}

function columnsOf(spec: Obj, result: ValidateJobResult): Omit<Prisma.JobUncheckedCreateInput, 'id' | 'name' | 'createdBy'> {
  const s = result.spec!;
  return {
    spec: spec as Prisma.InputJsonValue,
    sql: s.sql,
    // A query over several sources lists each type, in source order (the job list and page show it).
    sourceType: s.sources.map((x) => x.type).join(' + '),
    sinkType: s.sink.type,
    outputMode: s.outputMode,
    trigger: s.trigger as Prisma.InputJsonValue,
    checkpointLocation: s.checkpointLocation,
    guarantee: result.contract?.guarantee ?? null,
    contract: (result.contract ?? undefined) as Prisma.InputJsonValue | undefined,
  };
}

async function assertNameFree(db: PrismaClient, name: string, exceptId?: string): Promise<void> {
  const other = await db.job.findUnique({ where: { name } });
  if (other && other.id !== exceptId) {
    throw new ConflictError(`A job named "${name}" already exists (${other.id}); choose another name or edit that job.`, { name, jobId: other.id });
  }
}

// Prisma needs DbNull to store SQL NULL in a Json column (plain null is refused).
const optionalJson = (v: unknown) => (v === null ? Prisma.DbNull : (v as Prisma.InputJsonValue | undefined));

export async function createJob(ctx: JobServiceContext, input: JobInput): Promise<{ job: JobDetail; warnings: unknown[] }> {
  requireRole(ctx.principal, 'admin', 'create jobs');
  const id = randomUUID();
  const { spec, result, fields } = validated(withCheckpoint(specObject(input.spec), checkpointUnder(ctx.checkpointRoot, id)), ctx, ctx.outbound ?? serverOutboundPolicy());
  await assertNameFree(ctx.db, result.spec!.name);
  const job = await ctx.db.$transaction(async (tx) => {
    await lockJobPaths(tx);
    await assertCheckpointOwned(tx, id, fields);
    const row = await tx.job.create({
      data: {
        id,
        name: result.spec!.name,
        description: input.description ?? null,
        restartPolicy: input.restartPolicy ?? undefined,
        createdBy: ctx.principal.actor,
        ...columnsOf(spec, result),
      },
    });
    await recordAudit(tx, ctx.principal, { action: 'job.create', targetType: 'job', targetId: id, after: presentJob(row) });
    return row;
  });
  return { job: presentJob(job), warnings: result.warnings };
}

export async function updateJob(ctx: JobServiceContext, id: string, input: JobInput): Promise<{ job: JobDetail; warnings: unknown[] }> {
  requireRole(ctx.principal, 'admin', 'edit jobs');
  const before = await findJobOrThrow(ctx.db, id);
  assertAllowed(before, 'edit');
  // A spec without a checkpoint keeps the job's current one: an edit is not a silent reset.
  const incoming = unmaskSpec(specObject(input.spec), before.spec);
  const { spec, result, fields } = validated(withCheckpoint(incoming, before.checkpointLocation), ctx, ctx.outbound ?? serverOutboundPolicy());
  await assertNameFree(ctx.db, result.spec!.name, id);
  // A new checkpoint location is a new query: the next start reprocesses the source into a sink
  // that may already hold it (the check is on the sink as it is now, before the edit).
  const moved = result.spec!.checkpointLocation !== before.checkpointLocation;
  if (moved) await assertReprocessingAcknowledged(ctx.db, before, 'checkpoint-location-change', input.acknowledgeReprocessing);
  // Refused now rather than as a FAILED run at the next start.
  const verdict = await restartVerdict(result.spec!, ctx.checkpointRoot);
  if (verdict.error) throw verdict.error;
  const job = await ctx.db.$transaction(async (tx) => {
    await lockJobPaths(tx);
    await assertCheckpointOwned(tx, id, fields);
    const row = await tx.job.update({
      where: { id },
      data: {
        name: result.spec!.name,
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.restartPolicy !== undefined ? { restartPolicy: optionalJson(input.restartPolicy) } : {}),
        ...columnsOf(spec, result),
      },
    });
    await recordAudit(tx, ctx.principal, {
      action: 'job.update',
      targetType: 'job',
      targetId: id,
      before: presentJob(before),
      after: { ...presentJob(row), ...(moved ? { checkpointLocationChanged: true, acknowledgedReprocessing: input.acknowledgeReprocessing === true } : {}) },
    });
    return row;
  });
  return { job: presentJob(job), warnings: result.warnings };
}

/** What the editor shows while a job with a checkpoint is edited, and why a save would be refused. */
export interface RestartCheck {
  compatible: boolean;
  /** False: the checkpoint has no batch yet, so any change is fine. */
  checkpointHasBatches: boolean;
  /** Why not (the engine's INCOMPATIBLE_QUERY_CHANGE message and the two ways out). */
  message?: string;
  details?: Record<string, unknown>;
}

/**
 * The restart-compatibility check of a spec against its checkpoint, read-only. An incompatible
 * change comes back as the 409 an edit gets, its message naming the change and both ways out.
 */
async function restartVerdict(spec: JobSpec, checkpointRoot: string): Promise<{ check: RestartCheck; error?: IncompatibleQueryChangeError }> {
  try {
    const r = await checkRestartCompatibility(spec, openCheckpoint(spec.checkpointLocation, checkpointRoot));
    return { check: { compatible: true, checkpointHasBatches: r.checkpointHasBatches } };
  } catch (e) {
    if (!(e instanceof IncompatibleQueryChangeError)) throw e;
    const error = new IncompatibleQueryChangeError(
      `${e.message} This change was not saved. The two ways out: revert it (the job then restarts on its checkpoint as it was), ` +
        'or save it as a new job under another name, on a new checkpoint (empty state, reprocessing from the source start): the editor\'s "Save as a new job", or POST /api/jobs.',
      { ...e.details, waysOut: ['revert', 'save-as-new-job'] },
    );
    return { check: { compatible: false, checkpointHasBatches: true, message: error.message, details: error.details }, error };
  }
}

/**
 * The editor's live verdict on an edit of job `id`: would the edited spec restart on the job's
 * checkpoint? Null while the spec itself does not validate (the draft check shows those errors).
 * Secrets the editor shows masked are the stored ones, as a save would take them.
 */
export async function restartCheckOfEdit(ctx: Pick<JobServiceContext, 'db' | 'checkpointRoot' | 'filesRoots' | 'outbound'>, id: string, rawSpec: unknown): Promise<RestartCheck | null> {
  const before = await findJobOrThrow(ctx.db, id);
  const incoming = withCheckpoint(unmaskSpec(specObject(rawSpec), before.spec), before.checkpointLocation);
  const confined = confinePaths(incoming, ctx);
  const result = validateJob(confined.spec, { outbound: ctx.outbound ?? serverOutboundPolicy() });
  if (confined.errors.length || !result.ok || !result.spec) return null;
  return (await restartVerdict(result.spec, ctx.checkpointRoot)).check;
}

/** Who may preview over a source's live records (a pasted sample: any role that may validate). */
const PREVIEW_RECENT_ROLE = 'admin' satisfies Role;

/**
 * Preview: the spec's query over the records of `sample` (any role that may validate), or without
 * one over the most recent records of the spec's own source (admin: reading a source is reading
 * its data, which only the role that defines jobs, and so their sources, may do), with no
 * checkpoint and no sink (lib/engine previewQuery, previewRecentRecords). The spec is confined
 * and validated here as a save would be, so a preview reads no file and reaches no address a job
 * could not (its source's directory under the files roots, its destinations under the outbound
 * policy), and is refused with the same 4xx as validation when it would. The preview itself runs
 * in a preview process (isolation/preview-host.ts), bounded in heap and time: no expression of
 * it is evaluated in this process.
 */
export async function previewJob(
  ctx: Pick<JobServiceContext, 'principal' | 'checkpointRoot' | 'filesRoots' | 'outbound'> & { previewLimits: PreviewProcessLimits },
  rawSpec: unknown,
  sample?: unknown[],
): Promise<QueryPreview> {
  if (!sample) requireRole(ctx.principal, PREVIEW_RECENT_ROLE, "preview a source's most recent records (paste a sample to preview without reading the source)");
  const outbound = ctx.outbound ?? serverOutboundPolicy();
  // The process validates again: it gets the spec as written (confined), since the parsed one
  // has both `source` and `sources`, which a spec of several sources may not write.
  const { spec } = validated(withCheckpoint(specObject(rawSpec), checkpointUnder(ctx.checkpointRoot, 'preview')), ctx, outbound);
  return previewInProcess(
    { spec, sample, roots: { checkpointRoot: ctx.checkpointRoot, filesRoots: ctx.filesRoots }, outbound: { allow: outbound.allow, infrastructure: outbound.infrastructure } },
    ctx.previewLimits,
  );
}

/**
 * Deletes a stopped job and its history. With `deleteCheckpoint` (the job's name typed back as
 * `confirm`, as for a reset) its checkpoint goes too, files first: if that fails half-way the job
 * is still there to retry, rather than gone with files nobody can find any more.
 */
export async function deleteJob(
  ctx: JobServiceContext,
  id: string,
  opts: { deleteCheckpoint?: boolean; confirm?: string; acknowledgeReprocessing?: boolean } = {},
): Promise<{ deletedCheckpointFiles: number | null; keptCheckpointEntries?: string[]; message?: string }> {
  requireRole(ctx.principal, 'admin', 'delete jobs');
  const before = await findJobOrThrow(ctx.db, id);
  assertAllowed(before, 'delete');
  let deletion: CheckpointDeletion | null = null;
  if (opts.deleteCheckpoint) {
    if (opts.confirm !== before.name) {
      throw new BadRequestError(`To delete the job with its checkpoint, type the job's name exactly as confirmation: ?deleteCheckpoint=true&confirm=${encodeURIComponent(before.name)}.`, { path: 'confirm', expected: before.name });
    }
    await assertReprocessingAcknowledged(ctx.db, before, 'delete-with-checkpoint', opts.acknowledgeReprocessing);
    deletion = await deleteOwnCheckpoint(ctx, before);
  }
  const deletedCheckpointFiles = deletion?.deletedFiles ?? null;
  await ctx.db.$transaction(async (tx) => {
    await tx.job.delete({ where: { id } });
    await recordAudit(tx, ctx.principal, {
      action: 'job.delete',
      targetType: 'job',
      targetId: id,
      before: presentJob(before),
      after:
        deletion === null
          ? undefined
          : { checkpointLocation: before.checkpointLocation, deletedCheckpointFiles, keptCheckpointEntries: deletion.keptEntries, acknowledgedReprocessing: opts.acknowledgeReprocessing === true },
    });
  });
  if (!deletion) return { deletedCheckpointFiles };
  return { deletedCheckpointFiles, ...(deletion.message ? { keptCheckpointEntries: deletion.keptEntries, message: deletion.message } : {}) };
}

/**
 * Deletes the engine's files in a job's checkpoint (checkpoint-reset.ts: never a foreign file,
 * never through a symlink, never a directory that is no checkpoint); refuses (409) a location
 * another job also uses, which would wreck that job's state.
 */
export async function deleteOwnCheckpoint(ctx: JobServiceContext, job: { id: string; name: string; checkpointLocation: string }): Promise<CheckpointDeletion> {
  const sharing = await ctx.db.job.findMany({ where: { checkpointLocation: job.checkpointLocation, id: { not: job.id } }, select: { name: true } });
  if (sharing.length > 0) {
    throw new ConflictError(
      `Job ${job.name}'s checkpoint location ${job.checkpointLocation} is also the checkpoint of ${sharing.map((j) => j.name).join(', ')}; deleting it would wreck theirs too. ` +
        'Give each job its own checkpoint location (edit the other jobs), then try again.',
      { sharedWith: sharing.map((j) => j.name) },
    );
  }
  return deleteCheckpoint(job.checkpointLocation, ctx.checkpointRoot);
}

/** One lifecycle event (a conditional status change) plus its audit event; returns the new row or undefined if the table did not allow it. */
async function transition(
  ctx: JobServiceContext,
  before: Job,
  event: JobEvent,
  data: Prisma.JobUpdateManyMutationInput = {},
  where: Prisma.JobWhereInput = {},
): Promise<Job | undefined> {
  return ctx.db.$transaction(async (tx) => {
    if (!(await moveJob(tx, before.id, event, data, where))) return undefined;
    const action = `job.${event}`;
    const row = await tx.job.findUniqueOrThrow({ where: { id: before.id } });
    await recordAudit(tx, ctx.principal, { action, targetType: 'job', targetId: before.id, before: lifecycleView(before), after: lifecycleView(row) });
    return row;
  });
}

function lifecycleView(j: Job) {
  return { name: j.name, desiredState: j.desiredState, status: j.status, lastError: j.lastError ?? null };
}

async function startLike(ctx: JobServiceContext, before: Job, reason: 'start' | 'restart'): Promise<JobDetail> {
  const row = await transition(ctx, before, reason, { lastError: optionalJson(null) }, { status: { in: ['STOPPED', 'FAILED'] } });
  if (!row) throw refusal('start', await findJobOrThrow(ctx.db, before.id));
  try {
    await ctx.enqueue({ jobId: row.id, reason });
  } catch (e) {
    // Nothing will pick the run up: say so on the job rather than leave it PENDING forever.
    await moveJob(ctx.db, row.id, 'enqueue-failed', {
      lastError: { code: 'ENQUEUE_FAILED', message: `Could not enqueue the run: ${(e as Error).message}. Check the queue backend (GET /api/health) and start again.` },
    });
    return presentJob(await findJobOrThrow(ctx.db, row.id));
  }
  return presentJob(row);
}

export async function startJob(ctx: JobServiceContext, id: string): Promise<JobDetail> {
  requireRole(ctx.principal, 'operator', 'start jobs');
  return startLike(ctx, await findJobOrThrow(ctx.db, id), 'start');
}

export async function stopJob(ctx: JobServiceContext, id: string): Promise<JobDetail> {
  requireRole(ctx.principal, 'operator', 'stop jobs');
  const before = await findJobOrThrow(ctx.db, id);
  // Not active: record the intent only if it changes something (a STOPPING job already stops,
  // unless a restart is pending: the stop cancels that).
  const changes = ACTIVE_STATUSES.includes(before.status as JobStatus) || before.desiredState === 'RUNNING';
  const row = changes ? await transition(ctx, before, 'stop') : undefined;
  return presentJob(row ?? before);
}

export async function restartJob(ctx: JobServiceContext, id: string): Promise<JobDetail> {
  requireRole(ctx.principal, 'operator', 'restart jobs');
  const before = await findJobOrThrow(ctx.db, id);
  const row = await transition(ctx, before, 'restart', {}, { status: { notIn: ['STOPPED', 'FAILED'] } });
  if (row) return presentJob(row);
  return startLike(ctx, before, 'restart');
}

export async function resetCheckpoint(
  ctx: JobServiceContext,
  id: string,
  confirm: string,
  opts: { acknowledgeReprocessing?: boolean } = {},
): Promise<{ job: JobDetail; deletedFiles: number; deletedBatches: number; keptEntries?: string[]; message?: string }> {
  requireRole(ctx.principal, 'admin', 'reset checkpoints');
  const before = await findJobOrThrow(ctx.db, id);
  if (confirm !== before.name) {
    throw new BadRequestError(`To reset the checkpoint, type the job's name exactly as confirmation: {"confirm": "${before.name}"}.`, { path: 'confirm', expected: before.name });
  }
  assertAllowed(before, 'reset-checkpoint');
  await assertReprocessingAcknowledged(ctx.db, before, 'reset-checkpoint', opts.acknowledgeReprocessing);
  const deletion = await deleteOwnCheckpoint(ctx, before);
  const deletedFiles = deletion.deletedFiles;
  const { row, deletedBatches } = await ctx.db.$transaction(async (tx) => {
    await lockJobForHistory(tx, id);
    const { count } = await tx.batchProgress.deleteMany({ where: { jobId: id } });
    const r = await tx.job.update({ where: { id }, data: { queryId: null, lastBatchId: null, lastCommittedAt: null } });
    await recordAudit(tx, ctx.principal, {
      action: 'job.reset-checkpoint',
      targetType: 'job',
      targetId: id,
      before: { ...lifecycleView(before), queryId: before.queryId, lastBatchId: before.lastBatchId, checkpointLocation: before.checkpointLocation },
      after: { ...lifecycleView(r), queryId: null, lastBatchId: null, deletedFiles, deletedBatches: count, keptEntries: deletion.keptEntries, acknowledgedReprocessing: opts.acknowledgeReprocessing === true },
    });
    return { row: r, deletedBatches: count };
  });
  return { job: presentJob(row), deletedFiles, deletedBatches, ...(deletion.message ? { keptEntries: deletion.keptEntries, message: deletion.message } : {}) };
}
