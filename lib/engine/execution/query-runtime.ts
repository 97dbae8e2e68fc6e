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
import { AnalysisException, ValidationError } from '../errors';
import { StatefulAggregateExec } from '../operators/aggregate';
import { FilterExec } from '../operators/filter-exec';
import { GenerateExec } from '../operators/generate-exec';
import { allOperators, isStatefulOperator, type OperatorContext, type PhysicalOperator, type StateOperatorProgress, type StatefulOperator } from '../operators/physical-operator';
import { ProjectExec } from '../operators/project-exec';
import { StreamStaticJoinExec } from '../operators/stream-static-join';
import { batchEventTimes, EventTimeStatsAccumulator, mergeEventTimeStats, WatermarkTracker, type EventTimeStats } from '../operators/watermark';
import { compileStreamingQuery, readsSource, type CompiledStreamingQuery, type EventTimeWatermarkNode } from '../query/streaming-query';
import type { EvalContext, Evaluator } from '../query/expression-compiler';
import { watermarkDelayMs } from '../spec/watermark-delay';
import { DEFAULT_MULTIPLE_WATERMARK_POLICY, maintenanceIntervalMsOf, stateStoreProviderOf, type JobSpec, type MultipleWatermarkPolicy } from '../spec/job-spec';
import type { StreamingRelation } from '../query/logical-plan';
import { getSinkDefinition, outputColumnsChecked } from '../sinks/index';
import type { Sink } from '../sinks/sink';
import { getSourceDefinition } from '../sources/index';
import type { Source, SourceBatch } from '../sources/source';
import { storeKey, type StateStore, type StateStoreId, type StateStoreProvider } from '../state/state-store';
import { FileBackedStateStoreProvider } from '../state/file-backed-state-store-provider';
import { LmdbStateStoreProvider } from '../state/lmdb-state-store-provider';
import { MaintenanceSchedule } from '../state/maintenance-schedule';
import { checkStateCompatibility } from '../state/state-schema-compatibility-checker';
import type { Offset, Row, Schema } from '../types';
import { RecordExpressionError } from '../errors';
import { LocalTaskScheduler, shuffleRows, type MapStatus, type MapTask, type ReduceTask, type TaskResult, type TaskScheduler } from './task-scheduler';

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
  /**
   * State partitions of each keyed stateful operator: the checkpoint's recorded parallelism
   * (spark.sql.shuffle.partitions), which wins over the spec's. Default: the spec's.
   */
  numPartitions?: number;
  /** Where the reduce tasks of a stateful stage run (default: this process, LocalTaskScheduler). */
  taskScheduler?: TaskScheduler;
}

export interface BatchResult {
  /** The batch's output; empty when the last stage's tasks wrote it to the sink (sinkCommits). */
  rows: Row[];
  /** Set when the last stage's reduce tasks wrote the output themselves: their commit messages, in partition order, for SinkCommitProtocol.commitJob. */
  sinkCommits?: StageSinkCommits;
  /** The event times of the whole batch (progress `eventTime`), over every source with one. */
  eventTimes?: EventTimeStats;
  /** The event times each input of the watermark saw (QueryRuntime.watermarkInputs; undefined: no row with one), in order. */
  watermarkEventTimes: (EventTimeStats | undefined)[];
}

/**
 * A batch whose first stateful stage ran as map and reduce tasks (QueryRuntime.runMapStage):
 * what its map tasks read, as one SourceBatch without rows, and the stage's output.
 */
export interface MappedBatch {
  /** The stage that ran (the operators up to it did): the map stage's, or the pipelined one's. */
  stageId: number;
  input: SourceBatch;
  /** The stage's output rows, in partition order (none when its tasks wrote them to the sink: sinkCommits). */
  rows: Row[];
  sinkCommits?: StageSinkCommits;
  /** Event times a derived event-time column collected in the map tasks (OperatorContext.eventTimes). */
  eventTimes?: OperatorContext['eventTimes'];
  /** What each of the query's eventTimeWatermarks folded over the map tasks' reads, in order. */
  watermarkEventTimes: (EventTimeStats | undefined)[];
  /** Rows the map tasks' stateless operators set aside; the driver's bad-record policy takes them. */
  expressionErrors: { row: Row; error: RecordExpressionError }[];
  /**
   * What an operator of the pipelined stage threw: the batch fails with it once the source's bad
   * records had their say (a bad record under onBadRecord "fail" fails a batch before any operator).
   */
  failure?: { error: unknown };
}

/** What the reduce tasks that wrote the sink returned: one commit message per task, and the rows they wrote. */
export interface StageSinkCommits {
  messages: unknown[];
  numOutputRows: number;
  /** Rows the stateless operators after the stage set aside in the tasks; the driver's bad-record policy takes them. */
  expressionErrors: { row: Row; error: RecordExpressionError }[];
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
    watermarkDelayMs: s.watermarkDelay ? watermarkDelayMs(s.watermarkDelay) : undefined,
    ...(getSourceDefinition(s.type)?.metadataColumn ? { metadataColumn: true } : {}),
  }));
}

/**
 * The spec's state store provider, per store. State versions are kept as long as the checkpoint
 * logs (Spark's minBatchesToRetain covers both). The LMDB provider's local copy goes under the
 * query's own directory: its environments are keyed by the query id, which the checkpoint keeps.
 */
export function stateStoreProviderFactory(spec: JobSpec, deps: Pick<QueryRuntimeDeps, 'stateLocalDir' | 'queryId' | 'clock'>): (id: StateStoreId, cp: CheckpointFileManager) => StateStoreProvider {
  const conf = { minVersionsToRetain: spec.minBatchesToRetain };
  if (stateStoreProviderOf(spec) === 'lmdb') {
    const localDir = path.join(deps.stateLocalDir ?? path.join(tmpdir(), 'weir-state'), deps.queryId);
    return (id, cp) => new LmdbStateStoreProvider(cp, id, conf, { localDir }, deps.clock);
  }
  return (id, cp) => new FileBackedStateStoreProvider(cp, id, conf, deps.clock);
}

/**
 * An input of the global watermark (Spark's EventTimeWatermark node, with its own watermark):
 * `node`, a read of source `source`'s event-time column (CompiledStreamingQuery.eventTimeWatermarks),
 * or, without it, the source's event time the SQL derives (or a source the query never reads).
 */
interface WatermarkInput {
  source: number;
  node?: number;
}

export class QueryRuntime {
  readonly hasEventTime: boolean;
  /** The global watermark's inputs, in the order the tracker keeps their watermarks. */
  private readonly watermarkInputs: WatermarkInput[];
  /** Spark's WatermarkTracker; its policy is set from the checkpoint at start (useWatermarkPolicy). */
  private watermarkTracker: WatermarkTracker;
  private readonly providers = new Map<string, StateStoreProvider>();
  private openStores: StateStore[] = [];
  private readonly stateful: StatefulOperator[];
  /**
   * Per stateful stage (by operator index), the operator instance of each state partition: a
   * reduce task runs its own instance, so what an operator keeps between batches (decoded
   * groups, eviction bookkeeping) is its partition's, as on an executor. Index 0 is the query's own.
   */
  private readonly stages = new Map<number, StatefulOperator[]>();
  /** The parallelism the query runs with (spark.sql.shuffle.partitions, recorded in offsets/N). */
  readonly numPartitions: number;
  private readonly taskScheduler: TaskScheduler;
  /**
   * The stage whose map side runs as map tasks where the scheduler puts them, each reading its
   * split of the source (runMapStage): set when the scheduler runs map tasks and the plan allows.
   */
  readonly mapStageId?: number;
  /**
   * The first stateful operator, when the source reads in pieces and only row-at-a-time operators
   * come before it (pipelinedStageOf): each piece goes through those and into its fold as it is
   * read (runPipelinedStage), as Spark's whole-stage code runs a scan's rows through the filter,
   * the projection, a broadcast join and the partial aggregation one at a time.
   */
  readonly pipelinedStageId?: number;
  /** The stores runPipelinedStage opened for the running batch (execute uses them). */
  private pipelinedStores?: Map<string, StateStore>;
  /**
   * The stage whose reduce tasks write the batch's output to the sink themselves (Spark's write
   * tasks with a FileCommitProtocol), running the stateless operators after it in the same task
   * (sinkStageOf): when the tasks run remotely and the sink has a commit protocol. The driver
   * then commits the batch from their messages.
   */
  private readonly sinkStageId?: number;
  /**
   * With a remote scheduler, per stage: its tasks' state figures of the last batch, and that
   * batch's watermark (the driver's own instances of a remote stage never run).
   */
  private readonly remoteStages = new Map<number, { progress: StateOperatorProgress[]; batchWatermarkMs: number }>();
  private maintenance?: Promise<void>;
  private readonly maintenanceSchedule: MaintenanceSchedule;

  private constructor(
    readonly spec: JobSpec,
    readonly query: CompiledStreamingQuery,
    /** One per spec source, in order. */
    readonly sources: Source[],
    readonly sink: Sink,
    readonly contract: ContractAudit,
    private readonly deps: QueryRuntimeDeps,
    /** The same query compiled once more per state partition above 0 (the reduce tasks' operators). */
    partitionQueries: CompiledStreamingQuery[] = [],
  ) {
    this.numPartitions = deps.numPartitions ?? spec.parallelism;
    this.maintenanceSchedule = new MaintenanceSchedule(maintenanceIntervalMsOf(spec), deps.clock.now());
    this.taskScheduler = deps.taskScheduler ?? new LocalTaskScheduler();
    query.operators.forEach((op, i) => {
      if (isStatefulOperator(op) && isPartitioned(op)) this.stages.set(i, [op, ...partitionQueries.map((q) => q.operators[i] as StatefulOperator)]);
    });
    if (this.taskScheduler.submitMapStage) this.mapStageId = mapStageOf(spec, query);
    if (this.taskScheduler.remote && this.taskScheduler.tasksWriteSink && sink.commitProtocol) this.sinkStageId = sinkStageOf(query);
    this.hasEventTime = spec.sources.some((s) => s.eventTime !== undefined);
    this.watermarkInputs = spec.sources.flatMap((s, source) => {
      // A source the SQL does not read is no input of the query's watermark: Spark's global
      // watermark is chosen among the plan's EventTimeWatermark nodes, and an unread source
      // with no rows would hold a min policy at 0, so that no window ever closed.
      if (s.eventTime === undefined || !readsSource(query, s.name)) return [];
      const nodes = query.eventTimeWatermarks.flatMap((n, node) => (n.sourceName === s.name ? [{ source, node }] : []));
      return nodes.length ? nodes : [{ source }];
    });
    this.watermarkTracker = this.newWatermarkTracker(spec.multipleWatermarkPolicy ?? DEFAULT_MULTIPLE_WATERMARK_POLICY);
    // A watermark input without a node folds the rows that reach the sink's side (batchEventTimes): not pipelined.
    if (this.mapStageId === undefined && this.watermarkInputs.every((w) => w.node !== undefined)) this.pipelinedStageId = pipelinedStageOf(query, sources);
    // A union's branches and a join's sides may hold stateful operators too.
    this.stateful = allOperators(query.operators).filter(isStatefulOperator);
  }

  static async create(spec: JobSpec, deps: QueryRuntimeDeps): Promise<QueryRuntime> {
    const numPartitions = deps.numPartitions ?? spec.parallelism;
    deps = { ...deps, numPartitions };
    const compile = () => compileQuery(spec, numPartitions);
    const query = compileQuery(spec, numPartitions);
    const partitionQueries = query.operators.some((op) => isStatefulOperator(op) && isPartitioned(op)) ? Array.from({ length: numPartitions - 1 }, compile) : [];
    if (query.stateful) {
      // State lives in the checkpoint, versioned per batch; refuse a restart whose stateful plan changed.
      const provider = stateStoreProviderOf(spec);
      deps = { ...deps, stateStoreProvider: deps.stateStoreProvider ?? stateStoreProviderFactory(spec, deps) };
      await checkStateCompatibility(deps.checkpoint, query.statefulOperators, { type: spec.source.type, options: spec.source.options }, { provider });
    }
    // Each source keeps its own log under sources/<i>, as Spark's.
    const sources = deps.sources ?? spec.sources.map((_, i) => createSource(spec, i, query, deps));
    if (sources.length !== spec.sources.length) throw new Error(`Internal: ${sources.length} sources given for a spec of ${spec.sources.length}`);
    const sink = deps.sink ?? createSink(spec, deps);
    for (const source of sources) await source.open?.();
    await sink.open?.();
    const contract = auditContract({
      source: sourcesContract(sources.map((s, i) => ({ name: spec.sources[i].name, replayable: s.replayable, reason: s.replayableReason }))),
      checkpoint: { outlivesMachine: deps.checkpoint.outlivesMachine, description: deps.checkpoint.description },
      sink: { signature: sink.signature, reason: sink.signatureReason },
    });
    return new QueryRuntime(spec, query, sources, sink, contract, deps, partitionQueries);
  }

  /** A no-data batch is worth running when a stateful plan's watermark would evict state. */
  needsNoDataBatch(watermarkMs: number): boolean {
    // Stateless plans never need one; stateful operators say whether the watermark closes or evicts something.
    const remoteOps = new Set(this.remoteStageOperators());
    if ([...this.allStateful()].some((op) => !remoteOps.has(op) && (op.shouldRunAnotherBatch?.(watermarkMs) ?? false))) return true;
    // A remote stage's operators evicted up to the watermark of the batch its tasks last ran;
    // the driver's instance, which never ran, answers whether the operator evicts by watermark at all.
    return [...this.stages].some(([stageId, [op]]) => {
      if (!remoteOps.has(op) || !(op.shouldRunAnotherBatch?.(watermarkMs) ?? false)) return false;
      const last = this.remoteStages.get(stageId);
      return last === undefined || watermarkMs > last.batchWatermarkMs;
    });
  }

  /** The operators whose partitions' tasks run, and keep their state, in other processes. */
  private remoteStageOperators(): StatefulOperator[] {
    return this.taskScheduler.remote ? [...this.stages.values()].flat() : [];
  }

  private provider(id: StateStoreId): StateStoreProvider {
    const key = storeKey(id);
    let p = this.providers.get(key);
    if (!p) this.providers.set(key, (p = this.deps.stateStoreProvider!(id, this.deps.checkpoint)));
    return p;
  }

  /** Runs the batch over each source's input (in source order; a one-source plan starts from the first's rows). */
  async execute(inputs: SourceInput[], b: Pick<OperatorContext, 'batchId' | 'batchWatermarkMs' | 'lateEventsWatermarkMs' | 'batchTimestampMs' | 'currentUser' | 'onRecordError'>, mapped?: MappedBatch): Promise<BatchResult> {
    if (mapped?.failure) throw mapped.failure.error;
    const ctx: OperatorContext = { ...b, inputs: new Map(this.spec.sources.map((s, i) => [s.name, inputs[i].rows])) };
    if (mapped?.eventTimes) ctx.eventTimes = mapped.eventTimes;
    if (this.stateful.length) {
      const remoteOps = new Set(this.remoteStageOperators());
      ctx.stateStores = new Map(this.pipelinedStores);
      this.pipelinedStores = undefined;
      await this.openBatchStores(this.stateful.filter((op) => !remoteOps.has(op)), b.batchId, ctx.stateStores);
    }
    // A mapped batch goes on after its first stage, which its tasks ran.
    let rows = mapped ? mapped.rows : inputs[0].rows;
    let sinkCommits = mapped?.sinkCommits;
    for (const [i, op] of this.query.operators.entries()) {
      // The stage's tasks ran the operators after it and wrote the output to the sink.
      if (sinkCommits) break;
      if (mapped && i <= mapped.stageId) continue;
      const stage = this.stages.get(i);
      if (!stage) rows = await op.execute(rows, ctx);
      else ({ rows, sinkCommits } = await this.runStatefulStage(i, stage, rows, ctx));
    }
    // A read of a source column folds the event times of the source rows that pass its filter
    // (nodeEventTimes; operators never change their input rows), a derived one's come from its
    // EventTimeWatermark operator. A source that skipped rows by the pushed filter (its plan's
    // only read) folded the event times of those it read, a map stage's tasks those of theirs.
    const watermarkEventTimes = this.watermarkInputs.map(({ source, node }) => {
      const { eventTime, schema } = this.spec.sources[source];
      const { rows: input, scanned } = inputs[source];
      if (node === undefined) return batchEventTimes(input, eventTime!, schema, ctx);
      if (mapped) return mapped.watermarkEventTimes[node];
      return scanned ? scanned.eventTimes : nodeEventTimes(this.query.eventTimeWatermarks[node], eventTime!, input, ctx);
    });
    const weights = this.watermarkInputs.map(({ source }) => inputs[source].rows.length);
    return { rows, ...(sinkCommits ? { sinkCommits } : {}), eventTimes: mergeEventTimeStats(watermarkEventTimes, weights), watermarkEventTimes };
  }

  /** Opens version `batchId` of the operators' stores not in `stores` yet, into it (and openStores, which commit or abort them). */
  private async openBatchStores(ops: StatefulOperator[], batchId: number, stores: Map<string, StateStore>): Promise<void> {
    for (const op of ops) {
      for (let partitionId = 0; partitionId < (op.numPartitions ?? 1); partitionId++) {
        for (const storeName of op.storeNames ?? [undefined]) {
          const id: StateStoreId = { operatorId: op.operatorId, partitionId, ...(storeName ? { storeName } : {}) };
          const key = storeKey(id);
          if (stores.has(key)) continue;
          const store = await this.provider(id).getStore(batchId);
          stores.set(key, store);
          this.openStores.push(store);
        }
      }
    }
  }

  /**
   * The pipelined stage (pipelinedStageId) over (start, end]: the source hands its rows over in
   * pieces (Source.getBatchInPieces) and each piece goes through the row-at-a-time operators and
   * into the stage's fold at once, so no piece outlives its turn; the stage then finishes the
   * batch as its execute would. What the read found comes back as a MappedBatch, as a map
   * stage's does, for the driver's bad-record policy (the rows the operators set aside with it)
   * and the watermark. An operator's error is kept until the read ends (MappedBatch.failure).
   */
  async runPipelinedStage(start: Offset | null, end: Offset | null, b: Pick<OperatorContext, 'batchId' | 'batchWatermarkMs' | 'lateEventsWatermarkMs' | 'batchTimestampMs' | 'currentUser'>): Promise<MappedBatch> {
    const stageId = this.pipelinedStageId!;
    const op = this.query.operators[stageId] as StatefulOperator;
    const before = this.query.operators.slice(0, stageId);
    const expressionErrors: MappedBatch['expressionErrors'] = [];
    const ctx: OperatorContext = { ...b, inputs: new Map(), onRecordError: (row, error) => expressionErrors.push({ row, error }) };
    this.pipelinedStores = ctx.stateStores = new Map();
    await this.openBatchStores([op], b.batchId, ctx.stateStores);
    const input = op.consumeInput!(ctx);
    const { eventTime } = this.spec.sources[0];
    // A source given the pushed filter folds the event times of every row it reads (SourceBatch.scanned).
    const folded = this.query.scanFilter === undefined || this.deps.sources !== undefined ? this.watermarkInputs.map(() => new EventTimeStatsAccumulator()) : undefined;
    let failure: MappedBatch['failure'];
    let read = 0;
    const onRows = async (rows: Row[]) => {
      read += rows.length;
      folded?.forEach((acc, k) => nodeEventTimes(this.query.eventTimeWatermarks[this.watermarkInputs[k].node!], eventTime!, rows, ctx, acc));
      if (failure) return;
      try {
        for (const o of before) rows = await o.execute(rows, ctx);
        input.add(rows);
      } catch (error) {
        failure = { error };
      }
    };
    const batch = end === null ? { rows: [], badRecords: [] } : await this.sources[0].getBatchInPieces!(start, end, onRows);
    if (folded === undefined && end !== null && !batch.scanned) throw new Error(`Internal: ${this.sources[0].description} was given the pushed filter but did not say what it read`);
    let rows: Row[] = [];
    if (!failure) {
      try {
        rows = input.finish();
      } catch (error) {
        failure = { error };
      }
    }
    const watermarkEventTimes = this.query.eventTimeWatermarks.map(() => undefined as EventTimeStats | undefined);
    this.watermarkInputs.forEach(({ node }, k) => (watermarkEventTimes[node!] = batch.scanned ? batch.scanned.eventTimes : folded?.[k].result()));
    return {
      stageId,
      input: { ...batch, rows: [], scanned: { numInputRows: batch.scanned?.numInputRows ?? read } },
      rows,
      ...(ctx.eventTimes ? { eventTimes: ctx.eventTimes } : {}),
      watermarkEventTimes,
      expressionErrors,
      ...(failure ? { failure } : {}),
    };
  }

  /**
   * A stateful stage (task-scheduler.ts): the rows shuffled by the operator's key, one reduce task
   * per state partition, each with its partition's operator instance; the outputs in partition order.
   */
  private async runStatefulStage(stageId: number, operators: StatefulOperator[], rows: Row[], ctx: OperatorContext): Promise<{ rows: Row[]; sinkCommits?: StageSinkCommits }> {
    const [op] = operators;
    // The map side, here: each input of the operator, shuffled by the hash of its key.
    const inputs = op.mapInputs ? await op.mapInputs(rows, ctx) : [rows];
    const shuffled = inputs.map((input, child) => shuffleRows(input, operators.length, (row) => op.partitionOf!(row, ctx, child)));
    const taskSet: ReduceTask[] = operators.map((_, partitionId) => ({
      batchId: ctx.batchId,
      stageId,
      operatorId: op.operatorId,
      partitionId,
      batchWatermarkMs: ctx.batchWatermarkMs,
      ...(ctx.lateEventsWatermarkMs !== undefined ? { lateEventsWatermarkMs: ctx.lateEventsWatermarkMs } : {}),
      batchTimestampMs: ctx.batchTimestampMs,
      ...(ctx.currentUser !== undefined ? { currentUser: ctx.currentUser } : {}),
      inputs: shuffled.map((s) => s[partitionId]),
      ...(stageId === this.sinkStageId ? { writesSink: true } : {}),
    }));
    const run = async (task: ReduceTask): Promise<TaskResult> => {
      const instance = this.stages.get(task.stageId)![task.partitionId];
      const taskCtx = { ...ctx, partitionId: task.partitionId, partitionIndex: task.partitionId };
      const out = instance.reduceInputs ? instance.reduceInputs(task.inputs, taskCtx) : instance.execute(task.inputs[0], taskCtx);
      return { partitionId: task.partitionId, rows: await out };
    };
    const results = await this.taskScheduler.submitTasks(taskSet, run);
    if (this.taskScheduler.remote) {
      this.remoteStages.set(stageId, { progress: results.flatMap((r) => (r.progress ? [r.progress] : [])), batchWatermarkMs: ctx.batchWatermarkMs });
    }
    return stageOutput(stageId === this.sinkStageId, results);
  }

  /**
   * The batch's first stateful stage as map tasks, one per split of the source's (start, end]
   * (Source.planInputPartitions; none when the batch has no new data), each reading its split,
   * running the stateless operators and shuffling by the stage's key, then the stage's reduce
   * tasks over their outputs. The driver reads nothing: what the reads found (input figures,
   * event times, bad records, warnings) comes back in the map tasks' statuses.
   */
  async runMapStage(start: Offset | null, end: Offset | null, b: Pick<OperatorContext, 'batchId' | 'batchWatermarkMs' | 'lateEventsWatermarkMs' | 'batchTimestampMs' | 'currentUser'>, offsetsLogged?: Promise<void>): Promise<MappedBatch> {
    const stageId = this.mapStageId!;
    const [op] = this.stages.get(stageId)!;
    const common = {
      batchId: b.batchId,
      stageId,
      operatorId: op.operatorId,
      batchWatermarkMs: b.batchWatermarkMs,
      ...(b.lateEventsWatermarkMs !== undefined ? { lateEventsWatermarkMs: b.lateEventsWatermarkMs } : {}),
      batchTimestampMs: b.batchTimestampMs,
      ...(b.currentUser !== undefined ? { currentUser: b.currentUser } : {}),
      // Spark's partial aggregation before the exchange, when the aggregates' buffers merge exactly.
      ...(op instanceof StatefulAggregateExec && op.partialAggregation ? { partialAggregation: true as const } : {}),
    };
    const source = this.sources[0];
    const splits = end === null ? [] : ((await source.planInputPartitions?.(start, end)) ?? [{ start, end }]);
    const mapTasks: MapTask[] = splits.map((s, mapId) => ({ ...common, mapId, start: s.start, end: s.end }));
    const writesSink = stageId === this.sinkStageId ? { writesSink: true } : {};
    const reduceTasks = Array.from({ length: this.numPartitions }, (_, partitionId) => ({ ...common, partitionId, ...writesSink }));
    const { statuses, results } = await this.taskScheduler.submitMapStage!(mapTasks, reduceTasks, offsetsLogged);
    const progress = results.flatMap((r) => (r.progress ? [r.progress] : []));
    this.remoteStages.set(stageId, { progress, batchWatermarkMs: b.batchWatermarkMs });
    const numInputRows = statuses.reduce((n, s) => n + s.numInputRows, 0);
    const watermarkEventTimes = this.query.eventTimeWatermarks.map((_, node) => {
      const merged = mergeWeighted(statuses.map((s) => s.watermarkEventTimes?.[node] ?? undefined));
      return merged && { min: merged.min, max: merged.max, avg: merged.avg };
    });
    return {
      stageId,
      input: {
        rows: [],
        badRecords: statuses.flatMap((s) => s.badRecords),
        warnings: statuses.flatMap((s) => s.warnings),
        scanned: { numInputRows },
      },
      ...stageOutput(stageId === this.sinkStageId, results),
      eventTimes: mergeWeighted(statuses.map((s) => s.derivedEventTimes)),
      watermarkEventTimes,
      expressionErrors: statuses.flatMap((s) => s.expressionErrors.map((e) => ({ row: e.row, error: new RecordExpressionError(e.message) }))),
    };
  }

  /** Every instance of the stateful operators: the query's own and the other partitions' (stages). */
  private *allStateful(): Iterable<StatefulOperator> {
    for (const op of this.stateful) yield op;
    for (const instances of this.stages.values()) yield* instances.slice(1);
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
    this.pipelinedStores = undefined;
    for (const op of this.allStateful()) op.onCommitted(version);
  }

  /**
   * The batch failed before its stores all committed: the uncommitted ones discard their changes
   * (a committed one is left as it is: the re-run loads version N and commits N+1 again) and each
   * stateful operator forgets what it kept aside (StatefulOperator.onAborted).
   */
  abortState(): void {
    for (const s of this.openStores) s.abort();
    this.openStores = [];
    this.pipelinedStores = undefined;
    for (const op of this.allStateful()) op.onAborted();
  }

  /** The stateful operators' figures for the committed batch's progress. */
  stateOperatorProgress(): StateOperatorProgress[] {
    const instancesOf = new Map([...this.stages.values()].map((ops) => [ops[0], ops]));
    const remoteOf = new Map([...this.stages].flatMap(([stageId, [op]]) => {
      const remote = this.remoteStages.get(stageId);
      return remote?.progress.length ? [[op, remote.progress] as const] : [];
    }));
    return this.stateful.map((op) => withStateInstances(op, mergeStateOperatorProgress(remoteOf.get(op) ?? (instancesOf.get(op) ?? [op]).map((o) => o.progress()))));
  }

  /**
   * Snapshots and retention (Spark's maintenance task), started after commits/N and never
   * awaited by a batch: it never changes what a version loads as, and a provider lets the next
   * batch change the state while it snapshots the committed version. One round at a time; a
   * failure is reported through `onMaintenanceError` and retried at the next round.
   */
  startStateMaintenance(onMaintenanceError?: (e: unknown) => void): void {
    if (this.maintenance || this.providers.size === 0) return;
    // Spark's maintenance task runs every maintenanceInterval, not after every batch.
    if (!this.maintenanceSchedule.due(this.deps.clock.now())) return;
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

  /** How many watermarks the global one is chosen from (the policy matters from two). */
  get watermarkInputCount(): number {
    return this.watermarkInputs.length;
  }

  private newWatermarkTracker(policy: MultipleWatermarkPolicy): WatermarkTracker {
    const relations = relationsOf(this.spec);
    return new WatermarkTracker(policy, this.watermarkInputs.map(({ source }) => relations[source].watermarkDelayMs ?? 0));
  }

  /**
   * Each source's own watermark after the last batch (undefined: no event time, or none yet in this
   * run): its inputs' watermarks as the policy picks among them (a self-join reads a source twice).
   */
  sourceWatermarksMs(): (number | undefined)[] {
    const own = this.watermarkTracker.inputWatermarksMs();
    return this.spec.sources.map((_, source) => {
      const values = this.watermarkInputs.flatMap((w, k) => (w.source === source && own[k] !== undefined ? [own[k]] : []));
      return values.length ? this.watermarkTracker.choose(values) : undefined;
    });
  }

  /** The global watermark after a batch whose watermark inputs saw `watermarkEventTimes` (Spark's WatermarkTracker.updateWatermark, operators/watermark.ts). */
  nextWatermark(currentMs: number, watermarkEventTimes: readonly (EventTimeStats | undefined)[]): number {
    return this.watermarkTracker.updateWatermark(currentMs, watermarkEventTimes);
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

/** The spec's sink, built from the registry (not opened). */
export function createSink(spec: JobSpec, deps: Pick<QueryRuntimeDeps, 'clock' | 'queryId'>): Sink {
  const def = getSinkDefinition(spec.sink.type);
  if (!def) throw new ValidationError(`unknown sink type "${spec.sink.type}"`, { path: 'sink.type' });
  return def.create(spec.sink.options as never, { clock: deps.clock, jobName: spec.name, queryId: deps.queryId });
}

/**
 * The event times a read's watermark node folds from its source's rows: those of the rows that
 * pass its filter (the conjuncts Spark pushes below withWatermark), all of them without one. A
 * row whose condition fails to evaluate counts (the Filter diverts it).
 */
export function nodeEventTimes(node: EventTimeWatermarkNode, eventTime: string, rows: readonly Row[], ctx: EvalContext, acc = new EventTimeStatsAccumulator()): EventTimeStats | undefined {
  const f = node.filter;
  for (const row of rows) if (!f || holds(f, row, ctx)) acc.add(row[eventTime]);
  return acc.result();
}

/** Source `i` of the spec, built from the registry, reading the query's columns with its pushed filter. */
export function createSource(spec: JobSpec, i: number, query: CompiledStreamingQuery, deps: Pick<QueryRuntimeDeps, 'checkpoint' | 'clock' | 'queryId'>): Source {
  const s = spec.sources[i];
  const def = getSourceDefinition(s.type);
  if (!def) throw new ValidationError(`unknown source type "${s.type}"`, { path: `${sourcePath(spec, i)}.type` });
  // A pushed filter is that of the plan's only read: its watermark node's filter goes with it.
  const watermarkFilter = query.eventTimeWatermarks.find((n) => n.sourceName === s.name)?.filter;
  return def.create(s.options as never, {
    name: s.name,
    schema: s.schema,
    requiredColumns: query.sourceColumns,
    pushedFilter: pushedFilter(query),
    ...(query.scanFilter && watermarkFilter ? { watermarkFilter: scanTimeFilter(watermarkFilter) } : {}),
    ...(query.readsFileMetadata ? { fileMetadata: true } : {}),
    eventTime: s.eventTime,
    checkpoint: deps.checkpoint,
    metadataPath: `sources/${i}`,
    clock: deps.clock,
    queryId: deps.queryId,
  });
}

/**
 * The first stateful stage of a plan whose map side map tasks can run (task-scheduler.ts): one
 * source, the stage's operator shuffling its one input, and only stateless operators before it.
 * Undefined otherwise.
 */
export function mapStageOf(spec: Pick<JobSpec, 'sources'>, query: CompiledStreamingQuery): number | undefined {
  const first = query.operators.findIndex((op) => isStatefulOperator(op) && isPartitioned(op));
  if (spec.sources.length !== 1 || first < 0 || (query.operators[first] as StatefulOperator).mapInputs) return undefined;
  return allOperators(query.operators.slice(0, first)).some(isStatefulOperator) ? undefined : first;
}

/** The spec's query compiled for `numPartitions` state partitions (each reduce task's operators are one such compile's). */
export function compileQuery(spec: JobSpec, numPartitions: number): CompiledStreamingQuery {
  const query = compileStreamingQuery(spec.sql, relationsOf(spec), { outputMode: spec.outputMode, dedup: spec.dedup, staticTables: spec.staticTables, numPartitions });
  // A spec stored before its sink refused a repeated output name is refused before its first batch.
  const def = getSinkDefinition(spec.sink.type);
  const repeated = def && outputColumnsChecked(def, query.outputSchema);
  if (repeated) throw new AnalysisException(repeated.message, { path: repeated.path }, repeated.errorClass);
  return query;
}

/**
 * The last stateful stage, when only row-at-a-time operators follow it (Project, Filter, Generate):
 * its reduce tasks can run those too, each over its partition, and write the batch's output
 * themselves (a pipelined stage, as Spark's ending in its write task). Not when anything else
 * follows: a Sort or a Limit is over the whole batch, a derived watermark's event times are the
 * driver's to track, a stream-static join reads its table on the driver. Undefined otherwise.
 */
export function sinkStageOf(query: CompiledStreamingQuery): number | undefined {
  const last = query.operators.findLastIndex((op) => isStatefulOperator(op));
  if (last < 0 || !isPartitioned(query.operators[last] as StatefulOperator)) return undefined;
  return query.operators.slice(last + 1).every(isRowAtATime) ? last : undefined;
}

/**
 * The pipelined stage (QueryRuntime.pipelinedStageId): the plan's first stateful operator, when
 * it takes its input in pieces (consumeInput) in one partition, the one source reads in pieces
 * (getBatchInPieces), and what comes before it works row by row (Project, Filter, Generate, a
 * stream-static join, whose table is read once). Undefined otherwise.
 */
function pipelinedStageOf(query: CompiledStreamingQuery, sources: readonly Source[]): number | undefined {
  if (sources.length !== 1 || !sources[0].getBatchInPieces) return undefined;
  const first = query.operators.findIndex(isStatefulOperator);
  const op = query.operators[first] as StatefulOperator | undefined;
  if (!op?.consumeInput || isPartitioned(op)) return undefined;
  const rowByRow = (o: PhysicalOperator) => isRowAtATime(o) || o instanceof StreamStaticJoinExec;
  return query.operators.slice(0, first).every(rowByRow) ? first : undefined;
}

/** Project, Filter, Generate: each row's output depends on that row alone. */
function isRowAtATime(op: PhysicalOperator): boolean {
  return op instanceof ProjectExec || op instanceof FilterExec || op instanceof GenerateExec;
}

/** Whether an operator's state is in several partitions, each run as a reduce task. */
export function isPartitioned(op: StatefulOperator): boolean {
  return op.partitionOf !== undefined && (op.numPartitions ?? 1) > 1;
}

/** A stage's output: its tasks' rows in partition order, or, when they wrote the sink, their commit messages. */
function stageOutput(wroteSink: boolean, results: readonly TaskResult[]): { rows: Row[]; sinkCommits?: StageSinkCommits } {
  if (!wroteSink) return { rows: results.flatMap((r) => r.rows) };
  const commits = results.map((r) => {
    if (!r.sinkCommit) throw new Error(`Internal: reduce task ${r.partitionId} was to write the sink but returned no commit message`);
    return r.sinkCommit;
  });
  return {
    rows: [],
    sinkCommits: {
      messages: commits.map((c) => c.message),
      numOutputRows: commits.reduce((n, c) => n + c.numOutputRows, 0),
      expressionErrors: commits.flatMap((c) => c.expressionErrors.map((e) => ({ row: e.row, error: new RecordExpressionError(e.message) }))),
    },
  };
}

/** Event-time figures of several map tasks as one: min, max, and the average weighted by count. */
function mergeWeighted(stats: readonly (MapStatus['derivedEventTimes'] | undefined)[]): MapStatus['derivedEventTimes'] | undefined {
  const present = stats.filter((s): s is NonNullable<MapStatus['derivedEventTimes']> => s !== undefined && s.count > 0);
  if (present.length === 0) return undefined;
  const count = present.reduce((n, s) => n + s.count, 0);
  return {
    min: Math.min(...present.map((s) => s.min)),
    max: Math.max(...present.map((s) => s.max)),
    avg: Math.round(present.reduce((a, s) => a + s.avg * s.count, 0) / count),
    count,
  };
}

/** One operator's figures over its partitions' instances: each figure summed (the name is the same). */
function mergeStateOperatorProgress(ps: StateOperatorProgress[]): StateOperatorProgress {
  if (ps.length === 1) return ps[0];
  const sum = (f: (p: StateOperatorProgress) => number) => ps.reduce((n, p) => n + f(p), 0);
  const customMetrics: Record<string, number> = {};
  for (const p of ps) for (const [k, v] of Object.entries(p.customMetrics ?? {})) customMetrics[k] = (customMetrics[k] ?? 0) + v;
  return {
    operatorName: ps[0].operatorName,
    numRowsTotal: sum((p) => p.numRowsTotal),
    numRowsUpdated: sum((p) => p.numRowsUpdated),
    // Spark sums its tasks' times too (a SQL metric summed over the partitions).
    allUpdatesTimeMs: sum((p) => p.allUpdatesTimeMs),
    numRowsRemoved: sum((p) => p.numRowsRemoved),
    allRemovalsTimeMs: sum((p) => p.allRemovalsTimeMs),
    commitTimeMs: sum((p) => p.commitTimeMs),
    memoryUsedBytes: sum((p) => p.memoryUsedBytes),
    numRowsDroppedByWatermark: sum((p) => p.numRowsDroppedByWatermark),
    ...(ps.some((p) => p.customMetrics) ? { customMetrics } : {}),
  };
}

/**
 * An operator's progress with its state partitions and store instances (Spark's
 * numShufflePartitions and numStateStoreInstances), every field in the order of Spark's
 * StateOperatorProgress JSON.
 */
function withStateInstances(op: StatefulOperator, p: StateOperatorProgress): StateOperatorProgress {
  const partitions = op.numPartitions ?? 1;
  return {
    operatorName: p.operatorName,
    numRowsTotal: p.numRowsTotal,
    numRowsUpdated: p.numRowsUpdated,
    allUpdatesTimeMs: p.allUpdatesTimeMs,
    numRowsRemoved: p.numRowsRemoved,
    allRemovalsTimeMs: p.allRemovalsTimeMs,
    commitTimeMs: p.commitTimeMs,
    memoryUsedBytes: p.memoryUsedBytes,
    numRowsDroppedByWatermark: p.numRowsDroppedByWatermark,
    numShufflePartitions: partitions,
    numStateStoreInstances: partitions * (op.storeNames?.length ?? 1),
    ...(p.customMetrics ? { customMetrics: p.customMetrics } : {}),
  };
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
  return query.scanFilter && scanTimeFilter(query.scanFilter);
}

/** A predicate of the pushed filter (or a part of it: the watermark's) as a source applies it while it reads. */
function scanTimeFilter(p: Evaluator): (row: Row) => boolean {
  const ctx = { batchTimestampMs: 0 };
  return (row) => holds(p, row, ctx);
}

/** Whether the predicate is TRUE for the row; a row it fails to evaluate on holds, for the Filter to divert as a bad record. */
function holds(p: Evaluator, row: Row, ctx: EvalContext): boolean {
  try {
    return p(row, ctx) === true;
  } catch {
    return true;
  }
}
