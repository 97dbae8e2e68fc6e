/**
 * Moves a stopped checkpoint's state into another number of partitions (`weir checkpoint
 * repartition --to M`), the one way its parallelism (spark.sql.shuffle.partitions) changes.
 *
 * Each partitioned stateful operator's rows at the last committed batch L (state version L+1,
 * read from its N partitions) are routed again by the hash the operator routes rows with
 * (partitionOfGroupKey, partitionOfDedupKey, partitionOfJoinStoreKey) into M partitions;
 * operators that always keep one partition (a global aggregate, a streaming limit) keep theirs.
 * The result is written as a batch of its own, L+1, over no new data: offsets/L+1 (L's end
 * offsets and watermark, the new partition count, REPARTITIONED_FROM_CONF), then every store's
 * `<L+2>.snapshot`, then commits/L+1. Each operator keeps its provider and schema file.
 *
 * Every operator's state is read and routed before the first write, so a missing or damaged
 * file refuses the checkpoint untouched. Crash safety: nothing of version L+1 or before is rewritten, and the new version counts only
 * once commits/L+1 exists. A crash before that leaves offsets/L+1 uncommitted with the marker: a
 * start refuses it (populateStartOffsets) rather than re-run a batch whose state is half-written,
 * and running the command again finishes it. Writing offsets/L+1 create-if-absent first is also
 * the claim on the checkpoint: a runner that wrote it first, or that writes it later, meets
 * ConcurrentStreamLogUpdateError as two runners do.
 */
import type { CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';
import { CommitLog } from '../checkpoint/commit-log';
import { OffsetSeqLog, statefulOperatorsOf, type OffsetSeq } from '../checkpoint/offset-seq-log';
import { ConcurrentStreamLogUpdateError, CorruptCheckpointError, WeirError } from '../errors';
import { partitionOfGroupKey } from '../operators/aggregate-folds';
import { partitionOfDedupKey } from '../operators/deduplicate';
import { partitionOfJoinStoreKey } from '../operators/symmetric-hash-join';
import { DEFAULT_STATE_STORE_PROVIDER, MAX_PARALLELISM } from '../spec/job-spec';
import { listStateFiles, readStateVersion, storeDirs } from '../state/state-checkpoint-files';
import { StateFileWriter, stateFileName } from '../state/state-file-format';
import { CHANGE_FILE } from '../state/state-provider-conversion';
import { schemaFilePath, StateSchemaCompatibilityChecker, type StatefulOperatorDescriptor } from '../state/state-schema-compatibility-checker';
import { recordedParallelism, REPARTITIONED_FROM_CONF, SHUFFLE_PARTITIONS_CONF } from './populate-start-offsets';

/** The checkpoint cannot be repartitioned as it is; the message says what to do instead. */
export class RepartitionRefusedError extends WeirError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('REPARTITION_REFUSED', message, details);
  }
}

export interface StateRepartition {
  from: number;
  to: number;
  /** The batch written for it (its state version is batchId + 1); null when nothing had to change. */
  batchId: number | null;
  operators: { operatorId: number; operatorName: string; rows: number; partitioned: boolean }[];
}

/** The partition of a key of store `storeName`, at `n` partitions; null: the operator keeps one partition. */
type Router = ((storeName: string, key: string, n: number) => number) | null;

/** How an operator's keys are routed, from its schema file; undefined: not an operator this knows. */
function routerOf(d: StatefulOperatorDescriptor): Router | undefined {
  switch (d.operatorName) {
    case 'aggregate': {
      // A global aggregate (no grouping keys) keeps one partition whatever the parallelism.
      if (d.parts['grouping keys'] === '(none)') return null;
      const windowIndex = d.keySchema.findIndex((f) => f.type === 'window');
      return (_s, key, n) => partitionOfGroupKey(key, windowIndex, n);
    }
    case 'dedupe':
    case 'dedupeWithinWatermark':
      return (_s, key, n) => partitionOfDedupKey(key, n);
    case 'symmetricHashJoin':
      return partitionOfJoinStoreKey;
    case 'globalLimit':
      return null;
    default:
      return undefined;
  }
}

/** The store names under a partition directory ('' for the directory itself). */
function storeNameOf(partDir: string, dir: string): string {
  return dir === partDir ? '' : dir.slice(partDir.length + 1);
}

function storeDir(operatorId: number, partition: number, storeName: string): string {
  return `state/${operatorId}/${partition}${storeName ? `/${storeName}` : ''}`;
}

export async function repartitionState(fm: CheckpointFileManager, to: number): Promise<StateRepartition> {
  if (!Number.isSafeInteger(to) || to < 1 || to > MAX_PARALLELISM) {
    throw new RepartitionRefusedError(`--to must be a whole number of partitions from 1 to ${MAX_PARALLELISM} (a job's parallelism), got ${to}`);
  }
  const offsetLog = new OffsetSeqLog(fm);
  const commitLog = new CommitLog(fm);
  const latest = await offsetLog.getLatest();
  if (!latest) throw new RepartitionRefusedError(`${fm.description} has no offsets/: no query has run on it, so there is no state to move; start the job with parallelism ${to}`);

  // The committed batch whose state moves (P) and the batch written for the move (B = P + 1).
  let P = latest.batchId;
  let resumed: OffsetSeq | undefined;
  if (!(await commitLog.get(P))) {
    const from = latest.value.metadata.conf[REPARTITIONED_FROM_CONF];
    if (from === undefined) {
      throw new RepartitionRefusedError(
        `batch ${P} of ${fm.description} is not committed (offsets/${P} without commits/${P}): a run is inside it, or died there. ` +
          `Start the job with its current parallelism until it commits that batch (a restart re-runs it), stop it, then repartition.`,
        { pendingBatch: P },
      );
    }
    const target = recordedParallelism(latest.value.metadata.conf, offsetLog.pathOf(P));
    if (target !== to) {
      throw new RepartitionRefusedError(`batch ${P} is an interrupted repartition to ${target} partitions: finish it first with --to ${target}, then repartition again`, { pendingBatch: P });
    }
    resumed = latest.value;
    P -= 1;
  }
  const base = resumed ? await offsetLog.get(P) : latest.value;
  const baseCommit = await commitLog.get(P);
  if (!base || !baseCommit) throw new CorruptCheckpointError(commitLog.pathOf(P), `the repartition in batch ${P + 1} needs batch ${P} committed, and it is not`);
  const from = recordedParallelism(base.metadata.conf, offsetLog.pathOf(P));
  const B = P + 1;
  const version = B + 1;

  // Every operator's schema and router, before anything is written: an operator this cannot
  // move refuses the whole checkpoint.
  const recorded = statefulOperatorsOf(base.metadata) ?? [];
  const dirs = (await fm.list('state')).filter((n) => /^\d+$/.test(n)).map(Number);
  const ids = [...new Set([...recorded, ...dirs])].sort((a, b) => a - b);
  const checker = new StateSchemaCompatibilityChecker(fm);
  const ops: { schema: StatefulOperatorDescriptor & { stateStoreProvider?: string }; router: Router }[] = [];
  for (const id of ids) {
    const schema = await checker.stored(id);
    if (!schema) throw new CorruptCheckpointError(schemaFilePath(id), 'no state schema says which operator wrote this state, so its keys cannot be routed to new partitions', { missing: true });
    const router = routerOf(schema);
    if (router === undefined) {
      throw new RepartitionRefusedError(`stateful operator ${id} (${schema.operatorName}) keeps state this command cannot move between partitions; the checkpoint stays at ${from} partitions`, { operatorId: id });
    }
    ops.push({ schema, router });
  }
  const result: StateRepartition = { from, to, batchId: null, operators: [] };
  if (!resumed && from === to) {
    for (const { schema, router } of ops) result.operators.push({ operatorId: schema.operatorId, operatorName: schema.operatorName, rows: 0, partitioned: router !== null });
    return result;
  }

  // Every operator's rows are read (each file checked) and routed before anything is written: a
  // damaged or missing state file refuses the checkpoint as it was found.
  const movedOps: { operatorId: number; moved: Map<string, Map<string, string>>[] }[] = [];
  for (const { schema, router } of ops) {
    const change = CHANGE_FILE[(schema.stateStoreProvider as keyof typeof CHANGE_FILE | undefined) ?? DEFAULT_STATE_STORE_PROVIDER];
    const oldParts = router === null ? 1 : from;
    const newParts = router === null ? 1 : to;
    // New partition → store name ('' for the partition directory itself) → rows.
    const names = (await storeDirs(fm, `state/${schema.operatorId}/0`)).map((d) => storeNameOf(`state/${schema.operatorId}/0`, d));
    const moved = Array.from({ length: newParts }, () => new Map(names.map((n) => [n, new Map<string, string>()])));
    let rows = 0;
    for (let p = 0; p < oldParts; p++) {
      for (const name of names) {
        for (const [key, value] of await readStateVersion(fm, storeDir(schema.operatorId, p, name), version - 1, change)) {
          moved[router === null ? 0 : router(name, key, newParts)].get(name)!.set(key, value);
          rows++;
        }
      }
    }
    movedOps.push({ operatorId: schema.operatorId, moved });
    result.operators.push({ operatorId: schema.operatorId, operatorName: schema.operatorName, rows, partitioned: router !== null });
  }

  const watermarkMs = Math.max(base.metadata.batchWatermarkMs, baseCommit.nextBatchWatermarkMs);
  if (!resumed) {
    const seq: OffsetSeq = {
      offsets: base.offsets,
      metadata: {
        batchWatermarkMs: watermarkMs,
        batchTimestampMs: base.metadata.batchTimestampMs,
        conf: { ...base.metadata.conf, [SHUFFLE_PARTITIONS_CONF]: String(to), [REPARTITIONED_FROM_CONF]: String(from) },
      },
    };
    try {
      await offsetLog.add(B, seq);
    } catch (e) {
      if (!(e instanceof ConcurrentStreamLogUpdateError)) throw e;
      throw new RepartitionRefusedError(`another run wrote offsets/${B} of ${fm.description} while this command read it: stop the job that runs on this checkpoint, then repartition`, { batchId: B });
    }
  }

  for (const { operatorId, moved } of movedOps) {
    for (const [q, stores] of moved.entries()) {
      for (const [name, store] of stores) {
        const w = new StateFileWriter(version, 'snapshot');
        for (const [key, value] of store) w.put(key, value);
        await fm.createAtomic(`${storeDir(operatorId, q, name)}/${stateFileName(version, 'snapshot')}`, w.finish(), { overwrite: true });
      }
    }
  }

  await commitLog.add(B, { nextBatchWatermarkMs: watermarkMs });
  result.batchId = B;

  // The partitions past the new count are read by no one now: their files go (after the commit,
  // so a crash before it kept them for the re-run).
  for (const { schema, router } of ops) {
    if (router === null) continue;
    for (const part of await fm.list(`state/${schema.operatorId}`)) {
      if (!/^\d+$/.test(part) || Number(part) < to) continue;
      const partDir = `state/${schema.operatorId}/${part}`;
      for (const dir of await storeDirs(fm, partDir)) for (const f of await listStateFiles(fm, dir)) await fm.delete(`${dir}/${f.name}`);
    }
  }
  return result;
}
