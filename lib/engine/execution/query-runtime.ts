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
import { auditContract, type ContractAudit } from '../contract';
import { ValidationError } from '../errors';
import { isStatefulOperator, type OperatorContext, type StateOperatorProgress, type StatefulOperator } from '../operators/physical-operator';
import { batchEventTimes, nextWatermark } from '../operators/watermark';
import { compileStreamingQuery, type CompiledStreamingQuery } from '../query/streaming-query';
import { parseDuration } from '../spec/duration';
import { stateStoreProviderOf, type JobSpec } from '../spec/job-spec';
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
  source?: Source;
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
  eventTimes?: { min: number; max: number; avg: number };
}

/** The streaming relation (source name, schema, watermark) that a spec's SQL reads. */
export function relationOf(spec: JobSpec) {
  return {
    kind: 'StreamingRelation' as const,
    sourceName: spec.source.name,
    schema: spec.source.schema as Schema,
    eventTime: spec.source.eventTime,
    watermarkDelayMs: spec.source.watermarkDelay ? parseDuration(spec.source.watermarkDelay) ?? 0 : undefined,
  };
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
  private readonly delayMs: number;
  private readonly providers = new Map<string, StateStoreProvider>();
  private openStores: StateStore[] = [];
  private readonly stateful: StatefulOperator[];
  private maintenance?: Promise<void>;

  private constructor(
    readonly spec: JobSpec,
    readonly query: CompiledStreamingQuery,
    readonly source: Source,
    readonly sink: Sink,
    readonly contract: ContractAudit,
    private readonly deps: QueryRuntimeDeps,
  ) {
    this.hasEventTime = spec.source.eventTime !== undefined;
    this.delayMs = relationOf(spec).watermarkDelayMs ?? 0;
    this.stateful = query.operators.filter(isStatefulOperator);
  }

  static async create(spec: JobSpec, deps: QueryRuntimeDeps): Promise<QueryRuntime> {
    const query = compileStreamingQuery(spec.sql, relationOf(spec), { outputMode: spec.outputMode, dedup: spec.dedup, staticTables: spec.staticTables });
    if (query.stateful) {
      // State lives in the checkpoint, versioned per batch; refuse a restart whose stateful plan changed.
      const provider = stateStoreProviderOf(spec);
      deps = { ...deps, stateStoreProvider: deps.stateStoreProvider ?? stateStoreProviderFactory(spec, deps) };
      await checkStateCompatibility(deps.checkpoint, query.statefulOperators, { type: spec.source.type, options: spec.source.options }, { provider });
    }
    let source = deps.source;
    if (!source) {
      const def = getSourceDefinition(spec.source.type);
      if (!def) throw new ValidationError(`unknown source type "${spec.source.type}"`, { path: 'source.type' });
      source = def.create(spec.source.options as never, {
        name: spec.source.name,
        schema: spec.source.schema,
        requiredColumns: query.sourceColumns,
        pushedFilter: pushedFilter(query),
        eventTime: spec.source.eventTime,
        checkpoint: deps.checkpoint,
        metadataPath: 'sources/0',
        clock: deps.clock,
        queryId: deps.queryId,
      });
    }
    let sink = deps.sink;
    if (!sink) {
      const def = getSinkDefinition(spec.sink.type);
      if (!def) throw new ValidationError(`unknown sink type "${spec.sink.type}"`, { path: 'sink.type' });
      sink = def.create(spec.sink.options as never, { clock: deps.clock, jobName: spec.name, queryId: deps.queryId });
    }
    await source.open?.();
    await sink.open?.();
    const contract = auditContract({
      source: { replayable: source.replayable, reason: source.replayableReason },
      checkpoint: { outlivesMachine: deps.checkpoint.outlivesMachine, description: deps.checkpoint.description },
      sink: { signature: sink.signature, reason: sink.signatureReason },
    });
    return new QueryRuntime(spec, query, source, sink, contract, deps);
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

  async execute(input: Row[], b: Pick<OperatorContext, 'batchId' | 'batchWatermarkMs' | 'batchTimestampMs' | 'onRecordError'>, scanned?: SourceBatch['scanned']): Promise<BatchResult> {
    const ctx: OperatorContext = { ...b };
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
    let rows = input;
    for (const op of this.query.operators) rows = await op.execute(rows, ctx);
    // A source column's event times come from the source rows (before any WHERE, as Spark's
    // withWatermark on the source; operators never change their input rows), a derived one's
    // from its EventTimeWatermark operator. A source that skipped rows by the pushed filter folded
    // the event times of all it read.
    const eventTime = this.spec.source.eventTime;
    const eventTimes =
      eventTime === undefined ? undefined
      : scanned && this.spec.source.schema.some((f) => f.name === eventTime) ? scanned.eventTimes
      : batchEventTimes(input, eventTime, this.spec.source.schema, ctx);
    return { rows, eventTimes };
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

  /** max(event time seen) - delay, never below the current watermark (operators/watermark.ts). */
  nextWatermark(currentMs: number, stats?: { max: number }): number {
    return nextWatermark(currentMs, stats, this.delayMs);
  }

  async close(): Promise<void> {
    await this.maintenance;
    for (const s of this.openStores) s.abort();
    this.openStores = [];
    for (const p of this.providers.values()) await p.close();
    await this.source.stop();
    await this.sink.close();
  }
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
