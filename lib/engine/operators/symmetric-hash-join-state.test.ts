/**
 * The join's state manager against a model, on both state store providers: whatever sequence of
 * appends, matches, evictions (by time and by key), failed batches, maintenance and restarts, after each
 * commit the stores hold exactly Spark's layout of the model's rows (keyToNumValues: each key's
 * count; keyWithIndexToValue: its rows at indexes 0..n-1), however few writes the flush made, and
 * the rows kept decoded between batches are the stores' rows, as a restarted process reads them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { FileBackedStateStoreProvider } from '../state/file-backed-state-store-provider';
import { LmdbStateStoreProvider } from '../state/lmdb-state-store-provider';
import type { StateStore, StateStoreId, StateStoreProvider } from '../state/state-store';
import { decodeKey, decodeValue, encodeKey } from '../state/state-value-codec';
import type { Row } from '../types';
import { cacheKeyOf, JoinStateCache, SymmetricHashJoinStateManager, type OnRemoved } from './symmetric-hash-join-state';

const COLUMNS = ['id', 't'];
const timeOf = (r: Row) => r.t as number;
/** The join keys as the stores hold them, and as the manager is asked for them (cacheKeyOf). */
const KEYS = [0, 1, 2, 3].map((k) => encodeKey([k]));
const CACHE_KEYS = [0, 1, 2, 3].map((k) => cacheKeyOf([k]));

type Op =
  | { op: 'append'; key: number; t: number }
  | { op: 'match'; key: number; pick: number }
  | { op: 'evictUpTo'; t: number }
  | { op: 'evictKey'; key: number };
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('append' as const), key: fc.integer({ min: 0, max: 3 }), t: fc.integer({ min: 0, max: 30 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('match' as const), key: fc.integer({ min: 0, max: 3 }), pick: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('evictUpTo' as const), t: fc.integer({ min: 0, max: 30 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('evictKey' as const), key: fc.integer({ min: 0, max: 3 }) }) },
);
const batches = fc.array(fc.record({ ops: fc.array(op, { maxLength: 12 }), fail: fc.integer({ min: 0, max: 4 }).map((n) => n === 0), maintain: fc.boolean(), restart: fc.boolean() }), { minLength: 1, maxLength: 12 });

/** A model row: id, time, matched. */
type ModelRow = [number, number, boolean];
type Model = Map<string, ModelRow[]>;
const sorted = (rows: ModelRow[]) => [...rows].sort((a, b) => a[0] - b[0]);
/** A removal listener that keeps each removed row with whether it had matched. */
const collect = (into: Row[]): OnRemoved => (row, matched) => void into.push({ ...row, matched });

const localDirs: string[] = [];
afterAll(async () => {
  for (const d of localDirs) await rm(d, { recursive: true, force: true });
});

const providers = {
  'file-backed': async () => {
    const fm = new InMemoryCheckpointFileManager();
    return (id: StateStoreId): StateStoreProvider => new FileBackedStateStoreProvider(fm, id, { minDeltasForSnapshot: 3 });
  },
  lmdb: async () => {
    const fm = new InMemoryCheckpointFileManager();
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-join-state-'));
    localDirs.push(dir);
    // A new local directory per process: a restart rebuilds from the checkpoint.
    let run = 0;
    return (id: StateStoreId): StateStoreProvider => new LmdbStateStoreProvider(fm, id, { minDeltasForSnapshot: 3 }, { localDir: path.join(dir, String(run++ >> 1)) });
  },
};

/** What the stores hold, read as Spark's layout: each key's rows at indexes 0..n-1, nothing else. */
function layout(counts: StateStore, values: StateStore): Model {
  const out: Model = new Map();
  let slots = 0;
  for (const [k, b] of counts.entries()) {
    const n = decodeValue(b) as number;
    expect(n).toBeGreaterThan(0);
    const rows: ModelRow[] = [];
    for (let i = 0; i < n; i++) {
      const v = values.get(`${k}#${i}`);
      expect(v, `${JSON.stringify(k)} index ${i} of ${n}`).toBeDefined();
      const [[id, t], matched] = decodeValue(v!) as [[number, number], boolean];
      rows.push([id, t, matched]);
    }
    slots += n;
    out.set(k, sorted(rows));
  }
  expect(values.size).toBe(slots);
  return out;
}

describe('join state manager against a model', () => {
  it.each(Object.keys(providers) as (keyof typeof providers)[])('%s: the stores hold the model after every commit; the kept rows are the stores’ rows', async (kind) => {
    await fc.assert(
      fc.asyncProperty(batches, async (bs) => {
        const providerOf = await providers[kind]();
        const open = () => ({ counts: providerOf({ operatorId: 0, partitionId: 0, storeName: 'left-keyToNumValues' }), values: providerOf({ operatorId: 0, partitionId: 0, storeName: 'left-keyWithIndexToValue' }) });
        let ps = open();
        let cache = new JoinStateCache();
        let model: Model = new Map();
        let nextId = 0;
        for (let version = 0, b = 0; b < bs.length; b++) {
          const batch = bs[b];
          const counts = await ps.counts.getStore(version);
          const values = await ps.values.getStore(version);
          const m = new SymmetricHashJoinStateManager(counts, values, cache, COLUMNS, timeOf);
          const next: Model = new Map([...model].map(([k, rows]) => [k, rows.map((r): ModelRow => [...r])]));
          for (const o of batch.ops) {
            if (o.op === 'append') {
              const id = nextId++;
              m.append(CACHE_KEYS[o.key], { id, t: o.t }, false);
              next.set(KEYS[o.key], [...(next.get(KEYS[o.key]) ?? []), [id, o.t, false]]);
            } else if (o.op === 'match') {
              const entry = m.rowsOf(CACHE_KEYS[o.key]);
              if (!entry || entry.length === 0) continue;
              const i = o.pick % entry.length;
              const id = entry.row(i).id;
              m.markMatched(entry, i);
              next.get(KEYS[o.key])!.find((r) => r[0] === id)![2] = true;
            } else if (o.op === 'evictUpTo') {
              const removed: Row[] = [];
              expect(m.removeUpTo(o.t, collect(removed))).toBe(removed.length);
              const want: number[] = [];
              for (const [k, rows] of next) {
                for (const r of rows) if (r[1] <= o.t) want.push(r[0]);
                next.set(k, rows.filter((r) => r[1] > o.t));
              }
              expect(removed.map((r) => r.id as number).sort((a, c) => a - c)).toEqual(want.sort((a, c) => a - c));
            } else {
              const removed: Row[] = [];
              expect(m.removeKeysWhere((k) => k === KEYS[o.key], collect(removed))).toBe(removed.length);
              expect(removed.map((r) => [r.id, r.t, r.matched])).toEqual(expect.arrayContaining((next.get(KEYS[o.key]) ?? []).map((r) => [...r])));
              expect(removed.length).toBe((next.get(KEYS[o.key]) ?? []).length);
              next.delete(KEYS[o.key]);
            }
          }
          for (const [k, rows] of next) if (rows.length === 0) next.delete(k);
          m.flush();
          expect(m.numRows).toBe([...next.values()].reduce((n, rows) => n + rows.length, 0));
          if (batch.fail) {
            // A failed batch: its changes go, and the operator starts over from empty caches.
            counts.abort();
            values.abort();
            cache = new JoinStateCache();
            continue;
          }
          await counts.commit();
          await values.commit();
          version++;
          model = new Map([...next].map(([k, rows]) => [k, sorted(rows)]));
          // Snapshots (every 3 versions) that the file-backed provider takes in place of its map.
          if (batch.maintain) await Promise.all([ps.counts.maintenance(), ps.values.maintenance()]);
          // The kept rows, key by key, are the model's, in the stores' slot order.
          for (const [k, rows] of model) {
            const entry = new SymmetricHashJoinStateManager(await ps.counts.getStore(version), await ps.values.getStore(version), cache, COLUMNS, timeOf).rowsOf(cacheKeyOf(decodeKey(k)));
            expect(sorted(Array.from({ length: entry!.length }, (_, i): ModelRow => [entry!.row(i).id as number, entry!.row(i).t as number, entry!.isMatched(i)]))).toEqual(rows);
          }
          if (batch.restart) {
            await ps.counts.close();
            await ps.values.close();
            ps = open();
            cache = new JoinStateCache();
          }
          // What a process that starts now reads: Spark's layout of the model.
          const fresh = open();
          expect(layout(await fresh.counts.getStore(version), await fresh.values.getStore(version))).toEqual(model);
          await fresh.counts.close();
          await fresh.values.close();
        }
        await ps.counts.close();
        await ps.values.close();
      }),
      { numRuns: kind === 'lmdb' ? 25 : 60, seed: 4711 },
    );
  });
});

describe('eviction by time over many rows', () => {
  // Thousands of rows, so that the times the manager keeps for eviction fill several of its runs,
  // nearly in order as a stream's rows come or shuffled, under a few keys or thousands; each eviction removes exactly the rows at
  // or before its time, however the runs cut them.
  it('removes exactly the rows at or before each time, in order or not', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 5_000, max: 12_000 }), fc.integer({ min: 0, max: 2_000 }), fc.array(fc.integer({ min: -100, max: 12_000 }), { minLength: 1, maxLength: 8 }), fc.integer({ min: 3, max: 9_000 }), fc.integer(), async (n, disorder, evictions, keys, seed) => {
        const fm = new InMemoryCheckpointFileManager();
        const open = (storeName: string) => new FileBackedStateStoreProvider(fm, { operatorId: 0, partitionId: 0, storeName }, {}).getStore(0);
        const m = new SymmetricHashJoinStateManager(await open('left-keyToNumValues'), await open('left-keyWithIndexToValue'), new JoinStateCache(), COLUMNS, timeOf);
        let x = seed >>> 0;
        const rnd = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
        const kept = new Map<number, number>();
        for (let id = 0; id < n; id++) {
          const t = id + Math.floor(rnd() * disorder);
          m.append(cacheKeyOf([id % keys]), { id, t }, false);
          kept.set(id, t);
        }
        for (const t of evictions) {
          const removed: Row[] = [];
          expect(m.removeUpTo(t, collect(removed))).toBe(removed.length);
          const want = [...kept].filter(([, rt]) => rt <= t).map(([id]) => id);
          for (const id of want) kept.delete(id);
          expect(removed.map((r) => r.id as number).sort((a, b) => a - b)).toEqual(want);
        }
        const left = Array.from({ length: keys }, (_, k) => m.rowsOf(cacheKeyOf([k]))).flatMap((e) => (e ? Array.from({ length: e.length }, (_, i) => e.row(i).id as number) : []));
        expect(left.sort((a, b) => a - b)).toEqual([...kept.keys()]);
      }),
      { numRuns: 30, seed: 4712 },
    );
  });
});
