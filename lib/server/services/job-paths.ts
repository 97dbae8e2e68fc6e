/**
 * A job's paths on the API side: every path field of a spec confined to the roots (422 naming
 * the field, the resolved path and the roots), and a checkpoint that belongs to one job (409
 * naming the other job).
 *
 * Ownership: a job's checkpoint may not equal, contain or lie inside another job's checkpoint or
 * any path of any job (its own included: a sink writing into its own checkpoint would let anyone
 * who can read the sink read whatever the checkpoint directory was made to hold), and a job's
 * paths may not lie in another job's checkpoint. Two jobs may share input and output directories
 * (one job's sink is often the next one's source); what they may not share is a checkpoint.
 *
 * Savepoints: `<checkpoint root>/savepoints/` holds the copies savepoint-service.ts takes, and no
 * job's path may be, lie in or (for a checkpoint) contain it (422): a reset or a delete with the
 * checkpoint removes the engine's files of the job's checkpoint, and a savepoint is made of
 * exactly such files, so a job pointed at one would wipe the known-good state it was kept for.
 */
import { confineSpecPaths, overlapOf, specPathFields, resolvePathField, type ConfinedSpec, type PathRoots } from '@/lib/engine';
import type { Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import { ConflictError, InvalidJobSpecError } from '../errors';

export interface ServerPathRoots {
  checkpointRoot: string;
  filesRoots: string[];
}

type Obj = Record<string, unknown>;
type Field = ConfinedSpec<Obj>['fields'][number];

/** The spec's path fields confined to the roots; PathIssues (with resolved path and roots) on escape. */
export function confinePaths(spec: Obj, roots: ServerPathRoots): ConfinedSpec<Obj> {
  return confineSpecPaths(spec, roots satisfies PathRoots);
}

const RELATION: Record<'equal' | 'inside' | 'contains', string> = { equal: 'is', inside: 'lies inside', contains: 'contains' };

/** The paths of a stored job, resolved as a new spec's are (unconfined: an old job may be anywhere). */
function storedFields(job: { spec: Prisma.JsonValue; checkpointLocation: string }): Field[] {
  const spec = { ...((job.spec ?? {}) as Obj), checkpointLocation: job.checkpointLocation };
  const out: Field[] = [];
  for (const f of specPathFields(spec)) {
    const r = resolvePathField(f.field, f.value, f.kind, {});
    if (r.ok) out.push({ ...f, location: r.location, key: r.key, local: r.local });
  }
  return out;
}

/** Where savepoints are kept: `<checkpoint root>/savepoints` (a directory or an s3:// prefix alike). */
export function savepointsDirectory(checkpointRoot: string): string {
  return `${checkpointRoot.replace(/\/+$/, '')}/savepoints`;
}

/** How a resolved path's key relates to the savepoints directory (null: apart from it). */
export function overlapWithSavepoints(key: string, checkpointRoot: string): 'equal' | 'inside' | 'contains' | null {
  const dir = resolvePathField('savepoints', savepointsDirectory(checkpointRoot), 'checkpoint', { checkpointRoot });
  return dir.ok ? overlapOf(key, dir.key) : null;
}

/**
 * The issues (422) of paths that are or lie in the savepoints directory, and of a checkpoint that
 * contains it. A data directory may contain it (a files root may hold the checkpoint root): the
 * connectors never write below their own directory's top level into it.
 */
export function savepointPathIssues(fields: Field[], checkpointRoot: string): { path: string; message: string }[] {
  return fields.flatMap((f) => {
    const rel = overlapWithSavepoints(f.key, checkpointRoot);
    if (!rel || (rel === 'contains' && f.kind !== 'checkpoint')) return [];
    const dir = savepointsDirectory(checkpointRoot);
    const what = f.kind === 'checkpoint' ? 'a job’s checkpoint there would let a reset or a delete erase a savepoint' : 'a job’s data there would mix with the savepoints’ files';
    return [
      {
        path: f.field,
        message: `${f.field} "${f.location}" ${RELATION[rel]} the savepoints directory "${dir}", which holds the savepoints Weir takes; ${what}. ${f.kind === 'checkpoint' ? 'Leave checkpointLocation out (to get <root>/<job id>) or give' : 'Give'} a location outside ${dir}.`,
      },
    ];
  });
}

/** Refuses (422) a job whose paths are in the savepoints directory (see savepointPathIssues). */
export function assertOutsideSavepoints(fields: Field[], checkpointRoot: string): void {
  const errors = savepointPathIssues(fields, checkpointRoot);
  if (errors.length) throw new InvalidJobSpecError(errors);
}

/** Refuses (422) a job whose own paths lie in, contain or equal its own checkpoint. */
export function assertOwnPathsApart(fields: Field[]): void {
  const cp = fields.find((f) => f.kind === 'checkpoint');
  if (!cp) return;
  const errors = fields
    .filter((f) => f.kind !== 'checkpoint')
    .flatMap((f) => {
      const rel = overlapOf(f.key, cp.key);
      return rel ? [{ path: f.field, message: `${f.field} "${f.location}" ${RELATION[rel]} the job's own checkpoint location "${cp.location}"; the engine owns that directory. Give the data a directory of its own.` }] : [];
    });
  if (errors.length) throw new InvalidJobSpecError(errors);
}

/**
 * Refuses (409) a job whose checkpoint overlaps another job's checkpoint or paths, or whose paths
 * lie in another job's checkpoint. Runs inside the create/update transaction after taking
 * lockJobPaths, so two concurrent creates cannot both claim one checkpoint.
 */
export async function assertCheckpointOwned(tx: Pick<PrismaClient, 'job'>, jobId: string, fields: Field[]): Promise<void> {
  const mine = fields.find((f) => f.kind === 'checkpoint');
  const others = await tx.job.findMany({ where: { id: { not: jobId } }, select: { id: true, name: true, spec: true, checkpointLocation: true } });
  for (const other of others) {
    const theirs = storedFields(other);
    const theirCp = theirs.find((f) => f.kind === 'checkpoint');
    const clash = (field: string, what: string) => {
      throw new ConflictError(`${what}. A checkpoint belongs to one job: give this job its own checkpoint location (or leave checkpointLocation out to get <root>/<job id>) and its data directories of their own, or edit job ${other.name}.`, {
        path: field,
        otherJob: { id: other.id, name: other.name },
      });
    };
    if (mine) {
      for (const t of theirs) {
        const rel = overlapOf(mine.key, t.key);
        if (!rel) continue;
        const whose = t.kind === 'checkpoint' ? `the checkpoint of job ${other.name} (${other.id})` : `${t.field} of job ${other.name} (${other.id}), "${t.location}"`;
        clash('checkpointLocation', `checkpointLocation "${mine.location}" ${RELATION[rel]} ${whose}`);
      }
    }
    if (theirCp) {
      for (const f of fields) {
        if (f.kind === 'checkpoint') continue;
        const rel = overlapOf(f.key, theirCp.key);
        if (rel) clash(f.field, `${f.field} "${f.location}" ${RELATION[rel]} the checkpoint of job ${other.name} (${other.id}), "${theirCp.location}"`);
      }
    }
  }
}

/** Serializes the ownership check of concurrent creates and updates (a transaction-scoped lock). */
export async function lockJobPaths(tx: Pick<PrismaClient, '$executeRawUnsafe'>): Promise<void> {
  // An arbitrary constant key: "the paths of all jobs".
  await tx.$executeRawUnsafe('SELECT pg_advisory_xact_lock(7242017001)');
}
