/**
 * Per-batch cost of the checkpoint protocol on local disk: offsets/N and commits/N written
 * atomically (temp file, fsync, link/rename, dir fsync), the log listing and retention purge,
 * measured over many batches:
 *   - empty batch: the source offset advances but the range holds no rows (pure protocol);
 *   - one-row batch: one row through the query to the memory sink.
 * The same batches against the in-memory CheckpointFileManager give the engine's own per-batch
 * cost; the difference is what the durable protocol costs. Goal: <= 5 ms per batch on local disk
 * (median over WEIR_BENCH_BATCHES batches, default 300; p90 and mean shown beside it).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  InMemoryCheckpointFileManager,
  LocalCheckpointFileManager,
  MemoryStream,
  MicroBatchExecution,
  SystemClock,
  parseJobSpec,
  type CheckpointFileManager,
  type Offset,
  type Source,
  type SourceBatch,
} from '../lib/engine/index';
import type { BenchResult } from './run';

const BATCHES = Number(process.env.WEIR_BENCH_BATCHES ?? 300);

/** A source whose offset moves by one per poll while its ranges hold no rows. */
class EmptyTickSource implements Source {
  readonly description = 'EmptyTicks';
  readonly replayable = true;
  readonly replayableReason = 'no rows';
  readonly schema = [{ name: 'id', type: 'long' as const }];
  private n = 0;
  async latestOffset(): Promise<Offset | null> {
    return ++this.n;
  }
  async getBatch(): Promise<SourceBatch> {
    return { rows: [], badRecords: [] };
  }
  async stop(): Promise<void> {}
}

function spec(id: string) {
  const r = parseJobSpec({
    name: id,
    source: { name: 'src', type: 'memory', options: { stream: id }, schema: [{ name: 'id', type: 'long' }] },
    sql: 'SELECT id, id * 2 AS twice FROM src WHERE id >= 0',
    sink: { type: 'memory', options: { table: id } },
    trigger: { type: 'available-now' },
    checkpointLocation: `memory://${id}`,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.spec;
}

async function perBatchMs(kind: 'empty' | 'one-row', checkpoint: CheckpointFileManager, id: string): Promise<{ median: number; p90: number; mean: number }> {
  const stream = MemoryStream.named(id);
  const q = new MicroBatchExecution({ spec: spec(id), clock: new SystemClock(), checkpoint, source: kind === 'empty' ? new EmptyTickSource() : undefined });
  await q.start();
  // Warm-up batches (JIT, directory creation) are not measured.
  const step = async () => {
    if (kind === 'one-row') {
      stream.addData({ id: stream.rows.length });
      await q.processAllAvailable();
    } else {
      // The empty source always has a new offset: run exactly one trigger.
      await (q as unknown as { exclusive<T>(f: () => Promise<T>): Promise<T>; runOneTrigger(l: string): Promise<boolean> }).exclusive(() =>
        (q as unknown as { runOneTrigger(l: string): Promise<boolean> }).runOneTrigger('default'),
      );
    }
  };
  for (let i = 0; i < 20; i++) await step();
  const times: number[] = [];
  for (let i = 0; i < BATCHES; i++) {
    const t0 = performance.now();
    await step();
    times.push(performance.now() - t0);
  }
  await q.stop();
  times.sort((a, b) => a - b);
  // The median is the protocol's cost; the p90 shows what a busy disk (other fsyncs) adds.
  return { median: times[Math.floor(times.length / 2)], p90: times[Math.floor(times.length * 0.9)], mean: times.reduce((a, b) => a + b, 0) / times.length };
}

export async function run(): Promise<BenchResult[]> {
  const root = await mkdtemp(path.join(tmpdir(), 'weir-bench-cp-'));
  try {
    const out: BenchResult[] = [];
    for (const kind of ['empty', 'one-row'] as const) {
      const local = await perBatchMs(kind, new LocalCheckpointFileManager(path.join(root, kind)), `bench-local-${kind}`);
      const memory = await perBatchMs(kind, new InMemoryCheckpointFileManager(), `bench-mem-${kind}`);
      out.push(
        { name: `checkpoint: ${kind} batch, local disk, median`, value: local.median, unit: 'ms/batch', goal: '<= 5', ok: local.median <= 5 },
        { name: `checkpoint: ${kind} batch, local disk, p90`, value: local.p90, unit: 'ms/batch' },
        { name: `checkpoint: ${kind} batch, local disk, mean`, value: local.mean, unit: 'ms/batch' },
        { name: `checkpoint: ${kind} batch, in-memory checkpoint, median`, value: memory.median, unit: 'ms/batch' },
        { name: `checkpoint: ${kind} batch, durable protocol share (median)`, value: local.median - memory.median, unit: 'ms/batch' },
      );
    }
    return out;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
