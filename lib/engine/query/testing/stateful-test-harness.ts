/**
 * Test support for stateful operators: compiles SQL with compileStreamingQuery and runs batches
 * through the operators following MicroBatchExecution's protocol for state: batch N
 * loads version N of each store, runs, commits version N+1 and tells the operators
 * (onCommitted; a crash before the commit: abort and onAborted); the watermark computed at the end
 * of batch N is used by batch N+1. A `restart` drops every in-memory object and keeps only the
 * checkpoint files, as a process restart does.
 *
 * This mirrors the state half of the execution so the operators can be tested without the rest
 * of the engine; the end-to-end action scripts run the real MicroBatchExecution.
 */
import type { CheckpointFileManager } from '../../checkpoint/checkpoint-file-manager';
import { InMemoryCheckpointFileManager } from '../../checkpoint/in-memory-checkpoint-file-manager';
import { allOperators, isStatefulOperator, type OperatorContext, type PhysicalOperator, type StatefulOperator, type StateOperatorProgress } from '../../operators/physical-operator';
import { batchEventTimes, nextWatermark } from '../../operators/watermark';
import { FileBackedStateStoreProvider } from '../../state/file-backed-state-store-provider';
import type { StateStore, StateStoreConf } from '../../state/state-store';
import type { OutputMode, Row, Schema } from '../../types';
import type { StreamingRelation } from '../logical-plan';
import { compileStreamingQuery, type CompileOptions } from '../streaming-query';

export interface CompiledForTest {
  operators: PhysicalOperator[];
  stateful: StatefulOperator[];
  outputSchema: Schema;
}

/** The real compilation path (analyzer included), as MicroBatchExecution uses it. */
function compileForTest(sql: string, relation: StreamingRelation, outputMode: OutputMode, opts: Omit<CompileOptions, 'outputMode'> = {}): CompiledForTest {
  const q = compileStreamingQuery(sql, relation, { ...opts, outputMode });
  return { operators: q.operators, stateful: allOperators(q.operators).filter(isStatefulOperator), outputSchema: q.outputSchema };
}

export interface BatchResult {
  batchId: number;
  output: Row[];
  watermarkMs: number;
  progress: StateOperatorProgress[];
}

/** Runs batches like MicroBatchExecution would, over one checkpoint. */
export class StatefulQueryRunner {
  private providers = new Map<string, FileBackedStateStoreProvider>();
  private compiled: CompiledForTest;
  batchId = 0;
  watermarkMs = 0;
  private previousWatermarkMs = 0;
  /**
   * Judge late rows by the previous batch's watermark, as MicroBatchExecution does (Spark's
   * watermark for late events), so what an operator below closed by this batch's is not late
   * above it. Off, late rows are judged by this batch's watermark, as older tests expect.
   */
  lateEventsByPreviousWatermark = false;

  constructor(
    private readonly fm: CheckpointFileManager,
    private readonly sql: string,
    private readonly relation: StreamingRelation,
    private readonly outputMode: OutputMode,
    private readonly conf: StateStoreConf = {},
    private readonly compileOptions: Omit<CompileOptions, 'outputMode'> = {},
  ) {
    this.compiled = compileForTest(sql, relation, outputMode, compileOptions);
  }

  /** The query's output schema (types as sinks see them). */
  outputSchema(): Schema {
    return this.compiled.outputSchema;
  }

  /** A new process on the same checkpoint, resuming at `batchId` with watermark `watermarkMs` (as recorded in commits/). */
  restart(): void {
    this.providers = new Map();
    this.compiled = compileForTest(this.sql, this.relation, this.outputMode, this.compileOptions);
  }

  private provider(opId: number, partition: number): FileBackedStateStoreProvider {
    const key = `${opId}/${partition}`;
    let p = this.providers.get(key);
    if (!p) {
      p = new FileBackedStateStoreProvider(this.fm, { operatorId: opId, partitionId: partition }, this.conf);
      this.providers.set(key, p);
    }
    return p;
  }

  /**
   * Runs one batch. `crashBeforeCommit` stops after the operators ran (the sink would have the
   * output) without committing state: the next call re-runs the same batch id.
   */
  async runBatch(rows: Row[], opts: { crashBeforeCommit?: boolean } = {}): Promise<BatchResult> {
    const stores = new Map<string, StateStore>();
    for (const op of this.compiled.stateful) {
      for (let p = 0; p < (op.numPartitions ?? 1); p++) stores.set(`${op.operatorId}/${p}`, await this.provider(op.operatorId, p).getStore(this.batchId));
    }
    const late = this.lateEventsByPreviousWatermark ? { lateEventsWatermarkMs: this.previousWatermarkMs } : {};
    const ctx: OperatorContext = { batchId: this.batchId, batchWatermarkMs: this.watermarkMs, ...late, batchTimestampMs: 0, stateStores: stores };
    let data = rows;
    for (const op of this.compiled.operators) data = await op.execute(data, ctx);
    if (opts.crashBeforeCommit) {
      for (const s of stores.values()) s.abort();
      for (const op of this.compiled.stateful) op.onAborted();
      return { batchId: this.batchId, output: data, watermarkMs: this.watermarkMs, progress: [] };
    }
    for (const s of stores.values()) await s.commit();
    for (const op of this.compiled.stateful) op.onCommitted(this.batchId + 1);
    for (const p of this.providers.values()) await p.maintenance();
    const progress = this.compiled.stateful.map((op) => op.progress());
    const result = { batchId: this.batchId, output: data, watermarkMs: this.watermarkMs, progress };
    // The production rule (operators/watermark.ts), over the batch's source rows or derived column.
    const { eventTime, watermarkDelayMs } = this.relation;
    this.previousWatermarkMs = this.watermarkMs;
    if (eventTime) this.watermarkMs = nextWatermark(this.watermarkMs, batchEventTimes(rows, eventTime, this.relation.schema, ctx), watermarkDelayMs ?? 0);
    this.batchId++;
    return result;
  }
}

/**
 * `rows` through the query in `batches` batches of about equal size in Complete mode, with a
 * restart between them (each buffer goes through the state store): the last batch's output and
 * the runner.
 */
export async function runInBatches(sql: string, relation: StreamingRelation, rows: Row[], batches = 1): Promise<{ output: Row[]; runner: StatefulQueryRunner }> {
  const runner = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, relation, 'complete');
  const per = Math.ceil(rows.length / batches);
  let output: Row[] = [];
  for (let k = 0; k < batches; k++) {
    if (k > 0) runner.restart();
    output = (await runner.runBatch(rows.slice(k * per, (k + 1) * per))).output;
  }
  return { output, runner };
}

/** A batch of rows, and the crash a property test asks for before it runs to its commit. */
export interface BatchWithCrash {
  rows: Row[];
  /** `rerun`: the batch runs once without committing, then again; `restart`: the same with a restart in between. */
  crash: string;
}

/** Each batch's output, in Update mode, each batch run after the crash it asks for. */
export async function runWithCrashes(sql: string, relation: StreamingRelation, batches: readonly BatchWithCrash[]): Promise<Row[][]> {
  const runner = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, relation, 'update');
  const out: Row[][] = [];
  for (const b of batches) {
    if (b.crash !== 'none') {
      await runner.runBatch(b.rows, { crashBeforeCommit: true });
      if (b.crash === 'restart') runner.restart();
    }
    out.push((await runner.runBatch(b.rows)).output);
  }
  return out;
}
