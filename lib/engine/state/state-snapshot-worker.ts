/**
 * The worker thread that builds state snapshots (see state-snapshot-builder.ts): decoding and
 * encoding a million keys here costs the batches on the main thread neither CPU time slices nor
 * garbage collection (this thread has a heap of its own).
 */
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { CorruptCheckpointError } from '../errors';
import { mergeToSnapshot, type StateFileBytes } from './state-file-format';
import type { LmdbSnapshotRequest, SnapshotReply, SnapshotRequest, SnapshotSource } from './state-snapshot-builder';

const bytesOf = (f: SnapshotSource): StateFileBytes => ({
  path: f.path,
  version: f.version,
  data: f.localFile !== undefined ? readFileSync(f.localFile) : Buffer.from(f.data!.buffer, f.data!.byteOffset, f.data!.byteLength),
});

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
    let version: number | undefined;
    let data: Uint8Array;
    if ('lmdbPath' in req) {
      const snap = await lmdbSnapshotOf(req.lmdbPath);
      if (!snap) {
        port!.postMessage({ id: req.id, data: null } satisfies SnapshotReply);
        return;
      }
      ({ version, data } = snap);
    } else {
      data = mergeToSnapshot(req.version, req.base ? bytesOf(req.base) : null, req.deltas.map(bytesOf));
    }
    // A fresh, exactly sized buffer can be handed over without a copy.
    const out = new Uint8Array(data.byteLength);
    out.set(data);
    reply = { id: req.id, data: out, version };
    transfer = [out.buffer];
  } catch (e) {
    const corrupt = e instanceof CorruptCheckpointError ? (e.details as { path: string; reason: string }) : undefined;
    reply = { id: req.id, error: corrupt ? { ...corrupt, corrupt: true } : { reason: e instanceof Error ? e.message : String(e), path: '' } };
  }
  port!.postMessage(reply, transfer);
}

port?.on('message', (req: SnapshotRequest | LmdbSnapshotRequest) => void answer(req));
