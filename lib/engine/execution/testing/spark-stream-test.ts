/**
 * Spark's StreamTest and StateStoreMetricsTest over several memory streams, for translating
 * Spark's streaming suites one action at a time:
 *
 *   const t = sparkStreams({ sql, sources: { leftInput: …, rightInput: … } });
 *   await t.run(
 *     MultiAddData({ leftInput: [...], rightInput: [...] }),
 *     CheckNewAnswer([3, 10, 6, 9]),
 *     assertNumStateRows({ total: 10, updated: 10 }),
 *     StopStream, StartStream,
 *   );
 *
 * CheckNewAnswer processes everything available (data batches, then the no-data batch a moved
 * watermark asks for) and compares the rows the sink received since the last check, as tuples in
 * the query's column order, order-insensitively. CheckLastBatch compares the last batch alone
 * (Complete mode). assertNumStateRows reads as Spark's: `total` from the last progress, the
 * other counts summed over the progresses since the last assertion of the same query run (a
 * restart starts a new count).
 */
import { expect } from 'vitest';
import { InMemoryCheckpointFileManager } from '../../checkpoint/in-memory-checkpoint-file-manager';
import { ManualClock } from '../../clock';
import type { StreamingQueryProgress } from '../../progress';
import { MemorySinkTable } from '../../sinks/memory-sink';
import { MemoryStream } from '../../sources/memory-source';
import type { Row } from '../../types';
import { MicroBatchExecution, type MicroBatchExecutionOptions } from '../micro-batch-execution';
import { mustParse } from './test-fixtures';

export interface SparkSource {
  schema: { name: string; type: string; [option: string]: unknown }[];
  eventTime?: string;
  watermarkDelay?: string;
}

export interface SparkStreamsOptions {
  sql: string;
  /** The sources by name, in the order of the spec's sources[]. */
  sources: Record<string, SparkSource>;
  outputMode?: 'append' | 'update' | 'complete';
  /** Further fields of the job spec (multipleWatermarkPolicy, dedup, parallelism, …). */
  spec?: Record<string, unknown>;
  /** Spark's session confs that are engine options here (StartStream(additionalConfs = …)). */
  confs?: Pick<MicroBatchExecutionOptions, 'noDataMicroBatchesEnabled'>;
}

export type SparkAction = (t: SparkStreams) => Promise<void> | void;

export interface StateRowCounts {
  total: number | number[];
  updated?: number | number[];
  droppedByWatermark?: number | number[];
  removed?: number | number[];
}

let n = 0;

export class SparkStreams {
  readonly spec: Record<string, unknown>;
  readonly table: MemorySinkTable;
  readonly progress: StreamingQueryProgress[] = [];
  private readonly checkpoint = new InMemoryCheckpointFileManager();
  private readonly streams = new Map<string, MemoryStream>();
  private readonly confs: SparkStreamsOptions['confs'];
  private query: MicroBatchExecution | undefined;
  private checkedBatches = 0;
  /** The first progress of the current run, and the first not yet counted by assertNumStateRows. */
  private runStart = 0;
  private nextUncounted = 0;

  constructor(opts: SparkStreamsOptions) {
    const id = `spark-streams-${++n}-${process.pid}`;
    this.spec = {
      name: id,
      sources: Object.entries(opts.sources).map(([name, s]) => ({ name, type: 'memory', options: { stream: `${id}-${name}` }, ...s })),
      sql: opts.sql,
      sink: { type: 'memory', options: { table: id } },
      outputMode: opts.outputMode ?? 'append',
      trigger: { type: 'available-now' },
      checkpointLocation: `memory://${id}`,
      ...opts.spec,
    };
    this.confs = opts.confs;
    for (const name of Object.keys(opts.sources)) this.streams.set(name, MemoryStream.named(`${id}-${name}`));
    this.table = MemorySinkTable.named(id);
  }

  stream(name: string): MemoryStream {
    const s = this.streams.get(name);
    if (!s) throw new Error(`no source ${name}`);
    return s;
  }

  async ensureStarted(): Promise<MicroBatchExecution> {
    if (!this.query) {
      this.query = new MicroBatchExecution({ spec: mustParse(this.spec), checkpoint: this.checkpoint, clock: new ManualClock(0), ...this.confs, onProgress: (p) => void this.progress.push(p) });
      this.runStart = this.nextUncounted = this.progress.length;
      await this.query.start();
    }
    return this.query;
  }

  async stop(): Promise<void> {
    await this.query?.stop();
    this.query = undefined;
  }

  /** The batches the sink received since the last call. */
  newBatches(): Row[][] {
    const batches = this.table.batches.slice(this.checkedBatches).map((b) => b.rows);
    this.checkedBatches = this.table.batches.length;
    return batches;
  }

  /** Spark's assertNumStateRows: total of the last progress, the rest summed since the last check. */
  stateRowCounts(): { total: number[]; updated: number[]; droppedByWatermark: number[]; removed: number[] } {
    const last = this.progress.at(-1);
    if (!last || this.progress.length <= this.runStart) throw new Error('No progress made, cannot check num state rows');
    const ops = last.stateOperators.length;
    const since = this.progress.slice(this.nextUncounted).filter((p) => p.stateOperators.length === ops);
    this.nextUncounted = this.progress.length;
    const sum = (f: (o: StreamingQueryProgress['stateOperators'][number]) => number) => Array.from({ length: ops }, (_, i) => since.reduce((s, p) => s + f(p.stateOperators[i]), 0));
    return {
      total: last.stateOperators.map((o) => o.numRowsTotal),
      updated: sum((o) => o.numRowsUpdated),
      droppedByWatermark: sum((o) => o.numRowsDroppedByWatermark),
      removed: sum((o) => o.numRowsRemoved),
    };
  }

  async run(...actions: SparkAction[]): Promise<void> {
    try {
      for (const a of actions) await a(this);
    } finally {
      await this.stop();
    }
  }
}

export const sparkStreams = (opts: SparkStreamsOptions) => new SparkStreams(opts);

/** A row as the tuple of its values, in the query's column order. */
const tuple = (r: Row) => Object.values(r);
const canon = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))).sort();

/** Adds rows to one source without running a batch (a later check runs them together). */
export const AddData = (source: string, ...rows: Row[]): SparkAction => (t) => void t.stream(source).addRows(rows);

/** Adds rows to several sources for the same batch. */
export const MultiAddData = (data: Record<string, Row[]>): SparkAction => (t) => {
  for (const [source, rows] of Object.entries(data)) t.stream(source).addRows(rows);
};

/** Every row the sink received since the last check, as tuples, in any order. */
export const CheckNewAnswer = (...rows: unknown[][]): SparkAction => async (t) => {
  await (await t.ensureStarted()).processAllAvailable();
  expect(canon(t.newBatches().flat().map(tuple))).toEqual(canon(rows));
};

/** The last batch's rows (Complete and Update mode answers). */
export const CheckLastBatch = (...rows: unknown[][]): SparkAction => async (t) => {
  await (await t.ensureStarted()).processAllAvailable();
  const batches = t.newBatches();
  expect(canon((batches.at(-1) ?? []).map(tuple))).toEqual(canon(rows));
};

export const assertNumStateRows = (want: StateRowCounts): SparkAction => (t) => {
  const got = t.stateRowCounts();
  const arr = (v: number | number[]) => (Array.isArray(v) ? v : [v]);
  const ops = got.total.length;
  expect({
    total: got.total,
    updated: got.updated,
    droppedByWatermark: got.droppedByWatermark,
    ...(want.removed !== undefined ? { removed: got.removed } : {}),
  }).toEqual({
    total: arr(want.total),
    updated: arr(want.updated ?? Array(ops).fill(0)),
    droppedByWatermark: arr(want.droppedByWatermark ?? Array(ops).fill(0)),
    ...(want.removed !== undefined ? { removed: arr(want.removed) } : {}),
  });
};

/**
 * StateStoreMetricsTest's assertStateOperatorProgressMetric: the last progress's operator (by
 * index, source up) has this name, these state partitions and this many store instances.
 */
export const assertStateOperatorProgressMetric = (want: { operatorName: string; numShufflePartitions: number; numStateStoreInstances: number }, operatorIndex = 0): SparkAction => (t) => {
  const op = t.progress.at(-1)!.stateOperators[operatorIndex];
  expect({ operatorName: op.operatorName, numShufflePartitions: op.numShufflePartitions, numStateStoreInstances: op.numStateStoreInstances }).toEqual(want);
};

/**
 * MultiStatefulOperatorsSuite's assertNumStateRows(Seq): each operator's rows in the last
 * progress. Spark lists the operators from the sink down, Weir from the source up: the figures are
 * given in Spark's order and compared reversed.
 */
export const assertNumStateRowsTotals = (sinkDown: number[]): SparkAction => (t) => {
  expect(t.progress.at(-1)!.stateOperators.map((o) => o.numRowsTotal).reverse()).toEqual(sinkDown);
};

/** MultiStatefulOperatorsSuite's assertNumRowsDroppedByWatermark(Seq): the last batch with input rows, in Spark's order. */
export const assertNumRowsDroppedByWatermark = (sinkDown: number[]): SparkAction => (t) => {
  const last = t.progress.filter((p) => p.numInputRows > 0).at(-1)!;
  expect(last.stateOperators.map((o) => o.numRowsDroppedByWatermark).reverse()).toEqual(sinkDown);
};

export const StopStream: SparkAction = (t) => t.stop();
export const StartStream: SparkAction = async (t) => void (await t.ensureStarted());

/** Runs a check of the test's own. */
export const Execute = (fn: (t: SparkStreams) => void | Promise<void>): SparkAction => fn;
