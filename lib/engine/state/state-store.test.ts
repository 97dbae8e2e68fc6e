import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { LocalCheckpointFileManager } from '../checkpoint/local-checkpoint-file-manager';
import { FileBackedStateStoreProvider } from './file-backed-state-store-provider';
import { LmdbStateStoreProvider } from './lmdb-state-store-provider';
import { readStateFile, StateFileWriter } from './state-file-format';
import type { StateStore, StateStoreConf, StateStoreId } from './state-store';
import { describeStateStoreContract } from './testing/state-store.contract';

/** A checkpoint on local disk (fsync off: the contract is about content and atomic rename, and the property test writes thousands of small files) or in memory. */
async function checkpointOn(where: 'local' | 'memory'): Promise<{ fm: CheckpointFileManager; cleanup: () => Promise<void> }> {
  if (where === 'memory') return { fm: new InMemoryCheckpointFileManager(), cleanup: async () => {} };
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-state-'));
  return { fm: new LocalCheckpointFileManager(dir, { fsync: false }), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

for (const where of ['local', 'memory'] as const) {
  describeStateStoreContract(`file-backed provider, checkpoint ${where === 'local' ? 'on the local filesystem' : 'in memory'}`, {
    changeFile: 'delta',
    rowsInHeap: true,
    async newCheckpoint() {
      const { fm, cleanup } = await checkpointOn(where);
      return { fm, provider: (id, conf) => new FileBackedStateStoreProvider(fm, id, conf), cleanup };
    },
  });

  describeStateStoreContract(`LMDB provider, checkpoint ${where === 'local' ? 'on the local filesystem' : 'in memory'}`, {
    changeFile: 'changelog',
    rowsInHeap: false,
    async newCheckpoint() {
      const { fm, cleanup } = await checkpointOn(where);
      // The worker's local directory (its LMDB environments), and the other workers' ones.
      const locals = [await mkdtemp(path.join(tmpdir(), 'weir-lmdb-'))];
      const providers: LmdbStateStoreProvider[] = [];
      const make = (localDir: string) => (id: StateStoreId, conf: StateStoreConf = {}) => {
        const p = new LmdbStateStoreProvider(fm, id, conf, { localDir });
        providers.push(p);
        return p;
      };
      return {
        fm,
        provider: make(locals[0]),
        providerOnNewWorker: (id, conf) => {
          const dir = path.join(locals[0], `..`, `${path.basename(locals[0])}-w${locals.length}`);
          locals.push(dir);
          return make(dir)(id, conf);
        },
        cleanup: async () => {
          for (const p of providers) await p.close();
          for (const d of locals) await rm(d, { recursive: true, force: true });
          await cleanup();
        },
      };
    },
  });
}

describe('state files', () => {
  it('read back every key and value as written, short or long, ASCII or not (short ones take a loop in JS)', () => {
    // Chars below 0x80 (one UTF-8 byte, the loop's), Latin-1's upper half and up to 0x7ff (two),
    // and lone surrogates (kept as UTF-16).
    const range = (min: number, max: number) => fc.integer({ min, max }).map((c) => String.fromCharCode(c));
    const text = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.string({ unit: fc.oneof(range(0, 0x7f), range(0x80, 0xff)), maxLength: 80 }),
      fc.string({ unit: fc.oneof(range(0, 0x7f), range(0x100, 0x7ff), range(0xd800, 0xdfff)), maxLength: 80 }),
      fc.string({ minLength: 60, maxLength: 70 }),
    );
    const bytes = fc.uint8Array({ maxLength: 90 }).map((b) => Buffer.from(b).toString('latin1'));
    fc.assert(
      fc.property(fc.array(fc.tuple(text, fc.option(bytes)), { maxLength: 20 }), (records) => {
        const w = new StateFileWriter(7, 'delta');
        for (const [k, v] of records) {
          if (v === null) w.remove(k);
          else w.put(k, v);
        }
        const back: [string, string | null][] = [];
        readStateFile('7.delta', Buffer.from(w.finish()), { version: 7, kind: 'delta' }, (k, v) => void back.push([k, v]), (k) => void back.push([k, null]));
        expect(back).toEqual(records);
      }),
      { numRuns: 300, seed: 21 },
    );
  });
});

describe('LMDB provider: rebuild', () => {
  it('loads a snapshot whose keys come in any order (one converted from the heap store), and one in its own order', async () => {
    const fm = new InMemoryCheckpointFileManager();
    const keys = ['m', 'b', 'zz', 'a', 'é', '\ud800', 'k'.repeat(3000), 'c'];
    const w = new StateFileWriter(2, 'snapshot');
    keys.forEach((k, i) => w.putBytes(k, Buffer.from([i])));
    await fm.createAtomic('state/0/0/2.snapshot', w.finish());
    const c = new StateFileWriter(3, 'changelog');
    c.remove('zz');
    c.putBytes('aa', Buffer.from([42]));
    await fm.createAtomic('state/0/0/3.changelog', c.finish());
    const expected = new Map<string, number>([...keys.map((k, i) => [k, i] as [string, number]), ['aa', 42]]);
    expected.delete('zz');
    const local = await mkdtemp(path.join(tmpdir(), 'weir-lmdb-'));
    try {
      const p = new LmdbStateStoreProvider(fm, { operatorId: 0, partitionId: 0 }, { minDeltasForSnapshot: 1 }, { localDir: path.join(local, 'a') });
      const s = await p.getStore(3);
      expect(new Map([...s.entries()].map(([k, v]) => [k, v[0]]))).toEqual(expected);
      expect(s.size).toBe(expected.size);
      // keys() reads no values but a hashed key's (which holds the key): the same keys.
      expect(new Set(s.keys())).toEqual(new Set(expected.keys()));
      s.remove('k'.repeat(3000));
      s.put('j'.repeat(3000), Buffer.from([7]));
      expect(new Set(s.keys())).toEqual(new Set([...expected.keys()].filter((k) => k !== 'k'.repeat(3000)).concat('j'.repeat(3000))));
      s.abort();
      // Its own snapshot of version 3 (in LMDB's order) rebuilds the same rows on another worker.
      await p.maintenance();
      expect(await fm.list('state/0/0')).toContain('3.snapshot');
      await fm.delete('state/0/0/3.changelog');
      await p.close();
      const again = await new LmdbStateStoreProvider(fm, { operatorId: 0, partitionId: 0 }, {}, { localDir: path.join(local, 'b') }).getStore(3);
      expect(new Map([...again.entries()].map(([k, v]) => [k, v[0]]))).toEqual(expected);
      expect(again.get('k'.repeat(3000))).toEqual(Buffer.from([6]));
    } finally {
      await rm(local, { recursive: true, force: true });
    }
  });
});

describe('file-backed provider: the journal of a version', () => {
  const ID = { operatorId: 0, partitionId: 0 };
  type Op = { t: 'put'; k: number; v: string } | { t: 'remove' | 'evict'; k: number };
  const ops = fc.array(
    fc.oneof(
      fc.record({ t: fc.constant('put' as const), k: fc.integer({ min: 0, max: 5 }), v: fc.string({ maxLength: 4 }) }),
      fc.record({ t: fc.constantFrom('remove' as const, 'evict' as const), k: fc.integer({ min: 0, max: 5 }) }),
    ),
    { maxLength: 30 },
  );
  const apply = (s: StateStore, model: Map<string, string>, o: Op) => {
    const key = `k${o.k}`;
    if (o.t === 'put') {
      s.putByteString(key, o.v);
      model.set(key, o.v);
    } else {
      s.remove(key, o.t === 'evict' ? 'watermark' : 'explicit');
      model.delete(key);
    }
  };
  const view = (s: StateStore) => ({
    entries: new Map([...s.entries()].map(([k, v]) => [k, Buffer.from(v).toString('latin1')])),
    keys: [...s.keys()].sort(),
    size: s.size,
    memory: s.metrics().memoryUsedBytes,
  });

  it('an abort after several writes to the same keys restores the version exactly; a commit writes each changed key once', async () => {
    await fc.assert(
      fc.asyncProperty(ops, ops, fc.boolean(), async (first, second, abortFirst) => {
        const fm = new InMemoryCheckpointFileManager();
        const p = new FileBackedStateStoreProvider(fm, ID);
        const s0 = await p.getStore(0);
        const model = new Map<string, string>();
        for (const o of first) apply(s0, model, o);
        await s0.commit();
        const s1 = await p.getStore(1);
        const before = view(s1);
        expect(before.entries).toEqual(model);
        const next = new Map(model);
        // Keys in the order of their first change (a put, or a removal of a row that is there).
        const changed = new Set<string>();
        for (const o of second) {
          if (o.t === 'put' || next.has(`k${o.k}`)) changed.add(`k${o.k}`);
          apply(s1, next, o);
          // Reads in the middle of the version see its own writes, and only the rows that are there.
          expect(s1.size).toBe(next.size);
          expect([...s1.keys()].sort()).toEqual([...next.keys()].sort());
        }
        if (abortFirst) {
          s1.abort();
          const again = await p.getStore(1);
          expect(view(again)).toEqual(before);
          // The aborted writes leave nothing behind for the next version's journal either.
          for (const o of second) apply(again, new Map(model), o);
          again.abort();
          expect(view(await p.getStore(1))).toEqual(before);
          return;
        }
        await s1.commit();
        // The delta holds each written key once, in the order of its first change (a put of the
        // row it has now, or the removal of one version 1 had), and nothing else.
        const records: [string, string | null][] = [];
        readStateFile('2.delta', await fm.read('state/0/0/2.delta'), { version: 2, kind: 'delta' }, (k, v) => void records.push([k, v]), (k) => void records.push([k, null]));
        const written = [...changed].filter((k) => next.has(k) || model.has(k));
        expect(records).toEqual(written.map((k) => [k, next.get(k) ?? null]));
        expect(view(await p.getStore(2)).entries).toEqual(next);
        expect(view(await new FileBackedStateStoreProvider(fm, ID).getStore(2))).toEqual(view(await p.getStore(2)));
      }),
      { numRuns: 300, seed: 5 },
    );
  });
});

describe('file-backed provider: versions of writeKnown writes only', () => {
  const ID = { operatorId: 0, partitionId: 0 };
  const memoryOf = async (p: FileBackedStateStoreProvider, v: number) => {
    const s = await p.getStore(v);
    s.has('any'); // a read: the map is brought up to date
    return s.metrics().memoryUsedBytes;
  };

  it('are applied to the map when it is read, alike a load of the files', async () => {
    const fm = new InMemoryCheckpointFileManager();
    const p = new FileBackedStateStoreProvider(fm, ID);
    const s0 = await p.getStore(0);
    s0.put('a', Buffer.from('1'));
    s0.put('b', Buffer.from('2'));
    await s0.commit();
    const s1 = await p.getStore(1);
    s1.writeKnown('a', 'a longer value', true);
    s1.writeKnown('b', undefined, true);
    s1.writeKnown('c', 'C', false);
    await s1.commit();
    const s2 = await p.getStore(2);
    s2.writeKnown('c', undefined, true);
    s2.writeKnown('d', 'D', false);
    expect(s2.size).toBe(2);
    await s2.commit();
    expect(s2.metrics().numRowsTotal).toBe(2);
    const fresh = new FileBackedStateStoreProvider(fm, ID);
    expect(await memoryOf(p, 3)).toBe(await memoryOf(fresh, 3));
    expect([...(await p.getStore(3)).entries()].map(([k, v]) => [k, Buffer.from(v).toString('latin1')])).toEqual([['a', 'a longer value'], ['d', 'D']]);
  });

  it('a commit folds them into bytes once they pass a few times the rows they hold, so what is held stays bounded', async () => {
    const p = new FileBackedStateStoreProvider(new InMemoryCheckpointFileManager(), ID);
    const row = 'x'.repeat(1024 * 1024);
    for (let v = 0; v < 8; v++) {
      const s = await p.getStore(v);
      s.writeKnown('k', `${row}${v}`, v > 0);
      await s.commit();
      // Versions of the one row are held until they pass four times its bytes (the fifth).
      expect(p['deferred']).toHaveLength([1, 2, 3, 4, 0, 1, 2, 3][v]);
      // Folded into one row's bytes, not applied to the map: nobody has read it.
      expect(p.map.size).toBe(0);
    }
    expect(p['base']!.data.length).toBeLessThan(1.1 * row.length);
    expect(p.rows).toBe(1);
    expect(Buffer.from((await p.getStore(8)).get('k')!).toString('latin1')).toBe(`${row}7`);
  });

  it('folded with a map a load built, they give the rows, their order and figures of a load of the files', async () => {
    const fm = new InMemoryCheckpointFileManager();
    const first = new FileBackedStateStoreProvider(fm, ID);
    const s0 = await first.getStore(0);
    for (let k = 0; k < 50; k++) s0.put(`k${k}`, Buffer.from(`loaded ${k}`));
    await s0.commit();
    const p = new FileBackedStateStoreProvider(fm, ID);
    (await p.getStore(1)).abort();
    expect(p.map.size).toBe(50);
    const big = 'y'.repeat(4096);
    const present = new Set(Array.from({ length: 50 }, (_, k) => `k${k}`));
    const write = (s: StateStore, key: string, value: string | undefined) => {
      s.writeKnown(key, value, present.has(key));
      if (value === undefined) present.delete(key);
      else present.add(key);
    };
    for (let v = 1; v < 12; v++) {
      const s = await p.getStore(v);
      // Each version replaces some rows, removes one, adds a new key and puts back a key removed before.
      for (let k = v; k < 50; k += 7) write(s, `k${k}`, `${big}${v}`);
      write(s, `k${v + 20}`, undefined);
      write(s, `new${v}`, `n${v}`);
      if (v > 2) write(s, `k${v + 18}`, `back ${v}`);
      await s.commit();
    }
    // The bound was passed: the map went with the deltas it had waited for.
    expect(p.map.size).toBe(0);
    const fresh = new FileBackedStateStoreProvider(fm, ID);
    const loaded = await fresh.getStore(12);
    const folded = await p.getStore(12);
    expect(folded.size).toBe(loaded.size);
    expect(folded.metrics().memoryUsedBytes).toBe(loaded.metrics().memoryUsedBytes);
    const entries = (s: StateStore) => [...s.entries()].map(([k, b]) => [k, Buffer.from(b).toString('latin1')]);
    expect(entries(folded)).toEqual(entries(loaded));
  });

  it('a snapshot maintenance writes takes the place of the map and the deltas it covers; a read rebuilds the map from it', async () => {
    const fm = new InMemoryCheckpointFileManager();
    const p = new FileBackedStateStoreProvider(fm, ID, { minDeltasForSnapshot: 2 });
    const rowsOf = async (q: FileBackedStateStoreProvider, v: number) =>
      [...(await q.getStore(v)).entries()].map(([k, b]) => [k, Buffer.from(b).toString('latin1')]).sort();
    for (let v = 0; v < 3; v++) {
      const s = await p.getStore(v);
      s.writeKnown(`k${v}`, `value ${v}`, false);
      if (v > 0) s.writeKnown(`k${v - 1}`, undefined, true);
      s.writeKnown('same', `v${v}`.repeat(v + 1), v > 0);
      await s.commit();
    }
    await p.maintenance();
    expect(await fm.exists('state/0/0/3.snapshot')).toBe(true);
    // Nothing was applied: the snapshot of version 3 stands for the map and its three deltas.
    expect(p['deferred']).toHaveLength(0);
    expect(p.map.size).toBe(0);
    const s3 = await p.getStore(3);
    s3.writeKnown('k3', 'value 3', false);
    expect(s3.size).toBe(3);
    s3.abort();
    const again = await p.getStore(3);
    again.writeKnown('k3', 'value 3', false);
    await again.commit();
    expect(p['deferred']).toHaveLength(1);
    // Size and memory as a load of the files says, before anything is read.
    const fresh = new FileBackedStateStoreProvider(fm, ID);
    const loaded = await fresh.getStore(4);
    loaded.has('any');
    expect(again.metrics().numRowsTotal).toBe(loaded.size);
    expect(again.metrics().memoryUsedBytes).toBe(loaded.metrics().memoryUsedBytes);
    // A read builds the map from the snapshot and the deltas after it; a reload of an older version drops the snapshot.
    expect(await rowsOf(p, 4)).toEqual([['k2', 'value 2'], ['k3', 'value 3'], ['same', 'v2v2v2']]);
    expect(await rowsOf(p, 4)).toEqual(await rowsOf(fresh, 4));
    expect(await rowsOf(p, 2)).toEqual(await rowsOf(fresh, 2));
  });

  it('a map that was read since is kept: a snapshot does not replace it', async () => {
    const fm = new InMemoryCheckpointFileManager();
    const p = new FileBackedStateStoreProvider(fm, ID, { minDeltasForSnapshot: 2 });
    for (let v = 0; v < 2; v++) {
      const s = await p.getStore(v);
      s.writeKnown(`k${v}`, `value ${v}`, false);
      await s.commit();
    }
    const open = await p.getStore(2);
    open.put('read', Buffer.from('r'));
    await p.maintenance();
    expect(p.map.size).toBe(3);
    await open.commit();
    expect([...(await p.getStore(3)).keys()].sort()).toEqual(['k0', 'k1', 'read']);
  });
});
