import { describe, expect, it } from 'vitest';
import { mapEntryBytes, mergeToSnapshot, readStateFile, StateFileWriter, type StateFileBytes } from './state-file-format';
import { mulberry32 } from '../../testing/mulberry32';

/**
 * mergeToSnapshot against the plain reading of its files: a load's map of the base snapshot and
 * the deltas, in order, written out as a snapshot. The merge copies values as bytes from the
 * files instead of decoding them, so this pins the two to the same bytes.
 */
describe('mergeToSnapshot', () => {
  // ASCII, multi-byte UTF-8, and lone surrogates (written as UTF-16).
  const keyOf = (i: number) => [`k${i}`, `ключ${i}`, `\ud800${i}`][i % 3];
  const valueOf = (rand: () => number) => {
    // Short values (copied byte by byte) and long ones (past 64 bytes, copied as a block).
    const n = rand() < 0.8 ? Math.floor(rand() * 20) : 65 + Math.floor(rand() * 200);
    return String.fromCharCode(...Array.from({ length: n }, () => Math.floor(rand() * 256)));
  };

  function reference(version: number, base: StateFileBytes | null, deltas: StateFileBytes[]): { data: Uint8Array; rows: number; memory: number } {
    const map = new Map<string, string>();
    const read = (f: StateFileBytes, kind: 'snapshot' | 'delta') =>
      readStateFile(f.path, f.data, { version: f.version, kind }, (k, v) => void map.set(k, v), (k) => void map.delete(k));
    if (base) read(base, 'snapshot');
    for (const d of deltas) read(d, 'delta');
    const w = new StateFileWriter(version, 'snapshot');
    let memory = 0;
    for (const [k, v] of map) {
      w.put(k, v);
      memory += mapEntryBytes(k.length, v.length);
    }
    return { data: w.finish(), rows: map.size, memory };
  }

  // The last two pass the merge's first table sizes (2,048 keys), so its index grows mid-file.
  it.each([
    [1, true, 200, 300],
    [2, true, 200, 300],
    [3, true, 200, 300],
    [4, false, 200, 300],
    [5, false, 200, 300],
    [6, true, 9000, 12000],
    [7, false, 9000, 12000],
  ])('writes the bytes, rows and heap estimate of a load of its files (seed %i, with a base snapshot: %s, %i keys)', (seed, withBase, keys, records) => {
    const rand = mulberry32(seed);
    const file = (version: number, kind: 'snapshot' | 'delta'): StateFileBytes => {
      const w = new StateFileWriter(version, kind);
      const written = new Set<string>();
      for (let n = 0; n < records; n++) {
        const key = keyOf(Math.floor(rand() * keys));
        if (written.has(key) && kind === 'snapshot') continue;
        written.add(key);
        if (kind === 'delta' && rand() < 0.3) w.remove(key);
        else w.put(key, valueOf(rand));
      }
      return { path: `${version}.${kind}`, version, data: Buffer.from(w.finish()) };
    };
    const base = withBase ? file(10, 'snapshot') : null;
    const deltas = Array.from({ length: 5 }, (_, i) => file(11 + i, 'delta'));
    const merged = mergeToSnapshot(15, base, deltas);
    const expected = reference(15, base, deltas);
    expect(Buffer.from(merged.data).equals(Buffer.from(expected.data))).toBe(true);
    expect(merged.rows).toBe(expected.rows);
    expect(merged.memory).toBe(expected.memory);
  });
});
