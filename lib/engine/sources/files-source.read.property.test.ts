/**
 * Differential property test: the files source reads a file in buffers of several segments and
 * decodes it a segment of whole lines at a time; the rows, bad records and their line numbers
 * must be what the whole file read at once and split on '\n' gives. Lines are short, near a
 * segment (64 KB), or longer than a read buffer (1 MB); characters are ASCII and multi-byte
 * (so a segment's end falls at every kind of byte); some lines are bad, and the last may lack
 * its newline. Both ways of reading are checked: getBatch, and getBatchInPieces.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { ManualClock } from '../clock';
import type { Row, Schema } from '../types';
import { FilesSource } from './files-source';
import { propertyRuns } from '@/lib/testing/property-runs';

const schema: Schema = [{ name: 's', type: 'string' }];
const dirs: string[] = [];
afterAll(async () => {
  while (dirs.length) await rm(dirs.pop()!, { recursive: true, force: true });
});

const piece = fc.constantFrom('a', 'é', '日', '😀', 'xyz');
const line = fc.record({
  // Bytes: short, about a segment, or past a read buffer.
  bytes: fc.oneof({ weight: 8, arbitrary: fc.nat(120) }, { weight: 2, arbitrary: fc.integer({ min: 60_000, max: 140_000 }) }, { weight: 1, arbitrary: fc.integer({ min: 1_000_000, max: 1_200_000 }) }),
  unit: piece,
  bad: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
});
const file = fc.record({ lines: fc.array(line, { minLength: 1, maxLength: 12 }), finalNewline: fc.boolean() });

describe('FilesSource reads a file in buffers, decoded a segment at a time', () => {
  it('gives the rows and bad records of the whole file split into lines', async () => {
    await fc.assert(
      fc.asyncProperty(file, async ({ lines, finalNewline }) => {
        const dir = await mkdtemp(path.join(tmpdir(), 'weir-fsrc-read-'));
        dirs.push(dir);
        const value = (l: (typeof lines)[number]) => l.unit.repeat(Math.ceil(l.bytes / Buffer.byteLength(l.unit)));
        const texts = lines.map((l) => (l.bad ? `{"s": "${value(l)}` : JSON.stringify({ s: value(l) })));
        await writeFile(path.join(dir, 'a.json'), texts.join('\n') + (finalNewline ? '\n' : ''));
        const whole = (await readFile(path.join(dir, 'a.json'), 'utf8')).split('\n');
        const expectedRows = whole.flatMap((t, i) => (t === '' || lines[i].bad ? [] : [JSON.parse(t).s as string]));
        const expectedBad = whole.flatMap((t, i) => (t !== '' && lines[i].bad ? [i + 1] : []));
        const source = new FilesSource({ path: dir, format: 'json', header: true }, { name: 'src', schema, checkpoint: new InMemoryCheckpointFileManager(), metadataPath: 'sources/0', clock: new ManualClock() });
        await source.open();
        const end = (await source.latestOffset(null))!;
        const batch = await source.getBatch(null, end);
        expect(batch.rows.map((r) => r.s)).toEqual(expectedRows);
        expect(batch.badRecords.map((b) => b.location.line)).toEqual(expectedBad);
        const pieces: Row[] = [];
        const inPieces = await source.getBatchInPieces(null, end, (rows) => void pieces.push(...rows));
        expect(pieces.map((r) => r.s)).toEqual(expectedRows);
        expect(inPieces.badRecords.map((b) => b.location.line)).toEqual(expectedBad);
        await rm(dir, { recursive: true, force: true });
      }),
      { numRuns: propertyRuns(40, 150) },
    );
  });
});
