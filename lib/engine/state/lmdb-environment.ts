/**
 * The LMDB provider's local environment (lmdb-state-store-provider.ts): how it is opened, how the
 * store's string keys become LMDB keys, and the snapshot of its committed version. Apart from the
 * provider so that the snapshot worker thread (state-snapshot-worker.ts) can open the same
 * environment and read it there, off the batches' thread.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import { StateFileWriter } from './state-file-format';
import { isWellFormed } from './state-value-codec';

export interface LmdbEnvironment {
  env: RootDatabase;
  rows: Database<Buffer, Buffer>;
  meta: Database<LocalVersion, string>;
}

/**
 * Opens the environment at `localPath`, as it is (a snapshot worker, beside the provider). lmdb
 * shares one environment between the threads of a process that open the same path.
 *
 * No commit waits for the disk (noSync): the changelog in the checkpoint is the durable copy
 * (Spark's RocksDB store commits without its WAL for the same reason), and a synced commit cost
 * 4x an unsynced one (45 ms against 13 for 1,000 puts into 1M keys). A process that dies loses
 * nothing (the OS holds the pages); a machine that goes down may leave the environment torn, so
 * it is trusted for one boot only (openLocalCache).
 */
export function openLmdbEnvironment(localPath: string): LmdbEnvironment {
  const env = open({ path: localPath, maxDbs: 4, noSync: true });
  return {
    env,
    rows: env.openDB<Buffer, Buffer>({ name: 'rows', encoding: 'binary', keyEncoding: 'binary' }),
    meta: env.openDB<LocalVersion, string>({ name: 'meta', encoding: 'json' }),
  };
}

/** What the local environment holds (the `meta` database's one record). */
export interface LocalVersion {
  version: number;
  /** The checkpoint's description (an environment left by another query's checkpoint never matches). */
  checkpoint: string;
  /** The checkpoint file the version was last written from, and its checksum; null for version 0. */
  file: string | null;
  crc: number;
}

/**
 * This boot of the machine: Linux's boot id. Where there is none, this process (the cache is then
 * trusted within one process only, and a restart rebuilds).
 */
function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return `process ${process.pid} ${process.hrtime.bigint()}`;
  }
}
const thisBoot = bootId();

/**
 * Opens the provider's local environment, first clearing a directory left by an earlier boot
 * (or by a Weir from before the boot was recorded): after a machine went down its unsynced pages
 * may be torn, and a rebuild from the checkpoint costs less than reading a torn environment.
 */
export function openLocalCache(localPath: string): LmdbEnvironment {
  if (!fromThisBoot(localPath)) {
    rmSync(localPath, { recursive: true, force: true });
    mkdirSync(localPath, { recursive: true });
    writeFileSync(path.join(localPath, BOOT_FILE), thisBoot);
  }
  return openLmdbEnvironment(localPath);
}

const BOOT_FILE = 'boot-id';

/** Whether the environment at `localPath` was written during this boot (else the next open clears it). */
export function fromThisBoot(localPath: string): boolean {
  try {
    return readFileSync(path.join(localPath, BOOT_FILE), 'utf8') === thisBoot;
  } catch {
    return false;
  }
}

/*
 * LMDB keys: one tag byte, then the key. LMDB refuses empty keys and keys over ~2 KB, and the
 * store's keys are any string (lone surrogates too): a well-formed key is its UTF-8, a key with
 * lone surrogates its UTF-16LE, and a key too long for LMDB its SHA-256, the key itself then
 * stored in front of the value ([u32 key byte length][UTF-16LE key][value]).
 */
const TAG_UTF8 = 0;
const TAG_UTF16 = 1;
const TAG_HASHED = 2;
const MAX_DIRECT_KEY_BYTES = 1024;

export function lmdbKey(key: string): Buffer {
  if (isWellFormed(key)) {
    const n = Buffer.byteLength(key, 'utf8');
    if (n <= MAX_DIRECT_KEY_BYTES) {
      const b = Buffer.allocUnsafe(n + 1);
      b[0] = TAG_UTF8;
      b.write(key, 1, 'utf8');
      return b;
    }
  } else if (key.length * 2 <= MAX_DIRECT_KEY_BYTES) {
    const b = Buffer.allocUnsafe(key.length * 2 + 1);
    b[0] = TAG_UTF16;
    b.write(key, 1, 'utf16le');
    return b;
  }
  const b = Buffer.allocUnsafe(33);
  b[0] = TAG_HASHED;
  createHash('sha256').update(Buffer.from(key, 'utf16le')).digest().copy(b, 1);
  return b;
}

/** The row as LMDB stores it: the value, behind the key itself for a hashed key. */
export function lmdbValue(lkey: Buffer, key: string, value: Buffer): Buffer {
  if (lkey[0] !== TAG_HASHED) return value;
  const k = Buffer.from(key, 'utf16le');
  const b = Buffer.allocUnsafe(4 + k.length + value.length);
  b.writeUInt32LE(k.length, 0);
  k.copy(b, 4);
  b.set(value, 4 + k.length);
  return b;
}

/**
 * The store's key of an LMDB row. lmdb hands each key read out in a small ArrayBuffer of its own,
 * and V8 decodes a string from one several times slower than from Node's buffer pool: copying the
 * key there first made a raw scan of every row and its key 4.8x faster (200k keys: 697 ms
 * against 144): watermark eviction makes such a scan each time the watermark moves.
 */
export function keyOf(lkey: Buffer, raw: Buffer): string {
  if (lkey[0] === TAG_UTF8) return Buffer.from(lkey).toString('utf8', 1);
  if (lkey[0] === TAG_UTF16) return Buffer.from(lkey).toString('utf16le', 1);
  return raw.toString('utf16le', 4, 4 + raw.readUInt32LE(0));
}

/** Whether the LMDB key is a hash, the store's key then being in the value (keyOf needs the row's value). */
export const keyInValue = (lkey: Buffer): boolean => lkey[0] === TAG_HASHED;

export function valueOf(lkey: Buffer, raw: Buffer): Buffer {
  return lkey[0] === TAG_HASHED ? raw.subarray(4 + raw.readUInt32LE(0)) : raw;
}

/** The stored value of `key`, or undefined (a hashed key whose stored key differs is a collision: absent). */
export function storedValue(key: string, lkey: Buffer, raw: Buffer | undefined): Buffer | undefined {
  if (raw === undefined || lkey[0] !== TAG_HASHED) return raw;
  return keyOf(lkey, raw) === key ? valueOf(lkey, raw) : undefined;
}

/**
 * The snapshot of the version the environment holds: every row, read in one LMDB read
 * transaction (its view stays put while batches commit in other threads), as `<v>.snapshot`
 * bytes. Null when it holds no committed version.
 */
export function lmdbSnapshot({ env, rows, meta }: LmdbEnvironment): { version: number; data: Uint8Array } | null {
  const txn = env.useReadTransaction();
  try {
    const local = meta.get('version', { transaction: txn });
    if (!local || local.version <= 0) return null;
    const count = (rows.getStats() as { entryCount: number }).entryCount;
    const w = new StateFileWriter(local.version, 'snapshot', 64 + count * 48);
    for (const { key, value } of rows.getRange({ transaction: txn })) w.putBytes(keyOf(key, value), valueOf(key, value));
    return { version: local.version, data: w.finish() };
  } finally {
    txn.done();
  }
}
