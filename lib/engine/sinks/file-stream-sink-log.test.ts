import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { ManualClock } from '../clock';
import { ConcurrentStreamLogUpdateError, SinkError } from '../errors';
import { FileStreamSinkLog, type SinkLogEntry } from './file-stream-sink-log';
import { FilesSink, readCommittedRows } from './files-sink';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const status = (p: string, size: number) => ({ path: p, size, isDir: false, modificationTime: 1, blockReplication: 1, blockSize: size, action: 'add' as const });

describe('FileStreamSinkLog', () => {
  it('keeps every batch (files and query id) across compactions, in about 2 × interval files (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 5 }),
        fc.array(fc.record({ files: fc.array(fc.nat({ max: 999 }), { maxLength: 3 }), query: fc.constantFrom('q1', 'q2') }), { minLength: 1, maxLength: 30 }),
        async (interval, batches) => {
          const fm = new InMemoryCheckpointFileManager();
          const log = new FileStreamSinkLog(fm, interval);
          const model: { batchId: number; entry: SinkLogEntry }[] = [];
          for (const [id, b] of batches.entries()) {
            const entry = { queryId: b.query, files: b.files.map((size, k) => status(`part-${id}-${k}`, size)) };
            await log.add(id, entry);
            model.push({ batchId: id, entry });
            expect((await fm.list('_weir_metadata')).length).toBeLessThanOrEqual(2 * interval + 1);
            expect(await log.latestBatchId()).toBe(id);
          }
          const reader = new FileStreamSinkLog(fm, interval);
          expect(await reader.all()).toEqual(model);
          for (const m of model) expect(await reader.get(m.batchId)).toEqual(m.entry);
          expect(await reader.get(batches.length)).toBeUndefined();
        },
      ),
      { numRuns: 60, seed: 23 },
    );
  });

  it('refuses a second writer of a delta or a compact', async () => {
    const log = new FileStreamSinkLog(new InMemoryCheckpointFileManager(), 2);
    await log.add(0, { queryId: 'q', files: [] });
    await expect(log.add(0, { queryId: 'q', files: [] })).rejects.toBeInstanceOf(ConcurrentStreamLogUpdateError);
    await log.add(1, { queryId: 'q', files: [] });
    await expect(log.add(1, { queryId: 'q', files: [] })).rejects.toBeInstanceOf(ConcurrentStreamLogUpdateError);
  });
});

describe('FilesSink over many batches', () => {
  it('reads back every batch once after compactions, skips replays, and still refuses a foreign query id', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-fsink-compact-'));
    try {
      const schema = [{ name: 'n', type: 'long' as const }];
      const ctx = { outputMode: 'append' as const, schema, queryId: 'q1', runId: 'r1' };
      const sink = new FilesSink({ path: dir, format: 'json', header: true }, new ManualClock(5));
      for (let b = 0; b < 25; b++) {
        await sink.addBatch(b, [{ n: b }], ctx);
        if (b % 4 === 0) await sink.addBatch(b, [{ n: b }], ctx); // replay
      }
      const got = await readCommittedRows(dir, 'json');
      expect(got.map((x) => x.batchId)).toEqual(Array.from({ length: 25 }, (_, i) => i));
      expect(got.flatMap((x) => x.rows)).toEqual(Array.from({ length: 25 }, (_, n) => ({ n })));
      const logFiles = await readdir(path.join(dir, '_weir_metadata'));
      expect(logFiles).toEqual(expect.arrayContaining(['9.compact', '19.compact', '24']));
      expect(logFiles).not.toContain('3');
      const fresh = new FilesSink({ path: dir, format: 'json', header: true }, new ManualClock(5));
      await expect(fresh.addBatch(3, [{ n: 3 }], { ...ctx, queryId: 'other' })).rejects.toBeInstanceOf(SinkError);
      await fresh.addBatch(3, [{ n: 3 }], ctx);
      expect((await readCommittedRows(dir, 'json')).flatMap((x) => x.rows)).toHaveLength(25);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
