import { describe, expect, it } from 'vitest';
import { MemorySink, MemorySinkTable } from './memory-sink';

const ctx = { outputMode: 'append' as const, schema: [{ name: 'id', type: 'long' as const }], queryId: 'q', runId: 'r' };

describe('MemorySink', () => {
  it('takes a batch of 600k rows (spreading it into push arguments overflowed the stack at ~500k)', async () => {
    const table = MemorySinkTable.named(`memory-sink-big-${process.pid}`);
    try {
      const sink = new MemorySink(table);
      const rows = Array.from({ length: 600_000 }, (_, id) => ({ id }));
      await sink.addBatch(0, rows, ctx);
      await sink.addBatch(1, rows.slice(0, 10), ctx);
      expect(table.rows.length).toBe(600_010);
      expect(table.rows[599_999]).toEqual({ id: 599_999 });
      expect(table.rows[600_009]).toEqual({ id: 9 });
      await sink.addBatch(1, rows, ctx);
      expect(table.skippedReplays).toBe(1);
    } finally {
      MemorySinkTable.drop(table.name);
    }
  });
});
