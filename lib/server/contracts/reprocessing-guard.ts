/**
 * The second confirmation before a checkpoint is lost on purpose.
 *
 * Resetting a job's checkpoint, deleting a job with its checkpoint, and saving it with a new
 * checkpoint location all do the same thing to the next start: there is no offset log, so the
 * query starts from its source's start position and writes everything the source still retains
 * into the sink again (Spark's "new checkpoint = new query"). A sink that recognizes replayed
 * batch ids whatever query wrote them (files' batch log, upsert by key, complete-mode replace)
 * absorbs that; one that does not writes every row a second time: the checkpoint-loss incident.
 *
 * So the API refuses those changes (409 REPROCESSING_NOT_ACKNOWLEDGED) unless the request carries
 * `acknowledgeReprocessing: true`, when the sink already holds the job's rows and either
 * - its signature is at-least-once (nothing recognizes a batch twice), or
 * - it recognizes replays only within one query id: the transactional postgres sink keys its
 *   commit marker by the query id, and an idempotent webhook's key embeds it. A lost checkpoint
 *   is a new query id, so these write everything again too; the message says so.
 * The refusal says how many rows would be written again and from which start position.
 *
 * Restoring a savepoint of batch N (savepoint-service.ts) is the same risk over a shorter span:
 * the restored checkpoint has a new query id and resumes at N+1, so what the batches after N
 * wrote is what goes again (`sinceBatchId`), and a sink holding nothing of them is not asked.
 */
import type { Job, PrismaClient } from '@/lib/generated/prisma/client';
import { parseJobSpec } from '@/lib/engine';
import { rawSourcesOf } from '@/lib/engine/spec/spec-sources';
import { WeirError } from '@/lib/engine/errors';
import { auditSink } from '../drills/sink-audit';
import { contractOf } from './contract-fixes';

export type ReprocessingCause = 'reset-checkpoint' | 'delete-with-checkpoint' | 'checkpoint-location-change' | 'restore-savepoint' | 'new-job-from-savepoint';

class ReprocessingNotAcknowledgedError extends WeirError {
  constructor(message: string, details: Record<string, unknown>) {
    super('REPROCESSING_NOT_ACKNOWLEDGED', message, details);
  }
}

export interface ReprocessingRisk {
  /** Whether the change must be acknowledged. */
  asked: boolean;
  /** Why it is or is not asked, in a sentence. */
  why: string;
  /** Replays are recognized only within one query id (transactional postgres, idempotent webhook). */
  newQueryIdMatters: boolean;
  /** Rows the sink holds now, when Weir can read it back; null otherwise. */
  sinkRows: number | null;
  /** Rows the job's recorded batches wrote: what the source delivers again from its start. */
  historyRows: number;
  batches: number;
  firstBatchId: number | null;
  lastBatchId: number | null;
  /** Where the next start reads from. */
  startPosition: string;
  /** The whole explanation, as the API's message and the UI's second confirmation. */
  message: string;
}

type Obj = Record<string, unknown>;

/** The start position of a query with no checkpoint: every source reads from its beginning (each named, with several). */
export function startPositionOf(spec: Obj): string {
  const positions = rawSourcesOf(spec).map(({ source }) => sourceStartPosition((source ?? {}) as Obj));
  return positions.length ? positions.join(', and ') : 'the beginning of the source';
}

function sourceStartPosition(source: Obj): string {
  const o = (source.options ?? {}) as Obj;
  const name = String(source.name ?? source.type ?? 'the source');
  switch (source.type) {
    case 'files':
      return `the beginning of files source ${name}: every file still in ${String(o.path)}`;
    case 'postgres':
      return `the beginning of postgres source ${name}: every row of ${String(o.schema ?? 'public')}.${String(o.table)} from the smallest ${String(o.offsetColumn)}`;
    case 'redis-stream':
      return `the first entry of Redis stream ${String(o.stream)} still retained`;
    case 'nats-jetstream':
      return `the first message of JetStream stream ${String(o.stream)} still retained`;
    case 'rate':
      return 'offset 0 of the rate source';
    default:
      return `the beginning of ${String(source.type)} source ${name} (everything it still retains)`;
  }
}

/** Replays recognized only within one query id: a lost checkpoint (a new query id) writes again. */
function queryIdScoped(sinkType: string, signature: string): boolean {
  if (sinkType === 'postgres') return signature === 'transactional';
  if (sinkType === 'webhook') return signature === 'idempotent';
  return false;
}

const CAUSE_TEXT: Record<ReprocessingCause, string> = {
  'reset-checkpoint': 'Resetting the checkpoint',
  'delete-with-checkpoint': 'Deleting the job with its checkpoint (and creating it again on this sink)',
  'checkpoint-location-change': 'Moving the job to a new checkpoint location',
  'restore-savepoint': 'Resetting the job to this savepoint (with a new query id)',
  'new-job-from-savepoint': 'Starting a new job from this savepoint on the same sink (with a new query id)',
};

async function reprocessingRisk(db: PrismaClient, job: Job, cause: ReprocessingCause, spec: Obj = job.spec as Obj, sinceBatchId?: number): Promise<ReprocessingRisk> {
  const contract = contractOf(job.contract);
  const sinkType = job.sinkType;
  const signature = contract?.sink.signature ?? 'at-least-once';
  const newQueryIdMatters = queryIdScoped(sinkType, signature);
  const exposed = signature === 'at-least-once' || newQueryIdMatters;
  const after = sinceBatchId ?? -1;
  const history = await db.batchProgress.aggregate({ where: { jobId: job.id, batchId: { gt: after } }, _count: true, _min: { batchId: true }, _max: { batchId: true } });
  const rowsResult = await db.$queryRaw<{ n: bigint | null }[]>`
    SELECT sum(GREATEST(0, COALESCE((progress->'sink'->>'numOutputRows')::bigint, 0))) AS n FROM "BatchProgress" WHERE "jobId" = ${job.id} AND "batchId" > ${after}`;
  const historyRows = Number(rowsResult[0]?.n ?? 0);
  const startPosition = sinceBatchId === undefined ? startPositionOf(spec) : `the end offsets of the savepoint's batch ${sinceBatchId}`;
  const base = {
    newQueryIdMatters,
    historyRows,
    batches: history._count,
    firstBatchId: history._min.batchId,
    lastBatchId: history._max.batchId,
    startPosition,
  };
  if (!exposed) {
    const why = `The ${sinkType} sink is ${signature}: it recognizes a batch it already holds whatever query wrote it, so reprocessing from ${startPosition} writes nothing twice.`;
    return { ...base, asked: false, why, sinkRows: null, message: why };
  }
  let sinkRows: number | null = null;
  const parsed = parseJobSpec(spec);
  if (parsed.ok) {
    try {
      const audit = await auditSink(parsed.spec, []);
      sinkRows = audit.readable ? audit.totalActual : null;
    } catch {
      // unreachable or not readable: judge by the batch history alone
      sinkRows = null;
    }
  }
  // After a savepoint, only what the later batches wrote goes again.
  const holds = sinceBatchId !== undefined ? historyRows > 0 : sinkRows !== null ? sinkRows > 0 : historyRows > 0;
  const idNote = newQueryIdMatters
    ? ` The ${sinkType} sink is ${signature}, but it recognizes replayed batches only within one query id (${sinkType === 'postgres' ? 'its _weir_sink_commits marker is keyed by the query id' : 'the Idempotency-Key embeds the query id'}); a new checkpoint is a new query id, so nothing it holds is recognized.`
    : ` The ${sinkType} sink is at-least-once: nothing recognizes a batch it already holds.`;
  if (!holds) {
    const why = `The ${sinkType} sink holds no rows of this job yet, so reprocessing from ${startPosition} doubles nothing.`;
    return { ...base, asked: false, why, sinkRows, message: why };
  }
  const span = base.batches > 0 ? `batches ${base.firstBatchId}–${base.lastBatchId} wrote ${historyRows} rows` : 'no batch history is recorded';
  const held = sinkRows !== null ? `The sink holds ${sinkRows} rows now; ` : '';
  const message =
    `${CAUSE_TEXT[cause]} makes the next start read from ${startPosition}, and write into the sink what it already holds: ` +
    `${held}${span}, so about ${rowsWrittenAgain(historyRows, sinkRows)} rows would be written again (as many as the source still retains).${idNote} ` +
    (sinceBatchId !== undefined
      ? `That is at-least-once for batches after ${sinceBatchId}, as a Flink restore from a savepoint re-emits: remove those rows from the sink first if they must not appear twice. To go ahead, send acknowledgeReprocessing: true.`
      : 'To keep the data right, empty the sink first (or switch to an idempotent sink, e.g. postgres-upsert). To go ahead anyway, send acknowledgeReprocessing: true.');
  return { ...base, asked: true, why: idNote.trim(), sinkRows, message };
}

/**
 * What reprocessing writes again: the committed batches' output, which the source delivers again
 * from its start; with no history left (an earlier reset deleted it), what the sink holds.
 */
function rowsWrittenAgain(historyRows: number, sinkRows: number | null): number {
  return historyRows > 0 ? historyRows : (sinkRows ?? 0);
}

/** Refuses (409) a checkpoint-losing change on an exposed sink that already holds rows, unless acknowledged. */
export async function assertReprocessingAcknowledged(db: PrismaClient, job: Job, cause: ReprocessingCause, acknowledged: boolean | undefined, spec?: Obj, sinceBatchId?: number): Promise<ReprocessingRisk> {
  const risk = await reprocessingRisk(db, job, cause, spec, sinceBatchId);
  if (risk.asked && acknowledged !== true) {
    throw new ReprocessingNotAcknowledgedError(risk.message, {
      cause,
      rowsWrittenAgain: rowsWrittenAgain(risk.historyRows, risk.sinkRows),
      sinkRows: risk.sinkRows,
      historyRows: risk.historyRows,
      batches: risk.batches,
      firstBatchId: risk.firstBatchId,
      lastBatchId: risk.lastBatchId,
      startPosition: risk.startPosition,
      newQueryIdMatters: risk.newQueryIdMatters,
      acknowledgeWith: 'acknowledgeReprocessing',
    });
  }
  return risk;
}
