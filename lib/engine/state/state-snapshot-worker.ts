/**
 * The worker thread that builds state snapshots (see state-snapshot-builder.ts): decoding and
 * encoding a million keys here costs the batches on the main thread neither CPU time slices nor
 * garbage collection (this thread has a heap of its own).
 *
 * It runs at a lower scheduling priority than the batches (nice +10, `nice`'s default): a
 * snapshot is background work that no batch waits for, and on a machine with few cores the
 * merges otherwise take the batches' thread's core whenever anything else wants the other one
 * (bench/join.bench.ts, operator case at load 5–9 on 2 cores: 18.6 s before, 14.2 s after; see
 * docs/stateful.md). Rounds never queue (a provider runs one at a time), so a worker held back
 * makes fewer snapshots, each covering more deltas; CFS still gives it about a tenth of a core
 * against a busy thread. Only on Linux, where a thread's nice value is its own; elsewhere
 * setpriority would lower the whole process.
 */
import { readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { CorruptCheckpointError } from '../errors';
import { mergeToSnapshot, type StateFileBytes } from './state-file-format';
import type { LmdbSnapshotRequest, SnapshotReply, SnapshotRequest, SnapshotSource } from './state-snapshot-builder';

const bytesOf = (f: SnapshotSource): StateFileBytes => ({
  path: f.path,
  version: f.version,
  data: f.localFile !== undefined ? readFileSync(f.localFile) : Buffer.from(f.data!.buffer, f.data!.byteOffset, f.data!.byteLength),
});

if (process.platform === 'linux') {
  try {
    setPriority(Math.min(19, getPriority() + 10));
  } catch {
    // Not allowed here (a sandbox): the snapshots then compete with the batches as before.
  }
}

const port = parentPort;
/** An LMDB environment's snapshot: lmdb is loaded only by a worker that is asked for one. */
async function lmdbSnapshotOf(path: string): Promise<{ version: number; data: Uint8Array } | null> {
  const { lmdbSnapshot, openLmdbEnvironment } = await import('./lmdb-environment');
  const e = openLmdbEnvironment(path);
  try {
    return lmdbSnapshot(e);
  } finally {
    await e.env.close();
  }
}

async function answer(req: SnapshotRequest | LmdbSnapshotRequest): Promise<void> {
  let reply: SnapshotReply;
  let transfer: ArrayBuffer[] = [];
  try {
    let version: number | undefined, rows: number | undefined, memory: number | undefined;
    let data: Uint8Array;
    if ('lmdbPath' in req) {
      const snap = await lmdbSnapshotOf(req.lmdbPath);
      if (!snap) {
        port!.postMessage({ id: req.id, data: null } satisfies SnapshotReply);
        return;
      }
      ({ version, data } = snap);
    } else {
      ({ data, rows, memory } = mergeToSnapshot(req.version, req.base ? bytesOf(req.base) : null, req.deltas.map(bytesOf)));
    }
    // A fresh, exactly sized buffer can be handed over without a copy.
    const out = new Uint8Array(data.byteLength);
    out.set(data);
    reply = { id: req.id, data: out, version, rows, memory };
    transfer = [out.buffer];
  } catch (e) {
    const corrupt = e instanceof CorruptCheckpointError ? (e.details as { path: string; reason: string }) : undefined;
    reply = { id: req.id, error: corrupt ? { ...corrupt, corrupt: true } : { reason: e instanceof Error ? e.message : String(e), path: '' } };
  }
  port!.postMessage(reply, transfer);
}

port?.on('message', (req: SnapshotRequest | LmdbSnapshotRequest) => void answer(req));
