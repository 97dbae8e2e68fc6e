/**
 * The StateStore contract suite: every StateStoreProvider implementation, over every
 * CheckpointFileManager it is meant to run on, must pass it. Call
 * `describeStateStoreContract(name, harness)` from a `*.test.ts` file.
 *
 * "A new provider" below stands for a restarted process: it shares nothing with the old one but
 * the checkpoint files.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { CheckpointFileManager } from '../../checkpoint/checkpoint-file-manager';
import { CorruptCheckpointError } from '../../errors';
import type { StateStore, StateStoreConf, StateStoreId, StateStoreProvider } from '../state-store';
import { indexedKey, stateStoreDir } from '../state-store';
import { decodeValue, encodeValue } from '../state-value-codec';
import { propertyRuns } from '@/lib/testing/property-runs';

interface StateStoreCheckpoint {
  fm: CheckpointFileManager;
  /** A provider as a freshly started process on the same worker would create it. */
  provider(id: StateStoreId, conf?: StateStoreConf): StateStoreProvider;
  /**
   * A provider as a process on another worker would create it (nothing local to reuse); the
   * same as `provider` for a provider that keeps nothing outside the checkpoint.
   */
  providerOnNewWorker?(id: StateStoreId, conf?: StateStoreConf): StateStoreProvider;
  cleanup(): Promise<void>;
}

export interface StateStoreContractHarness {
  /** The extension of the per-version change file: `delta` (file-backed) or `changelog` (LMDB). */
  changeFile: 'delta' | 'changelog';
  /**
   * Whether the rows live in the JavaScript heap (memoryUsedBytes follows them), or outside it
   * (memoryUsedBytes counts the open batch's changes only).
   */
  rowsInHeap: boolean;
  newCheckpoint(): Promise<StateStoreCheckpoint>;
}

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));

function contents(store: StateStore): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of store.entries()) out.set(k, dec(v)!);
  // keys() sees exactly the keys entries() does.
  expect([...store.keys()]).toEqual([...out.keys()]);
  return out;
}

async function withCheckpoint<T>(h: StateStoreContractHarness, fn: (cp: StateStoreCheckpoint) => Promise<T>): Promise<T> {
  const cp = await h.newCheckpoint();
  try {
    return await fn(cp);
  } finally {
    await cp.cleanup();
  }
}

const ID: StateStoreId = { operatorId: 0, partitionId: 0 };

export function describeStateStoreContract(name: string, h: StateStoreContractHarness): void {
  const change = (v: number) => `${v}.${h.changeFile}`;
  describe(`StateStore contract: ${name}`, () => {
    it('version 0 is empty; commit() returns version + 1 and a new provider loads it', () =>
      withCheckpoint(h, async (cp) => {
        const s0 = await cp.provider(ID).getStore(0);
        expect(s0.size).toBe(0);
        s0.put('a', enc('1'));
        s0.put('b', enc('2'));
        s0.put('a', enc('3'));
        expect(dec(s0.get('a'))).toBe('3');
        expect(await s0.commit()).toBe(1);
        expect(() => s0.put('c', enc('x'))).toThrow(/already committed/);

        const fresh = cp.provider(ID);
        const s1 = await fresh.getStore(1);
        expect(contents(s1)).toEqual(new Map([['a', '3'], ['b', '2']]));
        s1.remove('b');
        s1.put('c', enc('4'));
        expect(await s1.commit()).toBe(2);
        expect(contents(await cp.provider(ID).getStore(2))).toEqual(new Map([['a', '3'], ['c', '4']]));
        expect((await cp.provider(ID).getStore(0)).size).toBe(0);
      }));

    it('abort() discards puts and removes; the same version loads again', () =>
      withCheckpoint(h, async (cp) => {
        const p = cp.provider(ID);
        const s0 = await p.getStore(0);
        s0.put('keep', enc('k'));
        await s0.commit();
        const s1 = await p.getStore(1);
        s1.put('keep', enc('changed'));
        s1.put('new', enc('n'));
        s1.remove('keep');
        s1.abort();
        const again = await p.getStore(1);
        expect(contents(again)).toEqual(new Map([['keep', 'k']]));
        again.put('other', enc('o'));
        expect(await again.commit()).toBe(2);
        expect(contents(await cp.provider(ID).getStore(2))).toEqual(new Map([['keep', 'k'], ['other', 'o']]));
      }));

    it('writeKnown writes without a read: size follows, the commit makes it durable, an abort drops it', () =>
      withCheckpoint(h, async (cp) => {
        const p = cp.provider(ID);
        const s0 = await p.getStore(0);
        s0.put('a', enc('1'));
        s0.put('b', enc('2'));
        await s0.commit();
        const s1 = await p.getStore(1);
        s1.writeKnown('a', 'A', true);
        s1.writeKnown('b', undefined, true);
        s1.writeKnown('c', 'C', false);
        s1.writeKnown('d', undefined, false); // absent: nothing to remove
        expect(s1.size).toBe(2);
        s1.abort();
        const again = await p.getStore(1);
        expect(contents(again)).toEqual(new Map([['a', '1'], ['b', '2']]));
        again.writeKnown('a', 'A', true);
        again.writeKnown('b', undefined, true);
        again.writeKnown('c', 'C', false);
        expect(again.size).toBe(2);
        expect(await again.commit()).toBe(2);
        expect(again.metrics()).toMatchObject({ numRowsTotal: 2, numRowsUpdated: 2, numRowsEvictedByWatermark: 1, numRowsRemoved: 0 });
        const expected = new Map([['a', 'A'], ['c', 'C']]);
        expect(contents(await p.getStore(2))).toEqual(expected);
        expect(contents(await cp.provider(ID).getStore(2))).toEqual(expected);
      }));

    it('writeKnownValue stores encodeValue\'s bytes, alone or after put/remove', () =>
      withCheckpoint(h, async (cp) => {
        const p = cp.provider(ID);
        const s0 = await p.getStore(0);
        s0.put('a', enc('1'));
        await s0.commit();
        const row = [[7, 'seven', null, `\uD800${'x'.repeat(3000)}`], true];
        const s1 = await p.getStore(1);
        s1.writeKnownValue('a', row, true);
        s1.writeKnownValue('b', 42, false);
        expect(s1.size).toBe(2);
        await s1.commit();
        expect(s1.metrics()).toMatchObject({ numRowsTotal: 2, numRowsUpdated: 2 });
        const s2 = await p.getStore(2);
        s2.remove('b');
        s2.writeKnownValue('c', row, false);
        await s2.commit();
        for (const q of [p, cp.provider(ID)]) {
          const s = await q.getStore(3);
          expect([...s.keys()].sort()).toEqual(['a', 'c']);
          expect(decodeValue(s.get('a')!)).toEqual(row);
          expect(Buffer.from(s.get('c')!)).toEqual(Buffer.from(encodeValue(row)));
        }
      }));

    it('writeKnown and writeKnownValue with an index write the key indexedKey(key, index), byte for byte', () =>
      withCheckpoint(h, async (cp) => {
        // The same writes, by index and by the whole key, into two stores: same change files, same figures.
        const byIndex = cp.provider(ID), byString = cp.provider({ ...ID, partitionId: 1 });
        const keys: [string, number][] = [['k', 0], ['k', 9], ['k', 10], ['k', 12345], ['\u00e9', 3], ['\uD800', 7], ['x'.repeat(80), 2], ['y'.repeat(63), 100]];
        const row = [[7, 'seven', null], false];
        for (const [v, journal] of [[0, false], [1, false], [2, true]] as const) {
          const a = await byIndex.getStore(v), b = await byString.getStore(v);
          // A put first: the known writes then go through the journal.
          if (journal) for (const s of [a, b]) s.put('plain', enc('p'));
          keys.forEach(([k, i], n) => {
            // Every key is put at version 0, and those with n % 3 === 0 removed at 1.
            const present = v === 1 || (v === 2 && n % 3 !== 0);
            if (v === 1 && n % 3 === 0) {
              a.writeKnown(k, undefined, present, i);
              b.writeKnown(indexedKey(k, i), undefined, present);
            } else if (n % 2 === 0) {
              a.writeKnownValue(k, row, present, undefined, i);
              b.writeKnownValue(indexedKey(k, i), row, present);
            } else {
              a.writeKnown(k, `v${v}`, present, i);
              b.writeKnown(indexedKey(k, i), `v${v}`, present);
            }
          });
          expect(a.size).toBe(b.size);
          await a.commit();
          await b.commit();
          const metrics = ({ commitTimeMs: _c, bytesOnDisk: _b, customMetrics: _m, ...m }: ReturnType<StateStore['metrics']>) => m;
          expect(metrics(a.metrics())).toEqual(metrics(b.metrics()));
          const file = (id: StateStoreId) => cp.fm.read(`${stateStoreDir(id)}/${change(v + 1)}`);
          expect(await file(ID)).toEqual(await file({ ...ID, partitionId: 1 }));
        }
        const s = await cp.provider(ID).getStore(3);
        expect(contents(s)).toEqual(contents(await cp.provider({ ...ID, partitionId: 1 }).getStore(3)));
        expect(s.has(indexedKey('k', 12345))).toBe(true);
      }));

    it('reads and put/remove after writeKnown see its writes', () =>
      withCheckpoint(h, async (cp) => {
        const p = cp.provider(ID);
        const s0 = await p.getStore(0);
        s0.put('a', enc('1'));
        await s0.commit();
        const s1 = await p.getStore(1);
        s1.writeKnown('a', undefined, true);
        s1.writeKnown('b', 'B', false);
        expect(s1.has('a')).toBe(false);
        expect(dec(s1.get('b'))).toBe('B');
        s1.put('a', enc('again'));
        s1.remove('b');
        s1.writeKnown('c', 'C', false);
        expect(contents(s1)).toEqual(new Map([['a', 'again'], ['c', 'C']]));
        await s1.commit();
        expect(contents(await cp.provider(ID).getStore(2))).toEqual(new Map([['a', 'again'], ['c', 'C']]));
      }));

    it('a re-run of an uncommitted batch replaces the half-written next version', () =>
      withCheckpoint(h, async (cp) => {
        const p = cp.provider(ID);
        const s0 = await p.getStore(0);
        s0.put('x', enc('1'));
        await s0.commit();
        const first = await p.getStore(1);
        first.put('x', enc('first attempt'));
        first.put('y', enc('only in first attempt'));
        await first.commit(); // version 2's change file exists, but the batch "crashed" before commits/1
        const rerun = await cp.provider(ID).getStore(1);
        expect(contents(rerun)).toEqual(new Map([['x', '1']]));
        rerun.put('x', enc('second attempt'));
        expect(await rerun.commit()).toBe(2);
        expect(contents(await cp.provider(ID).getStore(2))).toEqual(new Map([['x', 'second attempt']]));
      }));

    it('a re-run also drops a snapshot the crashed attempt wrote, so the rewritten version is what loads', () =>
      withCheckpoint(h, async (cp) => {
        const conf = { minDeltasForSnapshot: 1 };
        const p = cp.provider(ID, conf);
        const s0 = await p.getStore(0);
        s0.put('x', enc('1'));
        await s0.commit();
        const first = await p.getStore(1);
        first.put('x', enc('first attempt'));
        await first.commit();
        await p.maintenance(); // 2.snapshot of the attempt that is about to "crash"
        expect(await cp.fm.list(stateStoreDir(ID))).toContain('2.snapshot');
        const rerun = await cp.provider(ID, conf).getStore(1);
        rerun.put('x', enc('second attempt'));
        await rerun.commit();
        expect(contents(await cp.provider(ID, conf).getStore(2))).toEqual(new Map([['x', 'second attempt']]));
      }));

    it('loading a version that was never committed fails with CorruptCheckpointError', () =>
      withCheckpoint(h, async (cp) => {
        const s0 = await cp.provider(ID).getStore(0);
        s0.put('a', enc('1'));
        await s0.commit();
        await expect(cp.provider(ID).getStore(3)).rejects.toBeInstanceOf(CorruptCheckpointError);
      }));

    it('a damaged or truncated delta is refused, not half-loaded', () =>
      withCheckpoint(h, async (cp) => {
        const s0 = await cp.provider(ID).getStore(0);
        for (let i = 0; i < 20; i++) s0.put(`k${i}`, enc(`v${i}`));
        await s0.commit();
        const path = `${stateStoreDir(ID)}/${change(1)}`;
        const good = await cp.fm.read(path);
        const flipped = Buffer.from(good);
        flipped[30] ^= 0xff;
        await cp.fm.createAtomic(path, flipped, { overwrite: true });
        await expect(cp.provider(ID).getStore(1)).rejects.toThrow(/checksum mismatch/);
        await cp.fm.createAtomic(path, good.subarray(0, good.length - 9), { overwrite: true });
        await expect(cp.provider(ID).getStore(1)).rejects.toBeInstanceOf(CorruptCheckpointError);
        await cp.fm.createAtomic(path, good, { overwrite: true });
        expect((await cp.provider(ID).getStore(1)).size).toBe(20);
      }));

    it('stores of different operators and partitions are independent directories', () =>
      withCheckpoint(h, async (cp) => {
        const ids: StateStoreId[] = [{ operatorId: 0, partitionId: 0 }, { operatorId: 0, partitionId: 1 }, { operatorId: 1, partitionId: 0 }];
        for (const [i, id] of ids.entries()) {
          const s = await cp.provider(id).getStore(0);
          s.put('same-key', enc(`store ${i}`));
          await s.commit();
        }
        for (const [i, id] of ids.entries()) {
          expect(dec((await cp.provider(id).getStore(1)).get('same-key'))).toBe(`store ${i}`);
          expect(await cp.fm.list(stateStoreDir(id))).toContain(change(1));
        }
      }));

    it('maintenance writes a snapshot every K deltas and restart loads snapshot + deltas', () =>
      withCheckpoint(h, async (cp) => {
        const conf = { minDeltasForSnapshot: 3 };
        const p = cp.provider(ID, conf);
        for (let v = 0; v < 7; v++) {
          const s = await p.getStore(v);
          s.put(`k${v}`, enc(`v${v}`));
          if (v > 0) s.remove(`k${v - 1}`);
          await s.commit();
          await p.maintenance();
        }
        const names = await cp.fm.list(stateStoreDir(ID));
        expect(names.filter((n) => n.endsWith('.snapshot'))).toEqual(['3.snapshot', '6.snapshot']);
        // Prove the snapshot is what loads: remove the deltas it replaces.
        for (let v = 1; v <= 6; v++) await cp.fm.delete(`${stateStoreDir(ID)}/${change(v)}`);
        expect(contents(await cp.provider(ID, conf).getStore(7))).toEqual(new Map([['k6', 'v6']]));
        expect(contents(await cp.provider(ID, conf).getStore(6))).toEqual(new Map([['k5', 'v5']]));
      }));

    it('a snapshot taken while the next batch is running holds the committed version', () =>
      withCheckpoint(h, async (cp) => {
        const conf = { minDeltasForSnapshot: 1 };
        const p = cp.provider(ID, conf);
        const s0 = await p.getStore(0);
        s0.put('a', enc('committed'));
        s0.put('b', enc('committed'));
        await s0.commit();
        const s1 = await p.getStore(1);
        s1.put('a', enc('in flight'));
        s1.remove('b');
        s1.put('c', enc('in flight'));
        await p.maintenance();
        await cp.fm.delete(`${stateStoreDir(ID)}/${change(1)}`);
        expect(contents(await cp.provider(ID, conf).getStore(1))).toEqual(new Map([['a', 'committed'], ['b', 'committed']]));
        expect(await s1.commit()).toBe(2);
      }));

    it('retention keeps the last N versions loadable and deletes older files', () =>
      withCheckpoint(h, async (cp) => {
        const conf = { minDeltasForSnapshot: 2, minVersionsToRetain: 5 };
        const p = cp.provider(ID, conf);
        const history: Map<string, string>[] = [new Map()];
        for (let v = 0; v < 20; v++) {
          const s = await p.getStore(v);
          s.put(`k${v % 4}`, enc(`v${v}`));
          await s.commit();
          history.push(contents(s));
          await p.maintenance();
        }
        const versions = await p.listVersions();
        for (let v = 16; v <= 20; v++) {
          expect(versions).toContain(v);
          expect(contents(await cp.provider(ID, conf).getStore(v))).toEqual(history[v]);
        }
        const oldest = Math.min(...(await cp.fm.list(stateStoreDir(ID))).map((n) => Number(n.split('.')[0])));
        expect(oldest).toBeGreaterThan(1);
        expect(oldest).toBeLessThanOrEqual(16);
      }));

    it('metrics count rows, updates, evictions and bytes', () =>
      withCheckpoint(h, async (cp) => {
        const p = cp.provider(ID);
        const s0 = await p.getStore(0);
        for (let i = 0; i < 10; i++) s0.put(`k${i}`, enc('x'.repeat(i)));
        await s0.commit();
        const m0 = s0.metrics();
        expect(m0).toMatchObject({ numRowsTotal: 10, numRowsUpdated: 10, numRowsEvictedByWatermark: 0, numRowsRemoved: 0 });
        const delta1 = await cp.fm.read(`${stateStoreDir(ID)}/${change(1)}`);
        expect(m0.deltaBytes).toBe(delta1.length);
        expect(m0.bytesOnDisk).toBe(delta1.length);

        const s1 = await p.getStore(1);
        s1.put('k0', enc('changed'));
        s1.remove('k1', 'watermark');
        s1.remove('k2', 'watermark');
        s1.remove('k3');
        s1.put('tmp', enc('t'));
        s1.remove('tmp'); // never existed outside this batch: neither updated nor removed
        s1.remove('absent');
        await s1.commit();
        const m1 = s1.metrics();
        expect(m1).toMatchObject({ numRowsTotal: 7, numRowsUpdated: 1, numRowsEvictedByWatermark: 2, numRowsRemoved: 1 });
        const delta2 = await cp.fm.read(`${stateStoreDir(ID)}/${change(2)}`);
        expect(m1.bytesOnDisk).toBe(delta1.length + delta2.length);
        if (h.rowsInHeap) {
          expect(m1.memoryUsedBytes).toBeLessThan(m0.memoryUsedBytes);
          expect(m1.memoryUsedBytes).toBeGreaterThan(0);
        } else {
          // Only the open batch's changes are in the heap: none once committed, some while open.
          expect(m1.memoryUsedBytes).toBe(0);
          const s2 = await p.getStore(2);
          s2.put('k9', enc('changed'));
          expect(s2.metrics().memoryUsedBytes).toBeGreaterThan(0);
          s2.abort();
        }
        expect([...s1.updatedKeys()].sort()).toEqual(['k0', 'k1', 'k2', 'k3', 'tmp']);
      }));

    it('keys and values of any shape survive a restart (unicode, lone surrogates, empty)', () =>
      withCheckpoint(h, async (cp) => {
        const keys = ['', 'é', '日本', '\ud800', 'a\udc00b', '\u0000\u0001'];
        const s0 = await cp.provider(ID).getStore(0);
        keys.forEach((k, i) => s0.put(k, new Uint8Array(i)));
        await s0.commit();
        const s1 = await cp.provider(ID).getStore(1);
        expect([...s1.entries()].map(([k, v]) => [k, v.length]).sort()).toEqual(keys.map((k, i) => [k, i]).sort());
      }));

    it('property: any sequence of batches, aborts, crashes, restarts and maintenance loads like a model map', async () => {
      const op = fc.oneof(
        fc.record({ t: fc.constant('put' as const), k: fc.integer({ min: 0, max: 12 }), v: fc.string({ maxLength: 6 }) }),
        fc.record({ t: fc.constantFrom('remove' as const, 'evict' as const), k: fc.integer({ min: 0, max: 12 }) }),
        // writeKnown: a put (v) or a removal (null), by a caller that knows whether the key is there
        fc.record({ t: fc.constant('known' as const), k: fc.integer({ min: 0, max: 12 }), v: fc.option(fc.string({ maxLength: 6 })) }),
      );
      const batch = fc.record({
        ops: fc.array(op, { maxLength: 12 }),
        // commit, abort, or commit and then crash before the batch is recorded (its re-run loads the version again)
        end: fc.constantFrom('commit' as const, 'commit' as const, 'abort' as const, 'lost-commit' as const),
        // close: a clean stop; crash: the process dies (nothing closed); new-worker: the run moves to another machine
        restartBefore: fc.constantFrom('none' as const, 'none' as const, 'close' as const, 'crash' as const, 'new-worker' as const),
        maintenance: fc.boolean(),
        // read the whole store before the batch ends (else a commit or abort meets unread writes)
        readAtEnd: fc.boolean(),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(batch, { minLength: 1, maxLength: 25 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 2, max: 6 }), async (batches, k, retain) =>
          withCheckpoint(h, async (cp) => {
            const conf = { minDeltasForSnapshot: k, minVersionsToRetain: retain };
            const onNewWorker = (c: StateStoreConf) => (cp.providerOnNewWorker ?? cp.provider)(ID, c);
            const history: Map<string, string>[] = [new Map()];
            let p = cp.provider(ID, conf);
            let lost = false;
            for (const b of batches) {
              // A batch whose commit was lost runs again after a restart, here or on another worker.
              const restart = lost && b.restartBefore !== 'new-worker' ? 'crash' : b.restartBefore;
              if (restart === 'close') await p.close();
              if (restart !== 'none') p = restart === 'new-worker' ? onNewWorker(conf) : cp.provider(ID, conf);
              lost = false;
              const version = history.length - 1;
              const s = await p.getStore(version);
              expect(contents(s)).toEqual(history[version]);
              const model = new Map(history[version]);
              const known = new Set<string>();
              for (const o of b.ops) {
                const key = `key-${o.k}`;
                if (o.t === 'known') {
                  // writeKnown writes a key once per version
                  if (known.has(key)) continue;
                  known.add(key);
                  s.writeKnown(key, o.v === null ? undefined : Buffer.from(enc(o.v)).toString('latin1'), model.has(key));
                  if (o.v === null) model.delete(key);
                  else model.set(key, o.v);
                } else if (o.t === 'put') {
                  s.put(key, enc(o.v));
                  model.set(key, o.v);
                } else {
                  s.remove(key, o.t === 'evict' ? 'watermark' : 'explicit');
                  model.delete(key);
                }
                expect(s.size).toBe(model.size);
              }
              if (b.readAtEnd) expect(contents(s)).toEqual(model);
              if (b.end === 'abort') {
                s.abort();
              } else {
                expect(await s.commit()).toBe(version + 1);
                expect(s.metrics().numRowsTotal).toBe(model.size);
                if (b.end === 'commit') history.push(model);
                else lost = true;
              }
              if (b.maintenance) await p.maintenance();
            }
            const latest = history.length - 1;
            const loadable = await cp.provider(ID, conf).listVersions();
            for (let v = Math.max(0, latest - retain + 1); v <= latest; v++) {
              expect(loadable).toContain(v);
              expect(contents(await cp.provider(ID, conf).getStore(v))).toEqual(history[v]);
              expect(contents(await onNewWorker(conf).getStore(v))).toEqual(history[v]);
            }
          }),
        ),
        { numRuns: propertyRuns(15, 60), seed: 4242 },
      );
    });
  });
}
