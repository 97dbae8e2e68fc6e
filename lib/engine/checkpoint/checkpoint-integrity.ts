/**
 * What a checkpoint must hold before a run may use it, checked at start before anything is
 * written (so a refused checkpoint stays exactly as it was found), and listed by the inspector.
 *
 * A checkpoint that ran batches (it has offsets/N or commits/N) needs:
 * - `metadata`, parseable: it carries the query id, and sinks that recognize a replayed batch
 *   do so by query id (the transactional Postgres sink, the files sink's log). A run that wrote a
 *   fresh `metadata` would be a new query to them, and the batch it re-runs would be written a
 *   second time. Spark writes `metadata` only when the checkpoint has none at all, likewise.
 * - the log files a restart reads (the latest offsets/L, offsets/L-1, commits/L and the latest
 *   commit) parseable, and no commits/C beyond the latest offsets/L (offsets/C was deleted);
 * - `state/<op>/_metadata/schema` for every stateful operator that kept state: one whose
 *   partitions hold state files, or one that the latest offsets/N conf records
 *   (STATEFUL_OPERATORS_CONF). Without it the restart cannot check the plan against the state,
 *   and a missing state/ would silently restart the aggregates from empty;
 * - the state version the next batch loads (latest commits/C + 1) loadable in every partition:
 *   otherwise the run would write offsets/C+1 and only then find the state missing.
 * Each problem names the file; CORRUPT_CHECKPOINT's message gives the ways out.
 */
import { CorruptCheckpointError } from '../errors';
import { listStateFiles, loadableVersions, storeDirs } from '../state/state-checkpoint-files';
import { stateSchemaProblems } from '../state/state-schema-compatibility-checker';
import { recordedParallelism } from '../execution/populate-start-offsets';
import type { CheckpointFileManager } from './checkpoint-file-manager';
import { CommitLog } from './commit-log';
import { OffsetSeqLog, statefulOperatorsOf, type OffsetSeq } from './offset-seq-log';
import { METADATA_PATH, readStreamMetadata } from './stream-metadata';

export interface CheckpointProblem {
  /** Relative to the checkpoint root, e.g. `metadata`, `offsets/3`, `state/0/_metadata/schema`. */
  path: string;
  missing: boolean;
  reason: string;
}

/** Reads a log entry; a corrupt one becomes a problem instead of an exception. */
async function readEntry<T>(read: () => Promise<T | undefined>, problems: CheckpointProblem[]): Promise<T | undefined> {
  try {
    return await read();
  } catch (e) {
    if (!(e instanceof CorruptCheckpointError)) throw e;
    const d = e.details as { path: string; reason: string };
    problems.push({ path: d.path, missing: false, reason: d.reason });
    return undefined;
  }
}

export async function checkpointProblems(fm: CheckpointFileManager): Promise<CheckpointProblem[]> {
  const problems: CheckpointProblem[] = [];
  const offsetLog = new OffsetSeqLog(fm);
  const commitLog = new CommitLog(fm);
  const offsetIds = await offsetLog.batchIds();
  const commitIds = await commitLog.batchIds();
  const ran = offsetIds.length > 0 || commitIds.length > 0;

  const meta = await readEntry(() => readStreamMetadata(fm), problems);
  if (meta === undefined && ran && !problems.some((p) => p.path === METADATA_PATH)) {
    const last = Math.max(offsetIds.at(-1) ?? -1, commitIds.at(-1) ?? -1);
    problems.push({
      path: METADATA_PATH,
      missing: true,
      reason:
        `the checkpoint ran batches (offsets/ and commits/ go up to batch ${last}) but has no metadata, which holds the query id. ` +
        'A new metadata would make this a new query with a new id, and sinks that skip a replayed batch by query id would write the re-run batch a second time',
    });
  }

  const L = offsetIds.at(-1);
  let latest: OffsetSeq | undefined;
  if (L !== undefined) {
    latest = await readEntry(() => offsetLog.get(L), problems);
    if (L > 0 && offsetIds.includes(L - 1)) await readEntry(() => offsetLog.get(L - 1), problems);
    if (commitIds.includes(L)) await readEntry(() => commitLog.get(L), problems);
  }
  const C = commitIds.at(-1);
  if (C !== undefined && C !== L) await readEntry(() => commitLog.get(C), problems);
  if (C !== undefined && (L === undefined || C > L)) {
    problems.push({
      path: offsetLog.pathOf(C),
      missing: true,
      reason: `commits/${C} exists but offsets/${C} does not, so the range batch ${C} covered (and where the next batch starts) is unknown`,
    });
  }

  const recorded = latest ? statefulOperatorsOf(latest.metadata) ?? [] : [];
  problems.push(...(await stateSchemaProblems(fm, recorded)));
  if (C !== undefined) {
    // The partitions batch C wrote: more (left by a repartition to fewer) are read by no batch.
    const committed = C === L ? latest : await offsetLog.get(C).catch(() => undefined);
    const partitions = committed ? recordedParallelism(committed.metadata.conf, offsetLog.pathOf(C)) : Infinity;
    problems.push(...(await unloadableStateVersions(fm, C + 1, C, partitions)));
  }
  return problems;
}

/** Partitions of `state/` in which `version` (what the batch after commits/C loads) cannot be loaded. */
async function unloadableStateVersions(fm: CheckpointFileManager, version: number, C: number, partitions: number): Promise<CheckpointProblem[]> {
  const out: CheckpointProblem[] = [];
  for (const op of (await fm.list('state')).filter((n) => /^\d+$/.test(n))) {
    for (const part of (await fm.list(`state/${op}`)).filter((n) => /^\d+$/.test(n) && Number(n) < partitions)) {
      for (const dir of await storeDirs(fm, `state/${op}/${part}`)) {
        const versions = loadableVersions(await listStateFiles(fm, dir));
        if (versions.includes(version)) continue;
        out.push({
          path: `${dir}/${version}.delta`,
          missing: true,
          reason: `commits/${C} means the next batch loads state version ${version} of ${dir}, which cannot be loaded ` +
            `(loadable: ${versions.length ? `${versions[0]} … ${versions.at(-1)}` : 'none'}; its delta or changelog, or a snapshot, was deleted)`,
        });
      }
    }
  }
  return out;
}

/** Throws CORRUPT_CHECKPOINT for the first problem (all of them in details.problems). */
export async function assertCheckpointIntact(fm: CheckpointFileManager): Promise<void> {
  const problems = await checkpointProblems(fm);
  if (problems.length === 0) return;
  const first = problems[0];
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more: ${problems.slice(1).map((p) => p.path).join(', ')})` : '';
  const e = new CorruptCheckpointError(first.path, first.reason + more, { checkpoint: fm.description, missing: first.missing });
  Object.assign(e.details!, { problems });
  throw e;
}
