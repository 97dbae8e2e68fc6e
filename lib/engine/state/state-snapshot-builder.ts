/**
 * Builds a state snapshot off the main thread: Spark runs its maintenance task on a thread pool
 * beside the tasks; Weir hands the snapshot's files to one worker thread per process, which
 * merges the last snapshot and the deltas after it into the new snapshot's bytes. The batches'
 * thread does no O(keys) work for a snapshot and allocates nothing for it but the result.
 *
 * Files on local disk are read by the worker itself (`localFile`); other stores' bytes are read
 * here and handed over. The LMDB provider's snapshots are built there too: the worker opens the
 * provider's local environment (lmdb shares it between threads) and reads its committed version
 * in a read transaction while the batches go on committing here. Where no worker thread starts (a bundle without the worker's file), the
 * same merge runs in this thread: slower batches, the same bytes.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CorruptCheckpointError } from '../errors';
import { mergeToSnapshot, type MergedSnapshot } from './state-file-format';

/** One input file of a snapshot: its bytes, or where the worker reads them on local disk. */
export interface SnapshotSource {
  /** The checkpoint path, for errors. */
  path: string;
  version: number;
  localFile?: string;
  data?: Uint8Array;
}

export interface SnapshotRequest {
  id: number;
  version: number;
  base: SnapshotSource | null;
  deltas: SnapshotSource[];
}

/** The snapshot of the LMDB environment at `lmdbPath` (lmdb-environment.ts's lmdbSnapshot). */
export interface LmdbSnapshotRequest {
  id: number;
  lmdbPath: string;
}

/**
 * A snapshot built: its bytes (null: the LMDB environment held no version); for LMDB its
 * version, for a merge its rows and their heap (MergedSnapshot).
 */
interface SnapshotDone {
  id: number;
  data: Uint8Array | null;
  version?: number;
  rows?: number;
  memory?: number;
  error?: undefined;
}

export type SnapshotReply =
  | SnapshotDone
  | { id: number; error: { path: string; reason: string; corrupt?: boolean } };

interface Pending {
  /** The same work in this thread, for a worker that could not start. */
  here: () => Promise<SnapshotDone>;
  resolve: (r: SnapshotDone) => void;
  reject: (e: unknown) => void;
}

const pending = new Map<number, Pending>();
let worker: Worker | null = null;
/** Set when a worker could not start here: snapshots are then built in this thread. */
let workerUnavailable = false;
let nextId = 0;

/** The merge in this thread, for where no worker thread starts. */
async function mergeHere(req: SnapshotRequest): Promise<MergedSnapshot> {
  const bytes = async (s: SnapshotSource) => ({
    path: s.path,
    version: s.version,
    data: s.data ? Buffer.from(s.data.buffer, s.data.byteOffset, s.data.byteLength) : await readFile(s.localFile!),
  });
  return mergeToSnapshot(req.version, req.base && (await bytes(req.base)), await Promise.all(req.deltas.map(bytes)));
}

/**
 * The worker for this checkout: compiled JavaScript runs the worker's file as it is; TypeScript
 * (run through tsx) registers tsx's loader in the worker first, since a worker does not inherit
 * the loader a parent registered through tsx's API or `--import`. Null where none starts.
 *
 * The constructor calls stay inside the try: Next's bundler resolves `new Worker(path)` at build
 * time and fails the build on a path only known at run time, unless the call is in a try (then
 * it warns). Its bundle has no worker file, so there the merge runs in this thread.
 */
function newWorker(): Worker | null {
  try {
    const self = fileURLToPath(import.meta.url);
    const ext = path.extname(self);
    const file = path.join(path.dirname(self), `state-snapshot-worker${ext}`);
    if (ext !== '.ts') return new Worker(file);
    const require = createRequire(import.meta.url);
    const tsx = require('tsx/package.json') as { exports: Record<string, { import: { default: string } }> };
    const api = pathToFileURL(path.join(path.dirname(require.resolve('tsx/package.json')), tsx.exports['./esm/api'].import.default)).href;
    const boot = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(pathToFileURL(file).href)}); })`;
    return new Worker(boot, { eval: true });
  } catch {
    return null;
  }
}

function startWorker(): Worker | null {
  if (worker || workerUnavailable) return worker;
  const w = newWorker();
  if (!w) {
    workerUnavailable = true;
    return null;
  }
  let replied = false;
  w.unref();
  w.on('message', (r: SnapshotReply) => {
    replied = true;
    const p = pending.get(r.id);
    if (!p) return;
    pending.delete(r.id);
    if (r.error === undefined) p.resolve(r);
    else p.reject(r.error.corrupt ? new CorruptCheckpointError(r.error.path, r.error.reason) : new Error(`state snapshot worker: ${r.error.reason}`));
  });
  const gone = (e: unknown) => {
    if (worker !== w) return;
    worker = null;
    const waiting = [...pending.values()];
    pending.clear();
    // A worker that never answered could not start here (its file or loader is missing): build
    // in this thread from now on. One that worked and then failed is replaced at the next round.
    if (!replied) workerUnavailable = true;
    for (const p of waiting) {
      if (!replied) p.here().then(p.resolve, p.reject);
      else p.reject(e);
    }
  };
  w.on('error', gone);
  w.on('exit', (code) => gone(new Error(`state snapshot worker exited (code ${code})`)));
  worker = w;
  return w;
}

async function readSource(s: SnapshotSource, read: (p: string) => Promise<Buffer>): Promise<SnapshotSource> {
  return s.localFile !== undefined || s.data ? s : { ...s, data: await read(s.path) };
}

/**
 * `<version>.snapshot` (its bytes, rows and their heap): `base` plus `deltas` merged in a worker
 * thread. `read` fetches a source that has neither `localFile` nor `data`.
 */
export async function buildSnapshot(
  version: number,
  base: SnapshotSource | null,
  deltas: SnapshotSource[],
  read: (p: string) => Promise<Buffer>,
): Promise<MergedSnapshot> {
  const req: SnapshotRequest = {
    id: ++nextId,
    version,
    base: base && (await readSource(base, read)),
    deltas: await Promise.all(deltas.map((d) => readSource(d, read))),
  };
  const reply = await inWorker(req, async () => ({ id: req.id, ...(await mergeHere(req)) }));
  return { data: reply.data!, rows: reply.rows!, memory: reply.memory! };
}

/**
 * The snapshot of the LMDB environment at `lmdbPath` (its version and bytes), built in the worker
 * thread; `here` builds it in this thread where no worker starts. Null when it holds no version.
 */
export async function buildLmdbSnapshot(
  lmdbPath: string,
  here: () => { version: number; data: Uint8Array } | null,
): Promise<{ version: number; data: Uint8Array } | null> {
  const id = ++nextId;
  const reply = await inWorker({ id, lmdbPath }, async () => {
    const snap = here();
    return snap ? { id, ...snap } : { id, data: null };
  });
  return reply.data === null ? null : { version: reply.version!, data: reply.data };
}

/** Posts `req` to the worker (started if need be), or runs `here` where no worker starts. */
async function inWorker(req: SnapshotRequest | LmdbSnapshotRequest, here: () => Promise<SnapshotDone>): Promise<SnapshotDone> {
  const w = startWorker();
  if (!w) return here();
  return new Promise<SnapshotDone>((resolve, reject) => {
    pending.set(req.id, { here, resolve, reject });
    // Referenced while a snapshot is in flight, so a caller awaiting it is not cut short by exit.
    w.ref();
    w.postMessage(req);
  }).finally(() => {
    if (pending.size === 0) worker?.unref();
  });
}
