/**
 * Spark's Executor, for the reduce tasks of a stateful stage that a remote TaskScheduler sends to
 * another process (task-scheduler.ts): it opens partition p's state stores at the batch's version
 * N, runs the partition's own instance of the operator over the task's rows, commits the stores at
 * N+1 and returns the rows with the partition's state figures.
 *
 * As Spark's executor-side StateStore cache (StateStore.get keeps loaded providers between
 * batches), a partition's providers and operator instance stay open here after its task, so the
 * next batch's task for it starts from what is already loaded. The cache is revalidated by
 * version: a task for batch N reuses the partition only if this process committed N itself (its
 * last task for it was batch N-1). Otherwise the partition ran elsewhere meanwhile (a task moved to
 * another worker, a retry, a re-run of a batch) and it is reloaded from the checkpoint: a fresh
 * operator instance and fresh providers, which load version N as committed by whoever did. It is
 * also keyed by the spec it was compiled from: a run restarted after an edit reopens it.
 */
import { randomUUID } from 'node:crypto';
import type { CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';
import type { Clock } from '../clock';
import type { OperatorContext, PhysicalOperator, StatefulOperator } from '../operators/physical-operator';
import { maintenanceIntervalMsOf, type JobSpec } from '../spec/job-spec';
import { MaintenanceSchedule } from '../state/maintenance-schedule';
import { storeKey, type StateStore, type StateStoreProvider } from '../state/state-store';
import { StatefulAggregateExec } from '../operators/aggregate';
import { ScalarSubqueryExec } from '../operators/scalar-subquery-exec';
import type { PartialAggregateBuffer } from '../operators/aggregate-folds';
import type { CompiledStreamingQuery } from '../query/streaming-query';
import type { Sink } from '../sinks/sink';
import type { Row, Schema } from '../types';
import { compileQuery, createSource, isPartitioned, mapStageOf, nodeEventTimes, stateStoreProviderFactory } from './query-runtime';
import { shuffleRows, type MapOutput, type MapStatus, type MapTask, type ReduceTask, type TaskResult } from './task-scheduler';

/** The query a task belongs to: what the driver started it with. */
export interface ExecutorQuery {
  spec: JobSpec;
  /** The checkpoint's query id (its state and the lmdb provider's local copy are keyed by it). */
  queryId: string;
  /** The checkpoint's parallelism (spark.sql.shuffle.partitions). */
  numPartitions: number;
  checkpoint: CheckpointFileManager;
  /** The job's sink, built where the task runs: a reduce task with `writesSink` writes its rows with its commit protocol. */
  sink?: Sink;
}

interface CachedPartition {
  /** The spec it was compiled from (specKey): a task of another spec (a run restarted after an edit) reopens it. */
  spec: string;
  operator: StatefulOperator;
  /** The query's output schema (what a task that writes the sink renders its rows by). */
  outputSchema: Schema;
  /** The stateless operators after the stage, which a task that writes the sink runs (QueryRuntime's sinkStageOf). */
  after: PhysicalOperator[];
  /**
   * The query's scalar subqueries (its first operator), which the operator or those after it may
   * read: evaluated in this process, as its compiled query is not the driver's.
   */
  subqueries?: ScalarSubqueryExec;
  /** One per store of the partition (the operator's store names, or the one unnamed). */
  stores: { key: string; storeName?: string; provider: StateStoreProvider }[];
  /** The version this process last committed; a task for batch N reuses the cache only at N. */
  committedVersion?: number;
  maintenance?: Promise<void>;
  /** Its stores' maintenance rounds (the job's stateStore.maintenanceInterval from its opening), by the executor's clock. */
  maintenanceSchedule: MaintenanceSchedule;
}

/** Partitions kept open at most (the least recently used one is closed first). */
const MAX_CACHED_PARTITIONS = 256;

export class Executor {
  private readonly partitions = new Map<string, CachedPartition>();
  /** The query as map tasks run it, per query and parallelism (its operators before the stage are stateless). */
  private readonly mapQueries = new Map<string, { spec: string; query: CompiledStreamingQuery }>();

  /**
   * Per query and parallelism, a compiled query none of whose operators has run: the next
   * partition this process opens takes it instead of compiling on its task's path (prepareSpare).
   */
  private readonly spares = new Map<string, { spec: string; query: CompiledStreamingQuery }>();
  private closed = false;

  constructor(
    private readonly o: {
      clock: Clock;
      stateLocalDir?: string;
      onMaintenanceError?: (e: unknown) => void;
      /** Tests: how the query is compiled (compileQuery). */
      compile?: (spec: JobSpec, numPartitions: number) => CompiledStreamingQuery;
    },
  ) {}

  private compile(spec: JobSpec, numPartitions: number): CompiledStreamingQuery {
    return (this.o.compile ?? compileQuery)(spec, numPartitions);
  }

  /** Runs one reduce task: its partition's state goes from version N to N+1 (task.batchId = N). */
  async runTask(q: ExecutorQuery, task: ReduceTask): Promise<TaskResult> {
    const key = `${q.queryId}/${q.numPartitions}/${task.stageId}/${task.partitionId}`;
    const spec = specKey(q.spec);
    let part = this.partitions.get(key);
    this.partitions.delete(key);
    if (part && (part.committedVersion !== task.batchId || part.spec !== spec)) {
      await closePartition(part);
      part = undefined;
    }
    part ??= this.openPartition(q, task, spec);
    // Most recently used last (Map keeps insertion order).
    this.partitions.set(key, part);
    await this.evictOld();
    const { operator } = part;
    const opened: StateStore[] = [];
    let committed = 0;
    let rows: Row[];
    try {
      // A maintenance round still running on the committed version is no obstacle (state-store.ts).
      const stateStores = new Map<string, StateStore>();
      for (const s of part.stores) {
        const store = await s.provider.getStore(task.batchId);
        opened.push(store);
        stateStores.set(s.key, store);
      }
      const ctx = taskContext(task, { partitionId: task.partitionId, partitionIndex: task.partitionId, stateStores, inputs: new Map() });
      await part.subqueries?.execute([], ctx);
      rows = await (task.partialAggregation
        ? partialAggregationOf(operator).mergePartials(task.inputs[0] as unknown as PartialAggregateBuffer[], ctx)
        : operator.reduceInputs
          ? operator.reduceInputs(task.inputs, ctx)
          : operator.execute(task.inputs[0], ctx));
      for (const store of opened) {
        await store.commit();
        committed++;
      }
      operator.onCommitted(task.batchId + 1);
      part.committedVersion = task.batchId + 1;
      this.startMaintenance(part);
      this.prepareSpare(q, spec);
    } catch (e) {
      for (const store of opened.slice(committed)) store.abort();
      operator.onAborted();
      this.partitions.delete(key);
      await closePartition(part).catch(() => undefined);
      throw e;
    }
    const progress = operator.progress();
    if (!task.writesSink) return { partitionId: task.partitionId, rows, progress };
    // After the state commit: nothing the sink holds is visible before the driver's commitJob,
    // and a retry of this task reloads version N (this process committed N+1), as any retry does.
    const protocol = q.sink?.commitProtocol;
    if (!protocol) throw new Error(`Internal: reduce task ${task.partitionId} of batch ${task.batchId} should write the sink, but ${q.sink?.description ?? 'no sink'} has no commit protocol here`);
    const expressionErrors: { row: Row; message: string }[] = [];
    // The operators after the stage run in its task, as Spark's do: rand(seed) draws from seed + partition.
    const ctx = taskContext(task, {
      partitionId: task.partitionId,
      partitionIndex: task.partitionId,
      inputs: new Map(),
      onRecordError: (row, e) => expressionErrors.push({ row, message: e.message }),
    });
    for (const op of part.after) rows = await op.execute(rows, ctx);
    const message = await protocol.commitTask(rows, {
      batchId: task.batchId,
      partitionId: task.partitionId,
      attemptId: randomUUID(),
      outputMode: q.spec.outputMode,
      schema: part.outputSchema,
      queryId: q.queryId,
    });
    return { partitionId: task.partitionId, rows: [], progress, sinkCommit: { message, numOutputRows: rows.length, expressionErrors } };
  }

  /**
   * Runs one map task (Spark's ShuffleMapTask): reads the task's split of the source with an
   * instance of its own (built from the spec, never opened: it writes nothing to the checkpoint),
   * runs the operators before the stage and shuffles their rows by the stage's key. Touches no
   * state, so any number of attempts may run; the caller keeps the output under its attempt.
   */
  async runMapTask(q: ExecutorQuery, task: MapTask): Promise<MapOutput> {
    const query = this.mapQuery(q);
    if (mapStageOf(q.spec, query) !== task.stageId || (query.operators[task.stageId] as StatefulOperator).operatorId !== task.operatorId) {
      throw new Error(`Internal: stage ${task.stageId} of query ${q.queryId} is not the first stateful stage, operator ${task.operatorId}`);
    }
    const source = createSource(q.spec, 0, query, { checkpoint: q.checkpoint, clock: this.o.clock, queryId: q.queryId });
    try {
      const batch = await source.getBatch(task.start, task.end);
      const expressionErrors: MapStatus['expressionErrors'] = [];
      const { name, eventTime } = q.spec.sources[0];
      const ctx = taskContext(task, {
        partitionIndex: task.mapId,
        inputs: new Map([[name, batch.rows]]),
        onRecordError: (row, e) => expressionErrors.push({ row, message: e.message }),
      });
      let rows: Row[] = batch.rows;
      for (const op of query.operators.slice(0, task.stageId)) rows = await op.execute(rows, ctx);
      const stage = query.operators[task.stageId] as StatefulOperator;
      // With partial aggregation the blocks carry partial buffers, not rows (ReduceTask.partialAggregation says so to the reduce side).
      const partitions = task.partialAggregation
        ? (partialAggregationOf(stage).partialAggregate(rows, ctx) as unknown as Row[][])
        : shuffleRows(rows, q.numPartitions, (row) => stage.partitionOf!(row, ctx, 0));
      const numInputRows = batch.scanned?.numInputRows ?? batch.rows.length;
      // Each read's watermark node (the only source's; with a pushed filter, its only read, folded by the source).
      const watermarkEventTimes = query.eventTimeWatermarks.map((node) => {
        const times = batch.scanned ? batch.scanned.eventTimes : nodeEventTimes(node, eventTime!, batch.rows, ctx);
        // Weighted by the rows read when merged with the other splits' (progress shows the average).
        return times ? { ...times, count: numInputRows } : null;
      });
      const status: MapStatus = {
        mapId: task.mapId,
        numInputRows,
        watermarkEventTimes,
        ...(ctx.eventTimes ? { derivedEventTimes: ctx.eventTimes } : {}),
        badRecords: batch.badRecords,
        expressionErrors,
        warnings: batch.warnings ?? [],
        partitionRows: partitions.map((p) => p.length),
      };
      return { status, partitions };
    } finally {
      await source.stop();
    }
  }

  private mapQuery(q: ExecutorQuery): CompiledStreamingQuery {
    const key = `${q.queryId}/${q.numPartitions}`;
    const spec = specKey(q.spec);
    const cached = this.mapQueries.get(key);
    if (cached?.spec === spec) return cached.query;
    const query = this.compile(q.spec, q.numPartitions);
    this.mapQueries.set(key, { spec, query });
    if (this.mapQueries.size > MAX_CACHED_PARTITIONS) this.mapQueries.delete(this.mapQueries.keys().next().value!);
    return query;
  }

  /** Closes every cached partition (the worker stopping). */
  async close(): Promise<void> {
    this.closed = true;
    this.spares.clear();
    this.wantedSpares.clear();
    const parts = [...this.partitions.values()];
    this.partitions.clear();
    for (const p of parts) await closePartition(p);
  }

  private openPartition(q: ExecutorQuery, task: ReduceTask, spec: string): CachedPartition {
    const key = `${q.queryId}/${q.numPartitions}`;
    const spare = this.spares.get(key);
    this.spares.delete(key);
    const query = spare?.spec === spec ? spare.query : this.compile(q.spec, q.numPartitions);
    const operator = query.operators[task.stageId] as StatefulOperator | undefined;
    if (!operator?.stateful || !isPartitioned(operator) || operator.operatorId !== task.operatorId) {
      throw new Error(`Internal: stage ${task.stageId} of query ${q.queryId} is not stateful operator ${task.operatorId} partitioned ${q.numPartitions} ways`);
    }
    const factory = stateStoreProviderFactory(q.spec, { queryId: q.queryId, clock: this.o.clock, stateLocalDir: this.o.stateLocalDir });
    const stores = (operator.storeNames ?? [undefined]).map((storeName) => {
      const id = { operatorId: operator.operatorId, partitionId: task.partitionId, ...(storeName ? { storeName } : {}) };
      return { key: storeKey(id), storeName, provider: factory(id, q.checkpoint) };
    });
    const first = query.operators[0];
    return {
      spec, operator, outputSchema: query.outputSchema, after: query.operators.slice(task.stageId + 1), stores, ...(first instanceof ScalarSubqueryExec ? { subqueries: first } : {}),
      maintenanceSchedule: new MaintenanceSchedule(maintenanceIntervalMsOf(q.spec), this.o.clock.now()),
    };
  }

  /**
   * After a task: asks for a spare compiled query for the next partition this process opens (a
   * partition whose last task ran on another worker, which the queue does about every other task),
   * so that its task does not compile on its path (2-13 ms on a worker, whose compiler stays cold).
   * compileSpares makes it, once the task's outcome has gone.
   */
  private prepareSpare(q: ExecutorQuery, spec: string): void {
    const key = `${q.queryId}/${q.numPartitions}`;
    if (this.spares.get(key)?.spec !== spec) this.wantedSpares.set(key, { spec, q });
  }

  private readonly wantedSpares = new Map<string, { spec: string; q: ExecutorQuery }>();

  /**
   * Compiles the spares the tasks since the last call asked for: the caller calls it after a
   * task's outcome has gone, while the worker waits for its next task (the driver commits the
   * batch meanwhile). A spare is what openPartition would compile; one of another spec is
   * replaced. One per query and parallelism.
   */
  compileSpares(): void {
    const wanted = [...this.wantedSpares];
    this.wantedSpares.clear();
    for (const [key, { spec, q }] of wanted) {
      if (this.closed || this.spares.get(key)?.spec === spec) continue;
      try {
        this.spares.set(key, { spec, query: this.compile(q.spec, q.numPartitions) });
      } catch {
        // openPartition compiles it again on the task's path, and reports what fails there.
        continue;
      }
      if (this.spares.size > MAX_CACHED_PARTITIONS) this.spares.delete(this.spares.keys().next().value!);
    }
  }

  /** Snapshots and retention of the partition's stores, in the background, one round at a time. */
  private startMaintenance(part: CachedPartition): void {
    if (part.maintenance) return;
    if (!part.maintenanceSchedule.due(this.o.clock.now())) return;
    part.maintenance = (async () => {
      for (const s of part.stores) await s.provider.maintenance();
    })()
      .catch((e: unknown) => this.o.onMaintenanceError?.(e))
      .finally(() => (part.maintenance = undefined));
  }

  private async evictOld(): Promise<void> {
    while (this.partitions.size > MAX_CACHED_PARTITIONS) {
      const [oldest, part] = this.partitions.entries().next().value!;
      this.partitions.delete(oldest);
      await closePartition(part);
    }
  }
}

/**
 * What a compiled query depends on, as a cache key: the whole spec, not its SQL alone. A run
 * restarted after an edit keeps its query id and may keep its SQL (a source's schema or watermark
 * edited), or change only what follows the stage (a projection after an aggregation, which a
 * sink-writing task runs); a worker that committed the partition's last version itself would
 * otherwise run the next batch with the plan of the spec before the edit. A few µs a task.
 */
function specKey(spec: JobSpec): string {
  return JSON.stringify(spec);
}

/** The stage's aggregation, for a task that the driver marked partialAggregation. */
function partialAggregationOf(op: StatefulOperator): StatefulAggregateExec {
  if (!(op instanceof StatefulAggregateExec) || !op.partialAggregation) throw new Error(`Internal: operator ${op.operatorId} cannot aggregate partially`);
  return op;
}

async function closePartition(part: CachedPartition): Promise<void> {
  await part.maintenance;
  for (const s of part.stores) await s.provider.close();
}

/** A task's OperatorContext: its batch's id, watermarks and timestamp, with what the task adds. */
function taskContext(task: MapTask | ReduceTask, extra: Omit<OperatorContext, 'batchId' | 'batchWatermarkMs' | 'lateEventsWatermarkMs' | 'batchTimestampMs' | 'currentUser'>): OperatorContext {
  return {
    batchId: task.batchId,
    batchWatermarkMs: task.batchWatermarkMs,
    ...(task.lateEventsWatermarkMs !== undefined ? { lateEventsWatermarkMs: task.lateEventsWatermarkMs } : {}),
    batchTimestampMs: task.batchTimestampMs,
    ...(task.currentUser !== undefined ? { currentUser: task.currentUser } : {}),
    ...extra,
  };
}
