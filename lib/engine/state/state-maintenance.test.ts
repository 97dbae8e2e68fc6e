// The file-backed state store's maintenance off the batch path, its crash safety, and its memory:
// - a snapshot built in the worker thread while later batches put, remove, abort and commit holds
//   exactly the version it was started for (seeded random batches, checked against a plain Map model);
// - a damaged snapshot is never loaded: the older snapshot or the deltas are, and with neither
//   the load fails with CORRUPT_CHECKPOINT; a process killed (SIGKILL) half-way through writing
//   a snapshot on local disk leaves a temp file that no load ever reads;
// - memoryUsedBytes is within 25% of the heap growth measured with gc(), and the store's heap is
//   at most 2x a plain Map holding the same keys and the decoded values.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { getPriority, tmpdir } from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { LocalCheckpointFileManager } from '../checkpoint/local-checkpoint-file-manager';
import { CorruptCheckpointError } from '../errors';
import { FileBackedStateStoreProvider } from './file-backed-state-store-provider';
import { readStateFile } from './state-file-format';
import { decodeValue, encodeKey, encodeValue } from './state-value-codec';
import { mulberry32 } from '../../testing/mulberry32';

const ID = { operatorId: 0, partitionId: 0 };
const DIR = 'state/0/0';

const tick = () => new Promise((r) => setImmediate(r));

function snapshotContents(fm: InMemoryCheckpointFileManager, version: number): Map<string, string> {
  const data = fm.store.get(`${DIR}/${version}.snapshot`);
  if (!data) throw new Error(`no ${version}.snapshot`);
  const m = new Map<string, string>();
  readStateFile(`${version}.snapshot`, Buffer.from(data), { version, kind: 'snapshot' }, (k, v) => void m.set(k, v), () => {});
  return m;
}

const asBytes = (m: Map<string, string>) => new Map([...m].map(([k, v]) => [k, Buffer.from(v, 'latin1').toString('hex')]));

async function contentsAt(fm: CheckpointFileManager, version: number): Promise<Map<string, string>> {
  const s = await new FileBackedStateStoreProvider(fm, ID).getStore(version);
  return new Map([...s.entries()].map(([k, v]) => [k, Buffer.from(v).toString('hex')]));
}

describe('maintenance in the background', () => {
  it.each([1, 2, 3, 4, 5])('a snapshot taken while later batches change the map holds its own version (seed %i)', async (seed) => {
    const rand = mulberry32(seed);
    // The snapshot's input files are held back until three batches have run beside it, so the
    // overlap does not depend on how fast the worker is. (The batches themselves read no files.)
    let openGate = () => {};
    const gate = new Promise<void>((r) => (openGate = r));
    let gated = false;
    const fm = new (class extends InMemoryCheckpointFileManager {
      override async read(path: string): Promise<Buffer> {
        if (gated) await gate;
        return super.read(path);
      }
    })();
    const p = new FileBackedStateStoreProvider(fm, ID, { minDeltasForSnapshot: 1 });
    const model = new Map<string, string>();
    const keyOf = (i: number) => encodeKey([`k${i}`]);
    const s0 = await p.getStore(0);
    for (let i = 0; i < 20_000; i++) {
      const v = encodeValue({ i, v: 0 });
      s0.put(keyOf(i), v);
      model.set(keyOf(i), Buffer.from(v).toString('hex'));
    }
    await s0.commit();
    const expectedAt1 = new Map(model);
    // A batch already open when maintenance starts (its changes are read through its undo log).
    let store = await p.getStore(1);
    store.put(keyOf(0), encodeValue('changed before the snapshot began'));
    model.set(keyOf(0), Buffer.from(encodeValue('changed before the snapshot began')).toString('hex'));
    let done = false;
    gated = true;
    const m = p.maintenance().then(() => (done = true));
    gated = false;
    let version = 1;
    let batches = 0;
    let duringSnapshot = 0;
    while (!done || batches < 3) {
      if (!done) duringSnapshot++;
      for (let u = 0; u < 50; u++) {
        const k = keyOf(Math.floor(rand() * 21_000));
        if (rand() < 0.3) {
          store.remove(k);
          model.delete(k);
        } else {
          const v = encodeValue({ b: version, u });
          store.put(k, v);
          model.set(k, Buffer.from(v).toString('hex'));
        }
      }
      await tick();
      if (rand() < 0.2) {
        // An aborted attempt: its changes go, the model goes back to the version's contents.
        store.abort();
        for (const [k, v] of await contentsAt(fm, version)) model.set(k, v);
        for (const k of [...model.keys()]) if (!(await p.getStore(version)).has(k)) model.delete(k);
      } else {
        version = await store.commit();
      }
      store = await p.getStore(version);
      if (++batches === 3) openGate();
      await tick();
    }
    await m;
    store.abort();
    expect(duringSnapshot).toBeGreaterThanOrEqual(3); // batches ran while the snapshot was being encoded
    expect(asBytes(snapshotContents(fm, 1))).toEqual(expectedAt1);
    // A restart loads the last version from that snapshot plus the deltas after it.
    expect(await contentsAt(fm, version)).toEqual(model);
  });

  it('one round at a time: a second call waits for the running one', async () => {
    const fm = new InMemoryCheckpointFileManager();
    const p = new FileBackedStateStoreProvider(fm, ID, { minDeltasForSnapshot: 1 });
    const s = await p.getStore(0);
    for (let i = 0; i < 3000; i++) s.put(`k${i}`, encodeValue(i));
    await s.commit();
    const a = p.maintenance();
    expect(p.maintenance()).toBe(a);
    await a;
    expect(fm.store.has(`${DIR}/1.snapshot`)).toBe(true);
  });

  it.runIf(process.platform === 'linux')('the snapshot worker thread runs at nice +10 against the batches', async () => {
    const fm = new InMemoryCheckpointFileManager();
    const p = new FileBackedStateStoreProvider(fm, ID, { minDeltasForSnapshot: 1 });
    const s = await p.getStore(0);
    s.put('k', encodeValue(1));
    await s.commit();
    await p.maintenance(); // the snapshot is built in the worker, which starts for it
    expect(fm.store.has(`${DIR}/1.snapshot`)).toBe(true);
    // A thread's nice value is field 19 of /proc/self/task/<tid>/stat (the 17th after the name).
    const niceOf = async (tid: string) => Number((await readFile(`/proc/self/task/${tid}/stat`, 'utf8')).split(') ')[1].split(' ')[16]);
    const nices = await Promise.all((await readdir('/proc/self/task')).map(niceOf));
    expect(nices).toContain(Math.min(19, getPriority() + 10));
  });
});

describe('a damaged snapshot is never loaded', () => {
  async function threeVersions() {
    const fm = new InMemoryCheckpointFileManager();
    const p = new FileBackedStateStoreProvider(fm, ID, { minDeltasForSnapshot: 3 });
    for (let v = 0; v < 3; v++) {
      const s = await p.getStore(v);
      s.put(`k${v}`, encodeValue(v));
      if (v === 2) s.remove('k0');
      await s.commit();
    }
    await p.maintenance();
    expect(fm.store.has(`${DIR}/3.snapshot`)).toBe(true);
    return fm;
  }

  it('a torn snapshot (cut short) falls back to the deltas, with the same contents', async () => {
    const fm = await threeVersions();
    const expected = await contentsAt(fm, 3);
    const snap = fm.store.get(`${DIR}/3.snapshot`)!;
    fm.store.set(`${DIR}/3.snapshot`, snap.subarray(0, snap.length - 7));
    expect(await contentsAt(fm, 3)).toEqual(expected);
    expect([...expected.keys()].sort()).toEqual(['k1', 'k2']);
  });

  it('with the deltas gone too, the load is CORRUPT_CHECKPOINT naming the damaged snapshot', async () => {
    const fm = await threeVersions();
    const snap = Buffer.from(fm.store.get(`${DIR}/3.snapshot`)!);
    snap[snap.length - 10] ^= 0xff;
    fm.store.set(`${DIR}/3.snapshot`, snap);
    fm.store.delete(`${DIR}/1.delta`);
    const err = await new FileBackedStateStoreProvider(fm, ID).getStore(3).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CorruptCheckpointError);
    expect((err as Error).message).toMatch(/3\.snapshot.*checksum/);
  });
});

/**
 * A child process that snapshots version `version` of the store under `root` and stops dead
 * half-way through writing the snapshot's temp file: it writes the first half, says `half` on
 * stdout and waits there to be killed.
 */
const HALF_WRITE_CHILD = `
import { promises as fs } from 'node:fs';
import { LocalCheckpointFileManager } from ${JSON.stringify(path.resolve(import.meta.dirname, '../checkpoint/local-checkpoint-file-manager.ts'))};
import { FileBackedStateStoreProvider } from ${JSON.stringify(path.resolve(import.meta.dirname, 'file-backed-state-store-provider.ts'))};
const [root, version] = [process.argv[1], Number(process.argv[2])];
const open = async (p, flags) => {
  const fh = await fs.open(p, flags);
  if (!/\\.snapshot\\..*\\.tmp$/.test(p)) return fh;
  return new Proxy(fh, { get: (t, k) => k !== 'writeFile' ? (typeof t[k] === 'function' ? t[k].bind(t) : t[k]) : async (data) => {
    await t.write(data.subarray(0, data.length >> 1));
    await t.sync();
    process.stdout.write('half\\n');
    // A timer keeps the process waiting: an empty event loop would end it (code 13) before the kill.
    await new Promise(() => setInterval(() => {}, 60_000));
  } });
};
const fm = new LocalCheckpointFileManager(root, { fs: { ...fs, open } });
const p = new FileBackedStateStoreProvider(fm, { operatorId: 0, partitionId: 0 }, { minDeltasForSnapshot: 1 });
await p.getStore(version);
await p.maintenance();
process.stdout.write('finished\\n');
`;

describe('a process killed while writing a snapshot', () => {
  it('leaves a half-written temp file that is never loaded; the next round writes a whole snapshot', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'weir-snapshot-kill-'));
    try {
      const fm = new LocalCheckpointFileManager(root, { fsync: false });
      const p = new FileBackedStateStoreProvider(fm, ID, { minDeltasForSnapshot: 1000 });
      const rand = mulberry32(7);
      for (let v = 0; v < 4; v++) {
        const s = await p.getStore(v);
        for (let i = 0; i < (v === 0 ? 50_000 : 500); i++) {
          const k = `k${Math.floor(rand() * 60_000)}`;
          if (v > 0 && rand() < 0.2) s.remove(k);
          else s.put(k, encodeValue({ v, i }));
        }
        await s.commit();
      }
      await p.close();
      const expected = await contentsAt(fm, 4);

      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', HALF_WRITE_CHILD, root, '4'], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('half')) resolve();
          if (out.includes('finished')) reject(new Error('the child finished its snapshot: the kill point was never reached'));
        });
        child.on('exit', () => reject(new Error(`the child exited before writing half a snapshot: ${out}`)));
      });
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');

      const names = await readdir(path.join(root, DIR));
      const temps = names.filter((n) => /^\.4\.snapshot\..*\.tmp$/.test(n));
      expect(temps).toHaveLength(1); // the kill really came mid-write
      const half = await readFile(path.join(root, DIR, temps[0]));
      expect(() => readStateFile(temps[0], half, { version: 4, kind: 'snapshot' }, () => {}, () => {})).toThrow(CorruptCheckpointError);
      expect(names).not.toContain('4.snapshot');
      expect(await fm.list(DIR)).toEqual(['1.delta', '2.delta', '3.delta', '4.delta']);
      expect(await contentsAt(fm, 4)).toEqual(expected);

      // The next maintenance round writes the snapshot whole, and it is what loads.
      const again = new FileBackedStateStoreProvider(fm, ID, { minDeltasForSnapshot: 1 });
      (await again.getStore(4)).abort();
      await again.maintenance();
      await again.close();
      expect(await fm.list(DIR)).toContain('4.snapshot');
      for (const v of [1, 2, 3, 4]) await fm.delete(`${DIR}/${v}.delta`);
      expect(await contentsAt(fm, 4)).toEqual(expected);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 120_000);
});

/** gc() where this process may have it: vitest workers do not get --expose-gc, so turn it on here. */
function gcFunction(): () => void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) return g;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

function heapUsed(gc: () => void): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

const KEYS = 200_000;
const keyOf = (i: number) => encodeKey([`user-${i}`]);
const valueOf = (i: number) => ({ count: i % 100, sum: i * 1.5 });

async function writeVersion1(fm: InMemoryCheckpointFileManager): Promise<void> {
  const p = new FileBackedStateStoreProvider(fm, ID);
  const s = await p.getStore(0);
  for (let i = 0; i < KEYS; i++) s.put(keyOf(i), encodeValue(valueOf(i)));
  await s.commit();
  await p.close();
}

describe('state memory', () => {
  it('memoryUsedBytes is within 25% of the measured heap growth; the heap is at most 2x a plain Map', async () => {
    const gc = gcFunction();
    const fm = new InMemoryCheckpointFileManager();
    // Built and committed in a function of its own (so that nothing of it stays reachable), then
    // loaded by a fresh provider: the heap a restarted query holds.
    await writeVersion1(fm);
    const file = fm.store.get(`${DIR}/1.delta`)!.length;

    const base = heapUsed(gc);
    const p = new FileBackedStateStoreProvider(fm, ID);
    const store = await p.getStore(1);
    // The file's bytes are read into a Buffer outside the JS heap and are not kept.
    const storeHeap = heapUsed(gc) - base;
    const reported = store.metrics().memoryUsedBytes;

    const base2 = heapUsed(gc);
    const plain = new Map<string, unknown>();
    for (let i = 0; i < KEYS; i++) plain.set(keyOf(i), decodeValue(encodeValue(valueOf(i))));
    const plainHeap = heapUsed(gc) - base2;

    const perKey = (n: number) => (n / KEYS).toFixed(0);
    console.log(`state memory, ${KEYS} keys: store heap ${perKey(storeHeap)} B/key, memoryUsedBytes ${perKey(reported)} B/key, plain Map ${perKey(plainHeap)} B/key, file ${perKey(file)} B/key`);
    expect(store.size).toBe(KEYS);
    expect(plain.size).toBe(KEYS);
    expect(Math.abs(reported - storeHeap) / storeHeap).toBeLessThanOrEqual(0.25);
    expect(storeHeap / plainHeap).toBeLessThanOrEqual(2);
  }, 120_000);
});
