/**
 * What a running query is made of: the source and sink built from the registries, the compiled
 * operators, the state stores of stateful operators, the watermark rule, and the contract
 * audit. MicroBatchExecution drives it batch by batch; this keeps the protocol file about the
 * protocol.
 */
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';
import type { Clock } from '../clock';
import { auditContract, sourcesContract, type ContractAudit } from '../contract';
import { ValidationError } from '../errors';
import { allOperators, isStatefulOperator, type OperatorContext, type StateOperatorProgress, type StatefulOperator } from '../operators/physical-operator';
import { batchEventTimes, mergeEventTimeStats, WatermarkTracker, type EventTimeStats } from '../operators/watermark';
import { compileStreamingQuery, type CompiledStreamingQuery } from '../query/streaming-query';
import { parseDuration } from '../spec/duration';
import { DEFAULT_MULTIPLE_WATERMARK_POLICY, stateStoreProviderOf, type JobSpec, type MultipleWatermarkPolicy } from '../spec/job-spec';
import type { StreamingRelation } from '../query/logical-plan';
import { getSinkDefinition } from '../sinks/index';
import type { Sink } from '../sinks/sink';
import { getSourceDefinition } from '../sources/index';
import type { Source, SourceBatch } from '../sources/source';
import { storeKey, type StateStore, type StateStoreId, type StateStoreProvider } from '../state/state-store';
import { FileBackedStateStoreProvider } from '../state/file-backed-state-store-provider';
import { LmdbStateStoreProvider } from '../state/lmdb-state-store-provider';
import { checkStateCompatibility } from '../state/state-schema-compatibility-checker';
import type { Row, Schema } from '../types';

export interface QueryRuntimeDeps {
  clock: Clock;
  checkpoint: CheckpointFileManager;
  queryId: string;
  /** Ready-made sources, one per spec source in order (tests, embedding). */
  sources?: Source[];
  sink?: Sink;
  stateStoreProvider?: (id: StateStoreId, checkpoint: CheckpointFileManager) => StateStoreProvider;
  /**
   * Directory on this machine where a provider that keeps a local copy of the state (`lmdb`) puts
   * it, one subdirectory per query (a worker's data directory). Default: under the OS temp dir.
   */
  stateLocalDir?: string;
}

export interface BatchResult {
  rows: Row[];
  /** The event times of the whole batch (progress `eventTime`), over every source with one. */
  eventTimes?: EventTimeStats;
  /** Each source's event times (undefined: no event time, or no row with one), in source order. */
  sourceEventTimes: (EventTimeStats | undefined)[];
}

/** One source's part of a batch: its rows and what the source says it read. */
export type SourceInput = Pick<SourceBatch, 'rows' | 'scanned'>;

/** The streaming relations (source name, schema, watermark) that a spec's SQL reads, one per source in order. */
export function relationsOf(spec: Pick<JobSpec, 'sources'>): StreamingRelation[] {
  return spec.sources.map((s) => ({
    kind: 'StreamingRelation' as const,
    sourceName: s.name,
    schema: s.schema as Schema,
    eventTime: s.eventTime,
    watermarkDelayMs: s.watermarkDelay ? parseDuration(s.watermarkDelay) ?? 0 : undefined,
  }));
}

/**
 * The spec's state store provider, per store. State versions are kept as long as the checkpoint
 * logs (Spark's minBatchesToRetain covers both). The LMDB provider's local copy goes under the
 * query's own directory: its environments are keyed by the query id, which the checkpoint keeps.
 */
function stateStoreProviderFactory(spec: JobSpec, deps: QueryRuntimeDeps): (id: StateStoreId, cp: CheckpointFileManager) => StateStoreProvider {
  const conf = { minVersionsToRetain: spec.minBatchesToRetain };
  if (stateStoreProviderOf(spec) === 'lmdb') {
    const localDir = path.join(deps.stateLocalDir ?? path.join(tmpdir(), 'weir-state'), deps.queryId);
    return (id, cp) => new LmdbStateStoreProvider(cp, id, conf, { localDir }, deps.clock);
  }
  return (id, cp) => new FileBackedStateStoreProvider(cp, id, conf, deps.clock);
}

export class QueryRuntime {
  readonly hasEventTime: boolean;
  /** Spark's WatermarkTracker; its policy is set from the checkpoint at start (useWatermarkPolicy). */
  private watermarkTracker: WatermarkTracker;
  private readonly providers = new Map<string, StateStoreProvider>();
  private openStores: StateStore[] = [];
  private readonly stateful: StatefulOperator[];
  private maintenance?: Promise<void>;

  private constructor(
    readonly spec: JobSpec,
    readonly query: CompiledStreamingQuery,
    /** One per spec source, in order. */
    readonly sources: Source[],
    readonly sink: Sink,
    readonly contract: ContractAudit,
    private readonly deps: QueryRuntimeDeps,
  ) {
    this.hasEventTime = spec.sources.some((s) => s.eventTime !== undefined);
    this.watermarkTracker = this.newWatermarkTracker(spec.multipleWatermarkPolicy ?? DEFAULT_MULTIPLE_WATERMARK_POLICY);
    // A union's branches and a join's sides may hold stateful operators too.
    this.stateful = allOperators(query.operators).filter(isStatefulOperator);
  }

  static async create(spec: JobSpec, deps: QueryRuntimeDeps): Promise<QueryRuntime> {
    const query = compileStreamingQuery(spec.sql, relationsOf(spec), { outputMode: spec.outputMode, dedup: spec.dedup, staticTables: spec.staticTables });
    if (query.stateful) {
      // State lives in the checkpoint, versioned per batch; refuse a restart whose stateful plan changed.
      const provider = stateStoreProviderOf(spec);
      deps = { ...deps, stateStoreProvider: deps.stateStoreProvider ?? stateStoreProviderFactory(spec, deps) };
      await checkStateCompatibility(deps.checkpoint, query.statefulOperators, { type: spec.source.type, options: spec.source.options }, { provider });
    }
    // Each source keeps its own log under sources/<i>, as Spark's.
    const sources = deps.sources ?? spec.sources.map((s, i) => {
      const def = getSourceDefinition(s.type);
      if (!def) throw new ValidationError(`unknown source type "${s.type}"`, { path: `${sourcePath(spec, i)}.type` });
      return def.create(s.options as never, {
        name: s.name,
        schema: s.schema,
        requiredColumns: query.sourceColumns,
        pushedFilter: pushedFilter(query),
        eventTime: s.eventTime,
        checkpoint: deps.checkpoint,
        metadataPath: `sources/${i}`,
        clock: deps.clock,
        queryId: deps.queryId,
      });
    });
    if (sources.length !== spec.sources.length) throw new Error(`Internal: ${sources.length} sources given for a spec of ${spec.sources.length}`);
    let sink = deps.sink;
    if (!sink) {
      const def = getSinkDefinition(spec.sink.type);
      if (!def) throw new ValidationError(`unknown sink type "${spec.sink.type}"`, { path: 'sink.type' });
      sink = def.create(spec.sink.options as never, { clock: deps.clock, jobName: spec.name, queryId: deps.queryId });
    }
    for (const source of sources) await source.open?.();
    await sink.open?.();
    const contract = auditContract({
      source: sourcesContract(sources.map((s, i) => ({ name: spec.sources[i].name, replayable: s.replayable, reason: s.replayableReason }))),
      checkpoint: { outlivesMachine: deps.checkpoint.outlivesMachine, description: deps.checkpoint.description },
      sink: { signature: sink.signature, reason: sink.signatureReason },
    });
    return new QueryRuntime(spec, query, sources, sink, contract, deps);
  }

  /** A no-data batch is worth running when a stateful plan's watermark would evict state. */
  needsNoDataBatch(watermarkMs: number): boolean {
    // Stateless plans never need one; stateful operators say whether the watermark closes or evicts something.
    return this.stateful.some((op) => op.shouldRunAnotherBatch?.(watermarkMs) ?? false);
  }

  private provider(id: StateStoreId): StateStoreProvider {
    const key = storeKey(id);
    let p = this.providers.get(key);
    if (!p) this.providers.set(key, (p = this.deps.stateStoreProvider!(id, this.deps.checkpoint)));
    return p;
  }

  /** Runs the batch over each source's input (in source order; a one-source plan starts from the first's rows). */
  async execute(inputs: SourceInput[], b: Pick<OperatorContext, 'batchId' | 'batchWatermarkMs' | 'batchTimestampMs' | 'onRecordError'>): Promise<BatchResult> {
    const ctx: OperatorContext = { ...b, inputs: new Map(this.spec.sources.map((s, i) => [s.name, inputs[i].rows])) };
    if (this.stateful.length) {
      ctx.stateStores = new Map();
      for (const op of this.stateful) {
        for (let partitionId = 0; partitionId < (op.numPartitions ?? 1); partitionId++) {
          for (const storeName of op.storeNames ?? [undefined]) {
            const id: StateStoreId = { operatorId: op.operatorId, partitionId, ...(storeName ? { storeName } : {}) };
            const store = await this.provider(id).getStore(b.batchId);
            ctx.stateStores.set(storeKey(id), store);
            this.openStores.push(store);
          }
        }
      }
    }
    let rows = inputs[0].rows;
    for (const op of this.query.operators) rows = await op.execute(rows, ctx);
    // A source column's event times come from the source rows (before any WHERE, as Spark's
    // withWatermark on the source; operators never change their input rows), a derived one's
    // from its EventTimeWatermark operator. A source that skipped rows by the pushed filter folded
    // the event times of all it read.
    const sourceEventTimes = this.spec.sources.map(({ eventTime, schema }, i) => {
      const { rows: input, scanned } = inputs[i];
      return eventTime === undefined ? undefined
        : scanned && schema.some((f) => f.name === eventTime) ? scanned.eventTimes
        : batchEventTimes(input, eventTime, schema, ctx);
    });
    return { rows, eventTimes: mergeEventTimeStats(sourceEventTimes, inputs), sourceEventTimes };
  }

  /**
   * The stores execute() opened for the running batch (each at version N), in operator order:
   * MicroBatchExecution commits them (the first beside the sink write), then calls stateCommitted,
   * or abortState if anything failed first.
   */
  batchStateStores(): readonly StateStore[] {
    return this.openStores;
  }

  /**
   * Every store of the batch is durable at `version` (N+1): each stateful operator confirms what
   * it kept aside while running the batch (StatefulOperator.onCommitted).
   */
  stateCommitted(version: number): void {
    this.openStores = [];
    for (const op of this.stateful) op.onCommitted(version);
  }

  /**
   * The batch failed before its stores all committed: the uncommitted ones discard their changes
   * (a committed one is left as it is: the re-run loads version N and commits N+1 again) and each
   * stateful operator forgets what it kept aside (StatefulOperator.onAborted).
   */
  abortState(): void {
    for (const s of this.openStores) s.abort();
    this.openStores = [];
    for (const op of this.stateful) op.onAborted();
  }

  /** The stateful operators' figures for the committed batch's progress. */
  stateOperatorProgress(): StateOperatorProgress[] {
    return this.stateful.map((op) => op.progress());
  }

  /**
   * Snapshots and retention (Spark's maintenance task), started after commits/N and never
   * awaited by a batch: it never changes what a version loads as, and a provider lets the next
   * batch change the state while it snapshots the committed version. One round at a time; a
   * failure is reported through `onMaintenanceError` and retried at the next round.
   */
  startStateMaintenance(onMaintenanceError?: (e: unknown) => void): void {
    if (this.maintenance || this.providers.size === 0) return;
    const providers = [...this.providers.values()];
    this.maintenance = (async () => {
      for (const p of providers) await p.maintenance();
    })()
      .catch((e: unknown) => onMaintenanceError?.(e))
      .finally(() => (this.maintenance = undefined));
  }

  /**
   * The policy recorded in the checkpoint wins over the spec's, as Spark restores
   * spark.sql.streaming.multipleWatermarkPolicy from OffsetSeqMetadata.conf.
   */
  useWatermarkPolicy(policy: MultipleWatermarkPolicy): void {
    this.watermarkTracker = this.newWatermarkTracker(policy);
  }

  get watermarkPolicy(): MultipleWatermarkPolicy {
    return this.watermarkTracker.policy;
  }

  private newWatermarkTracker(policy: MultipleWatermarkPolicy): WatermarkTracker {
    return new WatermarkTracker(policy, relationsOf(this.spec).map((r) => (r.eventTime === undefined ? undefined : r.watermarkDelayMs ?? 0)));
  }

  /** The global watermark after a batch (Spark's WatermarkTracker.updateWatermark, operators/watermark.ts). */
  nextWatermark(currentMs: number, sourceEventTimes: readonly (EventTimeStats | undefined)[]): number {
    return this.watermarkTracker.updateWatermark(currentMs, sourceEventTimes);
  }

  async close(): Promise<void> {
    await this.maintenance;
    for (const s of this.openStores) s.abort();
    this.openStores = [];
    for (const p of this.providers.values()) await p.close();
    for (const source of this.sources) await source.stop();
    await this.sink.close();
  }
}

/** A spec source's field path: `source` for a spec written with one, `sources.<i>` otherwise. */
export function sourcePath(spec: Pick<JobSpec, 'sources'>, i: number): string {
  return spec.sources.length === 1 ? 'source' : `sources.${i}`;
}

/**
 * The scan-time form of the query's pushed filter: false only where the predicate is not TRUE.
 * A row whose predicate throws is kept, so the Filter meets it and diverts it as a bad record.
 * The predicate calls no function (scanFilterOf), so the batch's timestamp is never read.
 */
function pushedFilter(query: CompiledStreamingQuery): ((row: Row) => boolean) | undefined {
  const p = query.scanFilter;
  if (!p) return undefined;
  const ctx = { batchTimestampMs: 0 };
  return (row) => {
    try {
      return p(row, ctx) === true;
    } catch {
      return true;
    }
  };
}
