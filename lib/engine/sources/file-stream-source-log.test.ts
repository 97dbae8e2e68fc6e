import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { ConcurrentStreamLogUpdateError } from '../errors';
import { FileStreamSourceLog, type SourceFileEntry } from './file-stream-source-log';

describe('FileStreamSourceLog', () => {
  it('returns every entry as added, across compactions and restarts, in a bounded number of files (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 5 }),
        fc.array(fc.array(fc.nat({ max: 99 }), { maxLength: 3 }), { minLength: 1, maxLength: 25 }),
        async (interval, batches) => {
          const fm = new InMemoryCheckpointFileManager();
          const log = new FileStreamSourceLog(fm, 'sources/0', interval);
          const model = new Map<number, SourceFileEntry[]>();
          for (const [id, sizes] of batches.entries()) {
            const files = sizes.map((size, k) => ({ path: `f-${id}-${k}.json`, size }));
            await log.add(id, files);
            model.set(id, files);
            expect((await fm.list('sources/0')).length).toBeLessThanOrEqual(interval);
          }
          const reopened = new FileStreamSourceLog(fm, 'sources/0', interval);
          expect(await reopened.allEntries()).toEqual(model);
          for (const [id, files] of model) expect(await reopened.get(id)).toEqual(files);
          expect(await reopened.get(batches.length)).toBeUndefined();
        },
      ),
      { numRuns: 60, seed: 11 },
    );
  });

  it("keeps each file's modification time as Spark's `timestamp`, and reads a log written without it", async () => {
    const fm = new InMemoryCheckpointFileManager();
    const log = new FileStreamSourceLog(fm, 'sources/0', 10);
    await log.add(0, [{ path: 'a.json', size: 3, modificationTime: 1_767_323_045_000 }]);
    expect((await fm.read('sources/0/0')).toString('utf8')).toContain('{"path":"a.json","size":3,"timestamp":1767323045000}');
    expect(await new FileStreamSourceLog(fm, 'sources/0', 10).get(0)).toEqual([{ path: 'a.json', size: 3, modificationTime: 1_767_323_045_000 }]);
    // A delta from before the time was kept: no time (the source then asks the file).
    await fm.createAtomic('sources/0/1', 'v1\n{"path":"b.json","size":4}');
    expect(await new FileStreamSourceLog(fm, 'sources/0', 10).get(1)).toEqual([{ path: 'b.json', size: 4 }]);
  });

  it('refuses a second writer of the same entry, delta or compact', async () => {
    const fm = new InMemoryCheckpointFileManager();
    const log = new FileStreamSourceLog(fm, 'sources/0', 2);
    await log.add(0, [{ path: 'a', size: 1 }]);
    await expect(log.add(0, [{ path: 'b', size: 1 }])).rejects.toBeInstanceOf(ConcurrentStreamLogUpdateError);
    await log.add(1, [{ path: 'c', size: 1 }]);
    expect(await fm.list('sources/0')).toEqual(['1.compact']);
    await expect(log.add(1, [])).rejects.toBeInstanceOf(ConcurrentStreamLogUpdateError);
    expect(await log.get(0)).toEqual([{ path: 'a', size: 1 }]);
  });
});
