/**
 * The bytes of a state store file: `<version>.delta` (the keys changed by one batch),
 * `<version>.snapshot` (the whole map at that version) and `<version>.changelog` (the LMDB
 * provider's name for a delta, as Spark's RocksDB changelog checkpointing names it: the same
 * records, another kind byte, so a file of one provider is never read as the other's). Same
 * record format as Spark's HDFSBackedStateStoreProvider, minus the compression, plus a header
 * and a checksum:
 *
 *   header   "WSTS" (4 bytes) · format version u8 (=1) · kind u8 (0 delta, 1 snapshot, 2 changelog)
 *            · state version float64 LE (so a file renamed to the wrong name is caught)
 *   record   int32 keyLen · key bytes · int32 valueLen · value bytes
 *            keyLen ≥ 0: the key is UTF-8; keyLen ≤ -2: the key is UTF-16LE of (-keyLen - 2)
 *            bytes (a key string with lone surrogates, which UTF-8 cannot hold)
 *            valueLen = -1 marks a remove (deltas only)
 *   end      int32 -1, then a CRC-32 (uint32 LE) of everything before it
 *
 * A file without the end marker and a matching checksum was cut short or damaged: reading it
 * throws CorruptCheckpointError rather than loading part of the state.
 */
import { crc32 } from 'node:zlib';
import { CorruptCheckpointError } from '../errors';
import { indexedKey, indexedKeyLength } from './state-store';
import { ByteWriter, isWellFormed, SHORT_STRING, shortUtf8Length, writeValue, type ValueEncoder } from './state-value-codec';

const MAGIC = 0x53545357; // "WSTS" read as uint32 LE
const FORMAT_VERSION = 1;
/** Keys and values up to this many chars are copied by a loop in JS (see StateFileWriter.key). */
const SHORT = SHORT_STRING;
export type StateFileKind = 'delta' | 'snapshot' | 'changelog';
const KIND_BYTES: Record<StateFileKind, number> = { delta: 0, snapshot: 1, changelog: 2 };
const KINDS: StateFileKind[] = ['delta', 'snapshot', 'changelog'];

export function stateFileName(version: number, kind: StateFileKind): string {
  return `${version}.${kind}`;
}

/** Parses `12.delta` / `20.snapshot` / `13.changelog`; anything else (temp files, _metadata) is not ours. */
export function parseStateFileName(name: string): { version: number; kind: StateFileKind } | null {
  const m = /^(\d+)\.(delta|snapshot|changelog)$/.exec(name);
  return m ? { version: Number(m[1]), kind: m[2] as StateFileKind } : null;
}

export class StateFileWriter {
  private readonly w: ByteWriter;
  count = 0;
  constructor(version: number, kind: StateFileKind, sizeHint = 4096) {
    this.w = new ByteWriter(Math.max(64, sizeHint));
    this.w.i32(MAGIC);
    this.w.u8(FORMAT_VERSION);
    this.w.u8(KIND_BYTES[kind]);
    this.w.f64(version);
  }

  /** Writes a record's key: `key`, or with `index` ≥ 0 indexedKey(key, index), made here only when not short. */
  private key(key: string, index: number): void {
    const w = this.w;
    const short = key.length <= SHORT ? shortUtf8Length(key) : -1;
    if (short >= 0) {
      this.shortKey(key, short, index);
      return;
    }
    if (index >= 0) key = indexedKey(key, index);
    if (isWellFormed(key)) {
      const len = Buffer.byteLength(key, 'utf8');
      w.i32(len);
      w.ensure(len);
      w.pos += w.buf.write(key, w.pos, 'utf8');
    } else {
      w.i32(-(key.length * 2) - 2);
      w.ensure(key.length * 2);
      w.pos += w.buf.write(key, w.pos, 'utf16le');
    }
  }

  /**
   * Writes a short key (`len` its shortUtf8Length) by a loop: a commit writes every changed key,
   * and for short keys this cost a third of Buffer.byteLength and Buffer#write. With `index` ≥ 0
   * the key is indexedKey(key, index), written as `#` and the index's digits after `key` (the
   * join's slots: no string is made per slot).
   */
  private shortKey(key: string, len: number, index: number): void {
    const w = this.w;
    const suffix = index >= 0 ? indexedKeyLength(key, index) - key.length : 0;
    w.i32(len + suffix);
    w.ensure(len + suffix);
    w.utf8(key, len);
    if (index >= 0) {
      const buf = w.buf;
      const at = w.pos;
      buf[at] = 0x23; // '#'
      for (let i = suffix - 1, d = index; i > 0; i--, d = Math.floor(d / 10)) buf[at + i] = 0x30 + (d % 10);
      w.pos += suffix;
    }
  }

  /** `value` is a byte string: one char per byte, each 0-255 (see byteString in the provider). */
  put(key: string, value: string, index = -1): void {
    this.key(key, index);
    const w = this.w;
    const n = value.length;
    w.i32(n);
    w.ensure(n);
    if (n <= SHORT) {
      // As for keys: a loop beats the call into C++ for the few bytes of most state values.
      const buf = w.buf;
      for (let i = 0, at = w.pos; i < n; i++) buf[at + i] = value.charCodeAt(i);
      w.pos += n;
    } else w.pos += w.buf.write(value, w.pos, 'latin1');
    this.count++;
  }

  /**
   * `put` of encodeValue(`value`)'s bytes (or `encode`'s, which are the same), encoded in place
   * (no byte string is made for it); returns how many bytes the value took. `index` as for `key`.
   */
  putValue<T>(key: string, value: T, encode: ValueEncoder<T> = writeValue, index = -1): number {
    this.key(key, index);
    const w = this.w;
    w.ensure(4);
    const at = w.pos;
    w.pos += 4;
    encode(w, value);
    const n = w.pos - at - 4;
    w.i32At(at, n);
    this.count++;
    return n;
  }

  /** `put` of a value held as bytes (the LMDB provider's form). */
  putBytes(key: string, value: Uint8Array): void {
    this.putSlice(key, value, 0, value.length);
  }

  /** `put` of the value that is bytes `start` to `end` of `data` (a merge copies them from the files it reads). */
  putSlice(key: string, data: Uint8Array, start: number, end: number): void {
    this.key(key, -1);
    this.w.i32(end - start);
    this.copy(data, start, end);
    this.count++;
  }

  /**
   * A whole record (its key's length and bytes, its value's length and bytes) copied from bytes
   * `start` to `end` of another state file: a merge's surviving rows.
   */
  putRecord(data: Uint8Array, start: number, end: number): void {
    this.copy(data, start, end);
    this.count++;
  }

  /** Bytes `start` to `end` of `data` appended as they are (a short run by a loop, cheaper than a subarray). */
  private copy(data: Uint8Array, start: number, end: number): void {
    const w = this.w;
    const n = end - start;
    w.ensure(n);
    const buf = w.buf;
    if (n <= SHORT) for (let i = 0, at = w.pos; i < n; i++) buf[at + i] = data[start + i];
    else buf.set(data.subarray(start, end), w.pos);
    w.pos += n;
  }

  remove(key: string, index = -1): void {
    this.key(key, index);
    this.w.i32(-1);
    this.count++;
  }

  finish(): Uint8Array {
    this.w.i32(-1);
    const sum = crc32(this.w.buf.subarray(0, this.w.pos));
    this.w.ensure(4);
    this.w.buf.writeUInt32LE(sum >>> 0, this.w.pos);
    this.w.pos += 4;
    return this.w.buf.subarray(0, this.w.pos);
  }
}

/**
 * A checked change file's records as the other kind of change file (`delta` ⇄ `changelog`): the
 * same bytes under the other kind byte, with the checksum redone. How a checkpoint moves between
 * the two providers (state-provider-conversion.ts).
 */
export function asKind(path: string, data: Buffer, expect: { version: number; kind: StateFileKind }, kind: StateFileKind): Uint8Array {
  checkStateFile(path, data, expect);
  const out = Buffer.from(data);
  out[5] = KIND_BYTES[kind];
  const bodyEnd = out.length - 4;
  out.writeUInt32LE(crc32(out.subarray(0, bodyEnd)) >>> 0, bodyEnd);
  return out;
}

/**
 * Checks a state file's header, end marker and checksum (CorruptCheckpointError when one fails)
 * and returns its kind: a file that passes was written whole, as named.
 */
export function checkStateFile(path: string, data: Buffer, expect: { version: number; kind: StateFileKind }): StateFileKind {
  const fail = (reason: string): never => {
    throw new CorruptCheckpointError(path, reason);
  };
  if (data.length < 14 + 8) fail(`${data.length} bytes is too short for a state file`);
  if (data.readInt32LE(0) !== MAGIC) fail('not a Weir state file (bad magic)');
  if (data[4] !== FORMAT_VERSION) fail(`unsupported state file format v${data[4]}; this Weir reads v${FORMAT_VERSION}`);
  const kind = KINDS[data[5]];
  if (kind === undefined) fail(`unknown state file kind ${data[5]}`);
  if (kind !== expect.kind) fail(`header says ${kind}, file name says ${expect.kind}`);
  const version = data.readDoubleLE(6);
  if (version !== expect.version) fail(`header says version ${version}, file name says ${expect.version}`);
  const bodyEnd = data.length - 4;
  if (data.readInt32LE(bodyEnd - 4) !== -1) fail('no end marker (the file was cut short)');
  if ((crc32(data.subarray(0, bodyEnd)) >>> 0) !== data.readUInt32LE(bodyEnd)) fail('checksum mismatch');
  return kind;
}

/**
 * Reads a state file, calling `onPut` / `onRemove` per record. Values come as byte strings (one
 * char per byte, as the store keeps them: a one-byte string costs far less heap than a
 * Uint8Array object per value, and holds no reference to the file's buffer).
 */
export function readStateFile(
  path: string,
  data: Buffer,
  expect: { version: number; kind: StateFileKind },
  onPut: (key: string, value: string) => void,
  onRemove: (key: string) => void,
): number {
  return scanStateFile(path, data, expect, (key, d, start, end) => onPut(key, d.toString('latin1', start, end)), onRemove);
}

/**
 * `readStateFile` handing each value as its place in `data` (bytes `start` to `end`), for a
 * reader that keeps the bytes (the LMDB provider copies them into its environment).
 */
export function scanStateFile(
  path: string,
  data: Buffer,
  expect: { version: number; kind: StateFileKind },
  onPut: (key: string, data: Buffer, start: number, end: number) => void,
  onRemove: (key: string) => void,
): number {
  return scanRecords(path, data, expect, (_record, keyStart, keyLen, valueStart, valueLen) => {
    const key = keyLen >= 0 ? data.toString('utf8', keyStart, keyStart + keyLen) : data.toString('utf16le', keyStart, keyStart - keyLen - 2);
    if (valueLen === -1) onRemove(key);
    else onPut(key, data, valueStart, valueStart + valueLen);
  });
}

/**
 * A checked state file's records as they lie in `data`, undecoded: per record where it starts,
 * where its key's bytes start and its key length as written (≥ 0: UTF-8 bytes; ≤ −2: UTF-16LE
 * of −keyLen − 2 bytes), where its value starts and its length (−1: a remove). Throws
 * CorruptCheckpointError for a file that fails its checks or whose records overrun it.
 */
function scanRecords(
  path: string,
  data: Buffer,
  expect: { version: number; kind: StateFileKind },
  onRecord: (record: number, keyStart: number, keyLen: number, valueStart: number, valueLen: number) => void,
): number {
  const kind = checkStateFile(path, data, expect);
  const fail = (reason: string): never => {
    throw new CorruptCheckpointError(path, reason);
  };
  const bodyEnd = data.length - 4;
  let pos = 14;
  let count = 0;
  const last = bodyEnd - 4;
  while (pos < last) {
    const record = pos;
    const keyLen = data.readInt32LE(pos);
    pos += 4;
    const keyStart = pos;
    if (keyLen >= 0) pos += keyLen;
    else if (keyLen <= -2) pos += -keyLen - 2;
    else return fail(`end marker before the end at byte ${pos - 4}`);
    if (pos + 4 > last) fail(`record ${count} overruns the file`);
    const valueLen = data.readInt32LE(pos);
    pos += 4;
    if (valueLen === -1) {
      if (kind === 'snapshot') fail('remove marker in a snapshot');
    } else if (valueLen < 0 || pos + valueLen > last) fail(`record ${count} overruns the file`);
    onRecord(record, keyStart, keyLen, pos, valueLen);
    if (valueLen !== -1) pos += valueLen;
    count++;
  }
  if (pos !== last) fail('records overrun the end marker');
  return count;
}

/** A state file's bytes and the name they were read under (for the error of a damaged one). */
export interface StateFileBytes {
  path: string;
  version: number;
  data: Buffer;
}

/**
 * Heap of one row as the file-backed provider's map holds it (a key string, a byte string of the
 * value, a Map entry), as memoryUsedBytes estimates it, calibrated against measured heap growth
 * (state-maintenance.test.ts): a V8 sequential string is a 16-byte header plus its chars,
 * rounded up to 8 bytes (keys are counted as one-byte strings, which ASCII keys are), and a Map
 * entry with its share of the hash table's spare capacity costs about MAP_ENTRY_BYTES.
 */
const MAP_ENTRY_BYTES = 40;
const stringBytes = (n: number) => (16 + n + 7) & ~7;
export const mapEntryBytes = (keyLength: number, valueLength: number) => stringBytes(keyLength) + stringBytes(valueLength) + MAP_ENTRY_BYTES;

/** A snapshot's bytes, its rows and their heap as a map of them (mapEntryBytes). */
export interface MergedSnapshot {
  data: Uint8Array;
  rows: number;
  memory: number;
}

/**
 * The snapshot of `version` from the files alone: `base` (the snapshot it starts from, or null
 * for version 0's empty map) plus the deltas after it, in order, exactly as a restart loads
 * them. Works from files, not from the live map, so it can run in another thread while batches
 * go on changing the map: the committed files of `version` never change under it. Its rows and
 * their heap come with it, so that a provider can hold the bytes in place of its map (see
 * FileBackedStateStoreProvider's `base`) and still say its size and memory.
 */
export function mergeToSnapshot(version: number, base: StateFileBytes | null, deltas: StateFileBytes[]): MergedSnapshot {
  // The files laid end to end, and every key looked up by its bytes there (FNV-1a, open
  // addressing): no key is decoded into a string nor any value copied until the survivors'
  // records are, byte for byte (the writer is deterministic, so a key's bytes are its string's).
  // A key that is removed and put again goes to the end of the order, as in a Map, so the
  // snapshot lists its rows as a load's map would.
  const files = base ? [base, ...deltas] : deltas;
  const total = files.reduce((n, f) => n + f.data.length, 0);
  // Places are int32s: 2 GiB of files is past what a store held in one heap holds.
  if (total > 0x7fffffff) throw new Error(`state snapshot ${version}: ${total} bytes of files to merge, past the 2 GiB a merge handles`);
  const all = files.length === 1 ? files[0].data : Buffer.concat(files.map((f) => f.data));
  const keys = new KeyIndex(all);
  let at = 0;
  for (let i = 0; i < files.length; i++) {
    const f = files[i];
    scanRecords(f.path, f.data, { version: f.version, kind: base && i === 0 ? 'snapshot' : 'delta' }, (record, keyStart, keyLen, valueStart, valueLen) => {
      if (valueLen === -1) keys.remove(at + keyStart, keyLen);
      else keys.put(at + keyStart, keyLen, at + record, at + valueStart + valueLen);
    });
    at += f.data.length;
  }
  const w = new StateFileWriter(version, 'snapshot', 64 + at);
  let memory = 0;
  let rows = 0;
  const { order, keyAt, keyLen, recordAt, recordEnd } = keys;
  for (let o = 0; o < keys.orderLength; o++) {
    const e = order[o];
    if (e < 0) continue;
    const k = keyAt[e], n = keyLen[e];
    const keyBytes = n >= 0 ? n : -n - 2;
    w.putRecord(all, recordAt[e], recordEnd[e]);
    memory += mapEntryBytes(n >= 0 ? utf16Length(all, k, k + n) : keyBytes / 2, recordEnd[e] - recordAt[e] - 8 - keyBytes);
    rows++;
  }
  return { data: w.finish(), rows, memory };
}

/** The UTF-16 length of the string that UTF-8 bytes `start` to `end` of `data` decode to. */
function utf16Length(data: Uint8Array, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) {
    const b = data[i];
    // A continuation byte adds nothing; a 4-byte sequence's lead byte is a surrogate pair.
    if ((b & 0xc0) !== 0x80) n += b >= 0xf0 ? 2 : 1;
  }
  return n;
}

const growInt32 = (a: Int32Array<ArrayBuffer>, n: number): Int32Array<ArrayBuffer> => {
  const b = new Int32Array(n);
  b.set(a);
  return b;
};

/**
 * The keys of a merge by their bytes in one buffer: per key where its bytes are, its written
 * length (whose sign says UTF-8 or UTF-16), its hash, and its last put's record (−1 while
 * removed); `order` lists the keys in a Map's iteration order (−1 for a key removed since).
 */
class KeyIndex {
  private slots = new Int32Array(1 << 12);
  private count = 0;
  keyAt = new Int32Array(1 << 11);
  keyLen = new Int32Array(1 << 11);
  hash = new Int32Array(1 << 11);
  recordAt = new Int32Array(1 << 11);
  recordEnd = new Int32Array(1 << 11);
  private orderAt = new Int32Array(1 << 11);
  order = new Int32Array(1 << 11);
  orderLength = 0;

  constructor(private readonly data: Buffer) {}

  put(keyStart: number, keyLen: number, recordAt: number, recordEnd: number): void {
    let e = this.find(keyStart, keyLen);
    if (e < 0) {
      e = this.add(keyStart, keyLen);
      this.recordAt[e] = -1;
    }
    if (this.recordAt[e] < 0) this.append(e);
    this.recordAt[e] = recordAt;
    this.recordEnd[e] = recordEnd;
  }

  remove(keyStart: number, keyLen: number): void {
    const e = this.find(keyStart, keyLen);
    if (e < 0 || this.recordAt[e] < 0) return;
    this.recordAt[e] = -1;
    this.order[this.orderAt[e]] = -1;
  }

  private append(e: number): void {
    if (this.orderLength === this.order.length) this.order = growInt32(this.order, this.order.length * 2);
    this.orderAt[e] = this.orderLength;
    this.order[this.orderLength++] = e;
  }

  private hashOf(start: number, end: number): number {
    const d = this.data;
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) h = Math.imul(h ^ d[i], 0x01000193);
    return h | 0;
  }

  private static bytes(keyLen: number): number {
    return keyLen >= 0 ? keyLen : -keyLen - 2;
  }

  /** The key's entry, or −1. */
  private find(keyStart: number, keyLen: number): number {
    const d = this.data;
    const n = KeyIndex.bytes(keyLen);
    const h = this.hashOf(keyStart, keyStart + n);
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const e = slots[i] - 1;
      if (e < 0) return -1;
      if (this.hash[e] !== h || this.keyLen[e] !== keyLen) continue;
      const at = this.keyAt[e];
      let j = 0;
      while (j < n && d[at + j] === d[keyStart + j]) j++;
      if (j === n) return e;
    }
  }

  /** A new entry for a key `find` did not find. */
  private add(keyStart: number, keyLen: number): number {
    const e = this.count++;
    if (e === this.keyAt.length) {
      const n = e * 2;
      this.keyAt = growInt32(this.keyAt, n);
      this.keyLen = growInt32(this.keyLen, n);
      this.hash = growInt32(this.hash, n);
      this.recordAt = growInt32(this.recordAt, n);
      this.recordEnd = growInt32(this.recordEnd, n);
      this.orderAt = growInt32(this.orderAt, n);
    }
    this.keyAt[e] = keyStart;
    this.keyLen[e] = keyLen;
    this.hash[e] = this.hashOf(keyStart, keyStart + KeyIndex.bytes(keyLen));
    if (this.count * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(e);
    return e;
  }

  private place(e: number): void {
    const slots = this.slots;
    const mask = slots.length - 1;
    let i = this.hash[e] & mask;
    while (slots[i] !== 0) i = (i + 1) & mask;
    slots[i] = e + 1;
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size);
    for (let e = 0; e < this.count; e++) this.place(e);
  }
}
