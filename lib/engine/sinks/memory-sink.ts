/**
 * The memory sink (Spark's MemorySink), for tests: rows land in a named in-process table.
 * Idempotent like Spark's: a batch id at or below the last one added is skipped, so a replayed
 * batch never doubles rows. Complete mode replaces the table's rows with each batch.
 */
import { z } from 'zod';
import type { OutputMode, Row } from '../types';
import type { Sink, SinkBatchContext } from './sink';
import { registerSink } from './sink-registry';

export class MemorySinkTable {
  private static tables = new Map<string, MemorySinkTable>();
  rows: Row[] = [];
  batches: { batchId: number; rows: Row[] }[] = [];
  lastBatchId = -1;
  /** How many addBatch calls were skipped as replays (tests read this). */
  skippedReplays = 0;

  private constructor(readonly name: string) {}

  static named(name: string): MemorySinkTable {
    let t = MemorySinkTable.tables.get(name);
    if (!t) MemorySinkTable.tables.set(name, (t = new MemorySinkTable(name)));
    return t;
  }

  static drop(name: string): void {
    MemorySinkTable.tables.delete(name);
  }
}

const MemorySinkOptions = z.object({ table: z.string().min(1) }).strict();
type MemorySinkOptions = z.infer<typeof MemorySinkOptions>;

export class MemorySink implements Sink {
  readonly signature = 'idempotent' as const;
  readonly signatureReason = 'the memory sink remembers the last batch id and skips any batch at or below it';
  readonly supportedOutputModes: readonly OutputMode[] = ['append', 'complete', 'update'];
  readonly description: string;

  constructor(readonly table: MemorySinkTable) {
    this.description = `MemorySink[${table.name}]`;
  }

  async addBatch(batchId: number, rows: Row[], ctx: SinkBatchContext): Promise<void> {
    const t = this.table;
    if (batchId <= t.lastBatchId) {
      t.skippedReplays++;
      return;
    }
    const copy = rows.map((r) => ({ ...r }));
    if (ctx.outputMode === 'complete') t.rows = copy;
    // One push per row: spreading a batch into arguments overflows the stack at ~500k rows.
    else for (const r of copy) t.rows.push(r);
    t.batches.push({ batchId, rows: copy });
    t.lastBatchId = batchId;
  }

  async close(): Promise<void> {}
}

registerSink<MemorySinkOptions>({
  type: 'memory',
  options: MemorySinkOptions,
  signature: () => ({ signature: 'idempotent', reason: 'the memory sink skips a batch id it has already added (tests only; lost on exit)' }),
  supportedOutputModes: () => ['append', 'complete', 'update'],
  create: (o) => new MemorySink(MemorySinkTable.named(o.table)),
});
