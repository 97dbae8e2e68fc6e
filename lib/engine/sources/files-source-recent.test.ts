/**
 * FilesSource.sampleRecent, by property: over any set of files (JSON lines or CSV with a
 * header) and any record bound, the records are exactly the newest ones, oldest first (files by
 * modification time); under any byte bound they are a suffix of those, whole records only, never
 * more bytes than the bound. The checkpoint is never written.
 */
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { ManualClock } from '../clock';
import type { Schema } from '../types';
import { FilesSource } from './files-source';

const schema: Schema = [{ name: 'n', type: 'long' }, { name: 's', type: 'string' }];
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

// Non-empty strings: CSV reads an empty field as NULL.
const fileArb = fc.array(fc.record({ n: fc.integer({ min: -1000, max: 1000 }), s: fc.stringMatching(/^[a-z]{1,12}$/) }), { maxLength: 25 });

async function sample(format: 'json' | 'csv', files: { n: number; s: string }[][], records: number, bytes: number) {
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-recent-'));
  dirs.push(dir);
  const base = 1_790_000_000; // any fixed past time: only the order of the times matters
  for (const [i, recs] of files.entries()) {
    // Names against the time order, so the order proven is the modification time's.
    const file = path.join(dir, `f${String(files.length - i).padStart(3, '0')}.${format}`);
    const lines = format === 'json' ? recs.map((r) => JSON.stringify(r)) : ['n,s', ...recs.map((r) => `${r.n},${r.s}`)];
    await writeFile(file, lines.join('\n') + '\n');
    await utimes(file, base + i, base + i);
  }
  const checkpoint = new InMemoryCheckpointFileManager();
  const src = new FilesSource({ path: dir, format, header: true }, { name: 'src', schema, checkpoint, metadataPath: 'sources/0', clock: new ManualClock() });
  const got = await src.sampleRecent({ records, bytes, timeoutMs: 5_000, signal: new AbortController().signal });
  return { got, all: files.flat(), written: await checkpoint.list('') };
}

describe('FilesSource.sampleRecent', () => {
  for (const format of ['json', 'csv'] as const) {
    it(`${format}: the newest records up to the record bound, oldest first, writing no checkpoint`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fileArb, { maxLength: 5 }), fc.integer({ min: 1, max: 80 }), async (files, records) => {
          const { got, all, written } = await sample(format, files, records, 1 << 20);
          expect(got.badRecords).toEqual([]);
          expect(got.rows).toEqual(all.slice(Math.max(0, all.length - records)));
          expect(got.stoppedAtBytes).toBe(false);
          expect(written).toEqual([]);
        }),
        { numRuns: 25 },
      );
    });

    it(`${format}: under a byte bound, a suffix of whole records within the bound`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fileArb, { maxLength: 5 }), fc.integer({ min: 1, max: 600 }), async (files, bytes) => {
          const { got, all } = await sample(format, files, 1000, bytes);
          expect(got.badRecords).toEqual([]);
          expect(got.rows).toEqual(all.slice(all.length - got.rows.length));
          expect(got.bytesRead).toBeLessThanOrEqual(bytes);
          if (!got.stoppedAtBytes) expect(got.rows).toEqual(all);
        }),
        { numRuns: 25 },
      );
    });
  }
});
