/**
 * What the checkpoint's state/ holds, read-only, for `weir checkpoint inspect`: per stateful
 * operator, its recorded descriptor and state store provider (from `_metadata/schema`) and per
 * partition (its deltas or changelogs, and snapshots) the loadable
 * versions, the latest snapshot, the number of files and the bytes on disk. A partition of an
 * operator with named stores (a stream-stream join's four) is reported over all of them (the
 * versions every store can load) and store by store. The lesson's triage
 * advice ("check the state directory size") as a command.
 */
import type { CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';
import { parseStateFileName } from './state-file-format';
import { DEFAULT_STATE_STORE_PROVIDER } from '../spec/job-spec';
import { loadableVersions, storeDirs } from './state-checkpoint-files';
import { schemaFilePath, type StatefulOperatorDescriptor } from './state-schema-compatibility-checker';

interface StoreFilesInspection {
  latestVersion: number | null;
  oldestLoadableVersion: number | null;
  latestSnapshot: number | null;
  files: number;
  bytesOnDisk: number | null;
}

export interface StatePartitionInspection extends StoreFilesInspection {
  partitionId: number;
  /** An operator with named stores: each store's own figures (the partition's are over all of them). */
  stores?: (StoreFilesInspection & { storeName: string })[];
}

async function inspectStoreDir(fm: CheckpointFileManager, dir: string): Promise<StoreFilesInspection & { versions: number[] }> {
  const files = (await fm.list(dir)).map((n) => ({ n, p: parseStateFileName(n) })).filter((f) => f.p !== null);
  const versions = loadableVersions(files.map((f) => ({ ...f.p!, name: f.n })));
  const snaps = files.filter((f) => f.p!.kind === 'snapshot').map((f) => f.p!.version);
  let bytes: number | null = null;
  if (fm.size) {
    bytes = 0;
    for (const f of files) bytes += await fm.size(`${dir}/${f.n}`);
  }
  return {
    versions,
    latestVersion: versions.length ? versions[versions.length - 1] : null,
    oldestLoadableVersion: versions.length ? versions[0] : null,
    latestSnapshot: snaps.length ? snaps.reduce((a, b) => Math.max(a, b)) : null,
    files: files.length,
    bytesOnDisk: bytes,
  };
}

export interface StateOperatorInspection {
  operatorId: number;
  operatorName: string | null;
  parts: Record<string, string> | null;
  /** The state store provider that writes this operator's state (`hdfs` for a schema from before it was recorded). */
  stateStoreProvider: string | null;
  partitions: StatePartitionInspection[];
  bytesOnDisk: number | null;
}

export async function inspectState(fm: CheckpointFileManager): Promise<StateOperatorInspection[]> {
  const out: StateOperatorInspection[] = [];
  const ops = (await fm.list('state')).filter((n) => /^\d+$/.test(n)).map(Number).sort((a, b) => a - b);
  for (const operatorId of ops) {
    let descriptor: (StatefulOperatorDescriptor & { stateStoreProvider?: string }) | null = null;
    if (await fm.exists(schemaFilePath(operatorId))) {
      try {
        descriptor = JSON.parse((await fm.read(schemaFilePath(operatorId))).toString('utf8')) as StatefulOperatorDescriptor & { stateStoreProvider?: string };
      } catch {
        descriptor = null; // reported as unknown; the restart check names the corruption
      }
    }
    const partitions: StatePartitionInspection[] = [];
    const parts = (await fm.list(`state/${operatorId}`)).filter((n) => /^\d+$/.test(n)).map(Number).sort((a, b) => a - b);
    for (const partitionId of parts) {
      const partDir = `state/${operatorId}/${partitionId}`;
      const dirs = await storeDirs(fm, partDir);
      const stores = await Promise.all(dirs.map((d) => inspectStoreDir(fm, d)));
      // The versions the partition can load: those every one of its stores can.
      const versions = stores.slice(1).reduce((vs, st) => vs.filter((v) => st.versions.includes(v)), stores[0].versions);
      const snapshots = stores.map((st) => st.latestSnapshot);
      partitions.push({
        partitionId,
        latestVersion: versions.length ? versions[versions.length - 1] : null,
        oldestLoadableVersion: versions.length ? versions[0] : null,
        latestSnapshot: snapshots.includes(null) ? null : Math.min(...(snapshots as number[])),
        files: stores.reduce((n, st) => n + st.files, 0),
        bytesOnDisk: stores.some((st) => st.bytesOnDisk === null) ? null : stores.reduce((n, st) => n + st.bytesOnDisk!, 0),
        ...(dirs[0] !== partDir ? { stores: stores.map(({ versions: _, ...st }, i) => ({ storeName: dirs[i].slice(partDir.length + 1), ...st })) } : {}),
      });
    }
    const known = partitions.every((p) => p.bytesOnDisk !== null);
    out.push({
      operatorId,
      operatorName: descriptor?.operatorName ?? null,
      parts: descriptor?.parts ?? null,
      stateStoreProvider: descriptor ? (descriptor.stateStoreProvider ?? DEFAULT_STATE_STORE_PROVIDER) : null,
      partitions,
      bytesOnDisk: known ? partitions.reduce((n, p) => n + (p.bytesOnDisk ?? 0), 0) : null,
    });
  }
  return out;
}
