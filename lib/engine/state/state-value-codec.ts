/**
 * A small tagged binary codec for the values stateful operators keep in the state store
 * (aggregation buffers, dedup expiries, HyperLogLog registers), and for state keys.
 *
 * Why not JSON: JSON loses `undefined`, NaN, ±Infinity, -0, bigint and binary, is 2–5x larger for
 * numbers, and state files are written every batch. Each value is one tag byte followed by:
 *
 *   0 null · 1 false · 2 true · 11 undefined
 *   3 int     zigzag LEB128 varint (integers below 2^52 in magnitude, so zigzag stays exact)
 *   4 double  8 bytes float64 LE (non-integers, -0, NaN, ±Infinity, larger integers)
 *   5 string  varint byte length + UTF-8 (well-formed strings)
 *   12 string varint byte length + UTF-16LE (strings with lone surrogates, which UTF-8 cannot hold)
 *   6 array   varint count + values
 *   7 object  varint count + (string, value) pairs, in insertion order
 *   8 bytes   varint length + raw bytes (Uint8Array)
 *   9 bigint  varint length + UTF-8 decimal digits (a DECIMAL's unscaled value: its scale is
 *             the type's, kept in the operator's schema, so a decimal needs no tag of its own)
 *   10 window two float64 LE (`{start, end}`, the shape of a window column)
 *
 * Keys: the store is a map from string to bytes; `encodeKey(values)` turns the grouping values
 * into a string that is equal exactly when the values are equal (so a JS Map can hold it) and
 * `decodeKey` inverts it. A single string or number gets a cheap prefixed form (the hot path of
 * a one-column GROUP BY); everything else is the tagged encoding of the array, as latin1.
 */

const TAG_NULL = 0, TAG_FALSE = 1, TAG_TRUE = 2, TAG_INT = 3, TAG_DOUBLE = 4, TAG_STRING = 5;
const TAG_ARRAY = 6, TAG_OBJECT = 7, TAG_BYTES = 8, TAG_BIGINT = 9, TAG_WINDOW = 10;
const TAG_UNDEFINED = 11, TAG_STRING16 = 12;

/** String.prototype.isWellFormed (Node 20+; the TS lib here predates ES2024): no lone surrogates. */
export function isWellFormed(s: string): boolean {
  return (s as unknown as { isWellFormed(): boolean }).isWellFormed();
}

export class StateCodecError extends Error {
  readonly code = 'STATE_CODEC_ERROR';
}

/** Strings up to this many chars are measured and written as UTF-8 by a loop in JS (shortUtf8Length). */
export const SHORT_STRING = 64;

/**
 * The UTF-8 length of `s` when every char is below U+0800 (one or two bytes each, never a
 * surrogate, so the string is well formed), else -1. For a short string, this loop and
 * ByteWriter.utf8's cost less than Buffer.byteLength and Buffer#write, two calls into C++: state
 * keys are written every batch, and an encoded key's doubles are latin1 chars past 0x7f.
 */
export function shortUtf8Length(s: string): number {
  let len = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c >= 0x800) return -1;
    len++;
  }
  return len;
}

/** A growable byte buffer with a cursor; reused to keep encoding allocation-light. */
export class ByteWriter {
  buf: Buffer;
  pos = 0;
  constructor(initial = 256) {
    this.buf = Buffer.allocUnsafe(initial);
  }
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }
  i32(v: number): void {
    this.ensure(4);
    this.i32At(this.pos, v);
    this.pos += 4;
  }
  /**
   * Writes a 32-bit integer (int32 or uint32) little-endian at `at`, within what is written: four
   * byte stores (a Uint8Array keeps each value mod 256), where Buffer#writeInt32LE's range checks
   * cost more than the store, twice per record of every state file.
   */
  i32At(at: number, v: number): void {
    const buf = this.buf;
    buf[at] = v;
    buf[at + 1] = v >>> 8;
    buf[at + 2] = v >>> 16;
    buf[at + 3] = v >>> 24;
  }
  f64(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }
  varint(v: number): void {
    this.ensure(10);
    // The buffer and cursor in locals, and 32-bit shifts below 2^31: every number of every state
    // value comes through here.
    const buf = this.buf;
    let pos = this.pos;
    if (v >= 0x80000000) {
      // Past 31 bits: the low 28 as four groups from one division, then the rest.
      const lo = v % 0x10000000;
      buf[pos++] = (lo & 0x7f) | 0x80;
      buf[pos++] = ((lo >>> 7) & 0x7f) | 0x80;
      buf[pos++] = ((lo >>> 14) & 0x7f) | 0x80;
      buf[pos++] = ((lo >>> 21) & 0x7f) | 0x80;
      v = (v - lo) / 0x10000000;
      while (v >= 0x80000000) {
        buf[pos++] = (v % 0x80) | 0x80;
        v = Math.floor(v / 0x80);
      }
    }
    while (v >= 0x80) {
      buf[pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[pos++] = v;
    this.pos = pos;
  }
  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  /**
   * Writes the UTF-8 bytes of `s`, a string whose shortUtf8Length is `len` (not -1): the bytes
   * Buffer#write gives, after `ensure(len)`.
   */
  utf8(s: string, len: number): void {
    this.ensure(len);
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) buf[pos++] = c;
      else {
        buf[pos++] = 0xc0 | (c >> 6);
        buf[pos++] = 0x80 | (c & 0x3f);
      }
    }
    this.pos = pos;
  }
  /** Writes a string as varint length + bytes, returning the tag to use (UTF-8 or UTF-16LE). */
  str(s: string): number {
    const short = s.length <= SHORT_STRING ? shortUtf8Length(s) : -1;
    if (short >= 0) {
      this.varint(short);
      this.utf8(s, short);
      return TAG_STRING;
    }
    if (isWellFormed(s)) {
      const len = Buffer.byteLength(s, 'utf8');
      this.varint(len);
      this.ensure(len);
      this.pos += this.buf.write(s, this.pos, 'utf8');
      return TAG_STRING;
    }
    const len = s.length * 2;
    this.varint(len);
    this.ensure(len);
    this.pos += this.buf.write(s, this.pos, 'utf16le');
    return TAG_STRING16;
  }
  /**
   * A copy of what was written (the internal buffer is reused). Small copies come from Node's
   * buffer pool: a state value is a few bytes, and allocating one ArrayBuffer per changed group
   * per batch cost more than the aggregation itself.
   */
  finish(): Uint8Array {
    const out = Buffer.allocUnsafe(this.pos);
    this.buf.copy(out, 0, 0, this.pos);
    return out;
  }
}

class ByteReader {
  pos: number;
  constructor(readonly buf: Uint8Array, start = 0, readonly end = buf.length) {
    this.pos = start;
  }
  private need(n: number): void {
    if (this.pos + n > this.end) throw new StateCodecError(`truncated value at byte ${this.pos}`);
  }
  u8(): number {
    this.need(1);
    return this.buf[this.pos++];
  }
  f64(): number {
    this.need(8);
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).getFloat64(0, true);
    this.pos += 8;
    return v;
  }
  varint(): number {
    let result = 0, mul = 1;
    for (;;) {
      const b = this.u8();
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 0x80;
      if (mul > 2 ** 63) throw new StateCodecError('varint too long');
    }
  }
  bytes(n: number): Uint8Array {
    this.need(n);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  str(encoding: 'utf8' | 'utf16le'): string {
    const n = this.varint();
    const b = this.bytes(n);
    return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString(encoding);
  }
}

function isWindow(v: object): v is { start: number; end: number } {
  const keys = Object.keys(v);
  return keys.length === 2 && keys[0] === 'start' && keys[1] === 'end' &&
    typeof (v as { start: unknown }).start === 'number' && typeof (v as { end: unknown }).end === 'number';
}

/** Whether writeValue writes the number as TAG_INT and a varint: a whole number below 2^52, not -0. */
const isSmallInt = (v: number): boolean => Number.isInteger(v) && Math.abs(v) < 2 ** 52 && !Object.is(v, -0);

/** TAG_INT and the number zigzagged (sign in the low bit) as a varint. */
function writeSmallInt(w: ByteWriter, v: number): void {
  w.ensure(1);
  w.buf[w.pos++] = TAG_INT;
  w.varint(v >= 0 ? v * 2 : -v * 2 - 1);
}

/** Writes `v` as encodeValue does, at `w`'s cursor (a writer that holds values among other bytes: a state file's). */
export function writeValue(w: ByteWriter, v: unknown): void {
  switch (typeof v) {
    case 'undefined':
      return w.u8(TAG_UNDEFINED);
    case 'boolean':
      return w.u8(v ? TAG_TRUE : TAG_FALSE);
    case 'number':
      if (isSmallInt(v)) return writeSmallInt(w, v);
      w.u8(TAG_DOUBLE);
      return w.f64(v);
    case 'string': {
      const tagAt = w.pos;
      w.u8(TAG_STRING);
      // The tag is known once the string is written, which may have grown (replaced) the buffer.
      const tag = w.str(v);
      w.buf[tagAt] = tag;
      return;
    }
    case 'bigint':
      w.u8(TAG_BIGINT);
      w.str(v.toString());
      return;
    case 'object': {
      if (v === null) return w.u8(TAG_NULL);
      if (v instanceof Uint8Array) {
        w.u8(TAG_BYTES);
        w.varint(v.length);
        return w.bytes(v);
      }
      if (Array.isArray(v)) {
        w.u8(TAG_ARRAY);
        w.varint(v.length);
        // Indexed: this runs for every changed group's buffers every batch.
        for (let i = 0; i < v.length; i++) writeValue(w, v[i]);
        return;
      }
      if (isWindow(v)) {
        w.u8(TAG_WINDOW);
        w.f64(v.start);
        return w.f64(v.end);
      }
      const entries = Object.entries(v);
      w.u8(TAG_OBJECT);
      w.varint(entries.length);
      for (const [k, item] of entries) {
        const tagAt = w.pos;
        w.u8(TAG_STRING);
        const tag = w.str(k);
        w.buf[tagAt] = tag;
        writeValue(w, item);
      }
      return;
    }
    // Every member listed, so that a new one is a lint error until it is handled here.
    case 'function': case 'symbol':
    default:
      throw new StateCodecError(`cannot store a ${typeof v} in state`);
  }
}

/**
 * A writer of one shape of value, writing exactly writeValue's bytes for it: a caller that puts
 * many values of a fixed layout (the join's buffered rows) encodes them without building the
 * arrays writeValue would read and without its dispatch per nested value.
 */
export type ValueEncoder<T> = (w: ByteWriter, value: T) => void;

/**
 * writeValue of `[columns' values of row in order (absent: null), flag]` (the stream-stream
 * join's buffered row), byte for byte, without making that array: integers and NULLs, most of
 * a row's values, are written here; any other value by writeValue.
 */
export function writeRowValue(w: ByteWriter, row: Readonly<Record<string, unknown>>, columns: readonly string[], flag: boolean): void {
  const n = columns.length;
  // [ [values…], flag ]: the outer array's tag and count, the inner one's tag; its count a varint.
  w.ensure(3);
  w.buf[w.pos++] = TAG_ARRAY;
  w.buf[w.pos++] = 2;
  w.buf[w.pos++] = TAG_ARRAY;
  w.varint(n);
  for (let c = 0; c < n; c++) {
    const v = row[columns[c]];
    if (typeof v === 'number' && isSmallInt(v)) writeSmallInt(w, v);
    else if (v === undefined || v === null) {
      w.ensure(1);
      w.buf[w.pos++] = TAG_NULL;
    } else writeValue(w, v);
  }
  w.ensure(1);
  w.buf[w.pos++] = flag ? TAG_TRUE : TAG_FALSE;
}

function readValue(r: ByteReader): unknown {
  const tag = r.u8();
  switch (tag) {
    case TAG_NULL: return null;
    case TAG_UNDEFINED: return undefined;
    case TAG_FALSE: return false;
    case TAG_TRUE: return true;
    case TAG_INT: {
      const z = r.varint();
      return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
    }
    case TAG_DOUBLE: return r.f64();
    case TAG_STRING: return r.str('utf8');
    case TAG_STRING16: return r.str('utf16le');
    case TAG_BIGINT: return BigInt(r.str('utf8'));
    case TAG_BYTES: return new Uint8Array(r.bytes(r.varint()));
    case TAG_ARRAY: {
      const n = r.varint();
      const out: unknown[] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = readValue(r);
      return out;
    }
    case TAG_WINDOW: {
      const start = r.f64();
      return { start, end: r.f64() };
    }
    case TAG_OBJECT: {
      const n = r.varint();
      const out: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) {
        const kt = r.u8();
        const k = r.str(kt === TAG_STRING16 ? 'utf16le' : 'utf8');
        // A map's key may be `__proto__`: an own property, never the object's prototype.
        if (k === '__proto__') Object.defineProperty(out, k, { value: readValue(r), enumerable: true, writable: true, configurable: true });
        else out[k] = readValue(r);
      }
      return out;
    }
    default:
      throw new StateCodecError(`unknown value tag ${tag} at byte ${r.pos - 1}`);
  }
}

const shared = new ByteWriter(1024);

/** Encodes one value to a fresh byte array. */
export function encodeValue<T>(v: T, encode: ValueEncoder<T> = writeValue): Uint8Array {
  shared.pos = 0;
  encode(shared, v);
  return shared.finish();
}

/**
 * `encodeValue`'s bytes as a byte string (one char per byte), for StateStore.putByteString: no
 * byte array is made for a value the store keeps as such a string anyway.
 */
export function encodeValueByteString<T>(v: T, encode: ValueEncoder<T> = writeValue): string {
  shared.pos = 0;
  encode(shared, v);
  return shared.buf.toString('latin1', 0, shared.pos);
}

/** Decodes a value written by `encodeValue`; throws StateCodecError on malformed bytes. */
export function decodeValue(b: Uint8Array): unknown {
  const r = new ByteReader(b);
  const v = readValue(r);
  if (r.pos !== b.length) throw new StateCodecError(`${b.length - r.pos} trailing bytes after value`);
  return v;
}

// Key prefixes: a single string, a single number (String(n) round-trips every double except -0,
// which SQL grouping treats as 0 anyway), a single null, or the general tagged form.
const K_STRING = '\u0001', K_NUMBER = '\u0002', K_NULL = '\u0003', K_GENERAL = '\u0000';

/** A Map-safe string that is equal for equal grouping values and that `decodeKey` inverts. */
export function encodeKey(values: readonly unknown[]): string {
  if (values.length === 1) {
    const v = values[0];
    if (typeof v === 'string') return K_STRING + v;
    if (typeof v === 'number') return K_NUMBER + String(v);
    if (v === null) return K_NULL;
  }
  shared.pos = 0;
  writeValue(shared, values.some((v) => Object.is(v, -0)) ? values.map((v) => (Object.is(v, -0) ? 0 : v)) : values);
  return K_GENERAL + shared.buf.toString('latin1', 0, shared.pos);
}

export function decodeKey(key: string): unknown[] {
  switch (key[0]) {
    case K_STRING: return [key.slice(1)];
    case K_NUMBER: return [Number(key.slice(1))];
    case K_NULL: return [null];
    case K_GENERAL: {
      const b = Buffer.from(key.slice(1), 'latin1');
      return decodeValue(b) as unknown[];
    }
    default:
      throw new StateCodecError(`not an encoded state key: ${JSON.stringify(key.slice(0, 20))}`);
  }
}
