/**
 * Spark's StreamTest, for Weir: a query is exercised by a script of actions that reads like the
 * incident it guards against:
 *
 *   await testStream(h, [
 *     AddData(rows1), CheckAnswer(),
 *     AddData(rows2), CrashAt('after-sink', 1),
 *     StartStream(), CheckAnswer(),           // every row exactly once
 *     StopStream(),
 *   ]);
 *
 * The harness (`StreamHarness`) knows how to add data to the source (memory stream or a new
 * input file) and how to read the sink's committed answer (memory table or the files sink
 * through `_weir_metadata`). `CheckAnswer()` with no rows compares with `expected()` computed by
 * the test from every row added so far, so no figure is hand-typed. A crash is a thrown
 * CrashPointError: the running instance is abandoned without cleanup, as a killed process
 * would be, and the next StartStream builds a fresh one on the same checkpoint.
 */
import { expect } from 'vitest';
import type { Clock } from '../../clock';
import { CrashPointError } from '../../errors';
import type { StreamingQueryProgress } from '../../progress';
import type { JobSpec } from '../../spec/job-spec';
import type { Sink } from '../../sinks/sink';
import type { Row } from '../../types';
import type { CrashPointName } from '../crash-points';
import { MicroBatchExecution, type MicroBatchExecutionOptions } from '../micro-batch-execution';

export interface StreamHarness {
  spec: JobSpec;
  clock: Clock;
  addData(rows: Row[]): Promise<void>;
  /** The sink's committed rows, as the sink's reader returns them. */
  readAnswer(): Promise<Row[]>;
  /** What the answer must be, given every row added so far. */
  expected(added: Row[]): Row[];
  options?: Partial<MicroBatchExecutionOptions>;
}

export type StreamAction =
  | { kind: 'AddData'; rows: Row[] }
  | { kind: 'StartStream'; crash?: { point: CrashPointName; batchId: number } }
  | { kind: 'ProcessAllAvailable' }
  | { kind: 'CheckAnswer'; rows?: Row[] }
  | { kind: 'StopStream' }
  | { kind: 'CrashAt'; point: CrashPointName; batchId: number }
  | { kind: 'Assert'; fn: (s: StreamTestState) => void | Promise<void> };

export const AddData = (rows: Row[]): StreamAction => ({ kind: 'AddData', rows });
export const StartStream = (): StreamAction => ({ kind: 'StartStream' });
export const ProcessAllAvailable = (): StreamAction => ({ kind: 'ProcessAllAvailable' });
export const CheckAnswer = (rows?: Row[]): StreamAction => ({ kind: 'CheckAnswer', rows });
export const StopStream = (): StreamAction => ({ kind: 'StopStream' });
/** Start (if needed) a run told to die at `point` of `batchId`, process, and expect the crash. */
export const CrashAt = (point: CrashPointName, batchId: number): StreamAction => ({ kind: 'CrashAt', point, batchId });
export const Assert = (fn: (s: StreamTestState) => void | Promise<void>): StreamAction => ({ kind: 'Assert', fn });

export interface StreamTestState {
  query?: MicroBatchExecution;
  added: Row[];
  progress: StreamingQueryProgress[];
  queryIds: string[];
  crashes: CrashPointError[];
}

/** Rows as comparable strings, sorted: an order-insensitive multiset comparison. */
export function canonical(rows: Row[]): string[] {
  // A bigint (a DECIMAL's unscaled value, a BIGINT past 2^53) kept apart from a number.
  return rows.map((r) => JSON.stringify(Object.keys(r).sort().map((k) => [k, r[k]]), (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))).sort();
}

/** A sink keeping each batch's rows (canonical) as it last received them: a re-run overwrites its batch. */
export class BatchCapture implements Sink {
  readonly description = 'BatchCapture';
  readonly signature = 'idempotent' as const;
  readonly signatureReason = 'keeps the last write of each batch id';
  readonly supportedOutputModes = ['append', 'update', 'complete'] as const;
  readonly batches = new Map<number, string[]>();
  async addBatch(batchId: number, rows: Row[]): Promise<void> {
    this.batches.set(batchId, canonical(rows));
  }
  async close(): Promise<void> {}
  /** The outputs in batch order. */
  outputs(): string[][] {
    return [...this.batches.entries()].sort((a, b) => a[0] - b[0]).map(([, rows]) => rows);
  }
}

export async function testStream(h: StreamHarness, actions: StreamAction[]): Promise<StreamTestState> {
  const state: StreamTestState = { added: [], progress: [], queryIds: [], crashes: [] };
  const newQuery = (crash?: { point: CrashPointName; batchId: number }) => {
    const q = new MicroBatchExecution({
      spec: h.spec,
      clock: h.clock,
      onProgress: (p) => void state.progress.push(p),
      crash,
      ...h.options,
    });
    state.query = q;
    return q;
  };
  const ensureStarted = async () => {
    if (!state.query) newQuery();
    await state.query!.start();
    if (!state.queryIds.includes(state.query!.id)) state.queryIds.push(state.query!.id);
  };
  for (const [i, a] of actions.entries()) {
    const where = `action ${i} (${a.kind})`;
    switch (a.kind) {
      case 'AddData':
        await h.addData(a.rows);
        for (const r of a.rows) state.added.push(r);
        break;
      case 'StartStream':
        if (state.query) throw new Error(`${where}: the stream is already running; StopStream or CrashAt first`);
        newQuery(a.crash);
        await ensureStarted();
        break;
      case 'ProcessAllAvailable':
        await ensureStarted();
        await state.query!.processAllAvailable();
        break;
      case 'CheckAnswer': {
        await ensureStarted();
        await state.query!.processAllAvailable();
        const want = a.rows ?? h.expected(state.added);
        expect(canonical(await h.readAnswer()), where).toEqual(canonical(want));
        break;
      }
      case 'StopStream':
        await state.query?.stop();
        state.query = undefined;
        break;
      case 'CrashAt': {
        if (state.query) await state.query.stop();
        newQuery({ point: a.point, batchId: a.batchId });
        await ensureStarted();
        const err = await state.query!.processAllAvailable().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err, `${where}: expected a crash at ${a.point} of batch ${a.batchId}`).toBeInstanceOf(CrashPointError);
        state.crashes.push(err as CrashPointError);
        // A killed process cleans nothing up: abandon the instance.
        state.query = undefined;
        break;
      }
      case 'Assert':
        await a.fn(state);
        break;
    }
  }
  if (state.query) await state.query.stop();
  return state;
}
