/**
 * Spark's hash functions (group hash_funcs): md5, sha1 (sha), sha2 and crc32 of a BINARY (a
 * STRING as its UTF-8 bytes, as Spark casts one), and hash and xxhash64 of any number of values
 * of any type but MAP: Spark's Murmur3_x86_32 (an INT) and XXH64 (a BIGINT), both seeded 42,
 * over each value as Spark's HashExpression encodes its type, so that a row hashes to the
 * number Spark gives it. NULL arguments are skipped (hash(NULL) is the seed).
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { typeOfField, typeText, type TypeInfo } from './data-types';
import { compiledByHook } from './function-args';
import type { CallCompiler, CallExpr, CompiledExpr, FunctionDef } from './function-types';
import { compiled } from './compiled-expr';
import { toLong, type Long } from './long';
import type { CalendarInterval } from './calendar-interval';
import type { ExprType } from './sql-values';
import { microsOfTimestamp } from './timestamp-micros';

const isBytes = (t: ExprType) => t === 'string' || t === 'binary' || t === 'null';
/** A STRING's UTF-8 bytes, or a BINARY's own. */
const bytesOf = (v: unknown, t: ExprType): Uint8Array => (t === 'string' ? Buffer.from(v as string, 'utf8') : (v as Uint8Array));

const digest = (algorithm: string): FunctionDef => ({
  min: 1, max: 1, type: (a) => (isBytes(a[0]) ? 'string' : 'takes a string or a binary'),
  impl: ([v], _c, t) => createHash(algorithm).update(bytesOf(v, t[0])).digest('hex'),
});

/** Spark's Sha2 bit lengths: 0 is 256; any other is NULL. */
const SHA2: Record<number, string> = { 0: 'sha256', 224: 'sha224', 256: 'sha256', 384: 'sha384', 512: 'sha512' };

// Murmur3_x86_32, as Spark's (its hashUnsafeBytes mixes each byte past the last whole word alone).
const mixK1 = (k: number) => {
  const x = Math.imul(k, 0xcc9e2d51);
  return Math.imul((x << 15) | (x >>> 17), 0x1b873593);
};
const mixH1 = (h: number, k: number) => {
  const x = h ^ k;
  return (Math.imul((x << 13) | (x >>> 19), 5) + 0xe6546b64) | 0;
};
function fmix32(h: number, length: number): number {
  let x = h ^ length;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return x ^ (x >>> 16);
}

/** How Spark's InterpretedHashFunction hashes the values it is made of, with a seed of type S. */
interface Hasher<S> {
  int(i: number, seed: S): S;
  long(l: bigint, seed: S): S;
  bytes(b: Uint8Array, seed: S): S;
}

/** Spark's Murmur3_x86_32.hashUnsafeBytes of `b` (also CountMinSketch's hash of a STRING or BINARY). */
export function murmur3Bytes(b: Uint8Array, seed: number): number {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const aligned = b.length - (b.length % 4);
  let h = seed;
  for (let i = 0; i < aligned; i += 4) h = mixH1(h, mixK1(view.getInt32(i, true)));
  for (let i = aligned; i < b.length; i++) h = mixH1(h, mixK1(view.getInt8(i)));
  return fmix32(h, b.length);
}

const MURMUR3: Hasher<number> = {
  int: (i, seed) => fmix32(mixH1(seed, mixK1(i)), 4),
  long: (l, seed) => fmix32(mixH1(mixH1(seed, mixK1(Number(BigInt.asIntN(32, l)))), mixK1(Number(BigInt.asIntN(32, l >> 32n)))), 8),
  bytes: murmur3Bytes,
};

/**
 * Murmur3_x86_32 of bytes whose length is a multiple of 4 (Spark's hashUnsafeBytes and Scala's
 * MurmurHash3.bytesHash agree there; they differ only in the tail).
 */
export function murmur3HashBytes(b: Uint8Array, seed: number): number {
  if (b.length % 4 !== 0) throw new Error('murmur3HashBytes takes whole 4-byte words');
  return MURMUR3.bytes(b, seed);
}

// XXH64 in 64-bit unsigned BigInt arithmetic.
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;
const u64 = (x: bigint) => BigInt.asUintN(64, x);
const rotl = (x: bigint, r: bigint) => u64((x << r) | (x >> (64n - r)));
const round = (acc: bigint, input: bigint) => u64(rotl(u64(acc + u64(input * P2)), 31n) * P1);
const mergeRound = (acc: bigint, v: bigint) => u64(u64((acc ^ round(0n, v)) * P1) + P4);
function fmix64(h: bigint): bigint {
  let x = u64((h ^ (h >> 33n)) * P2);
  x = u64((x ^ (x >> 29n)) * P3);
  return x ^ (x >> 32n);
}

const XXH64: Hasher<bigint> = {
  int: (i, seed) => fmix64(u64(rotl(u64(seed + P5 + 4n) ^ u64(BigInt(i >>> 0) * P1), 23n) * P2 + P3)),
  long: (l, seed) => fmix64(u64(rotl(u64(seed + P5 + 8n) ^ round(0n, u64(l)), 27n) * P1 + P4)),
  bytes: (b, seed) => {
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const n = b.length;
    let at = 0;
    let h: bigint;
    if (n >= 32) {
      let [v1, v2, v3, v4] = [u64(seed + P1 + P2), u64(seed + P2), seed, u64(seed - P1)];
      for (; at <= n - 32; at += 32) {
        v1 = round(v1, view.getBigUint64(at, true));
        v2 = round(v2, view.getBigUint64(at + 8, true));
        v3 = round(v3, view.getBigUint64(at + 16, true));
        v4 = round(v4, view.getBigUint64(at + 24, true));
      }
      h = u64(rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n));
      for (const v of [v1, v2, v3, v4]) h = mergeRound(h, v);
    } else {
      h = u64(seed + P5);
    }
    h = u64(h + BigInt(n));
    for (; at <= n - 8; at += 8) h = u64(rotl(h ^ round(0n, view.getBigUint64(at, true)), 27n) * P1 + P4);
    if (at + 4 <= n) {
      h = u64(rotl(h ^ u64(BigInt(view.getUint32(at, true)) * P1), 23n) * P2 + P3);
      at += 4;
    }
    for (; at < n; at++) h = u64(rotl(h ^ u64(BigInt(b[at]) * P5), 11n) * P1);
    return fmix64(h);
  },
};

/** A Java float's or double's bits (floatToIntBits, doubleToLongBits: one NaN). */
const scratch = new DataView(new ArrayBuffer(8));
function floatBits(f: number): number {
  if (Number.isNaN(f)) return 0x7fc00000;
  scratch.setFloat32(0, f);
  return scratch.getInt32(0);
}
function doubleBits(d: number): bigint {
  if (Number.isNaN(d)) return 0x7ff8000000000000n;
  scratch.setFloat64(0, d);
  return scratch.getBigInt64(0);
}

/** A BigInteger's toByteArray: its two's complement, big-endian, in the fewest bytes. */
function bigIntegerBytes(v: bigint): Uint8Array {
  let n = 1;
  while (v < -(1n << BigInt(8 * n - 1)) || v >= 1n << BigInt(8 * n - 1)) n++;
  const out = new Uint8Array(n);
  let x = BigInt.asUintN(8 * n, v);
  for (let i = n - 1; i >= 0; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

/** Spark's `precision <= Decimal.MAX_LONG_DIGITS`: a DECIMAL hashed as its unscaled long. */
const MAX_LONG_DIGITS = 18;
const big = (v: unknown) => BigInt(v as Long);

/**
 * The function that hashes a non-NULL value of type `t` into a seed, as Spark's
 * InterpretedHashFunction.hash; a message for a type Spark does not hash.
 */
function hashOf<S>(t: TypeInfo, h: Hasher<S>): ((v: unknown, seed: S) => S) | string {
  switch (t.type) {
    case 'null': return (_v, seed) => seed;
    case 'boolean': return (v, seed) => h.int(v ? 1 : 0, seed);
    // An INT, SMALLINT or TINYINT, a DATE (days) and a year-month interval (months) are ints.
    case 'date': case 'year_month_interval': return (v, seed) => h.int(v as number, seed);
    case 'long': return t.integral ? (v, seed) => h.int(v as number, seed) : (v, seed) => h.long(big(v), seed);
    // A day-time interval is its microseconds; a TIMESTAMP (NTZ too) its microseconds.
    case 'day_time_interval': return (v, seed) => h.long(big(v), seed);
    // Spark's HashExpression: the microseconds, then the days, then the months.
    case 'calendar_interval': return (v, seed) => { const i = v as CalendarInterval; return h.int(i.months, h.int(i.days, h.long(big(i.micros), seed))); };
    case 'timestamp': return (v, seed) => h.long(big(microsOfTimestamp(v as number)), seed);
    // -0.0 hashes as 0.0.
    case 'double': return t.float32 ? (v, seed) => h.int(v === 0 ? 0 : floatBits(v as number), seed) : (v, seed) => h.long(v === 0 ? 0n : doubleBits(v as number), seed);
    case 'decimal': return (t.decimal?.precision ?? MAX_LONG_DIGITS + 1) <= MAX_LONG_DIGITS ? (v, seed) => h.long(v as bigint, seed) : (v, seed) => h.bytes(bigIntegerBytes(v as bigint), seed);
    case 'string': return (v, seed) => h.bytes(Buffer.from(v as string, 'utf8'), seed);
    case 'binary': return (v, seed) => h.bytes(v as Uint8Array, seed);
    case 'array': {
      const el = hashOf(typeOfField(t.elementType!), h);
      if (typeof el === 'string') return el;
      return (v, seed) => (v as unknown[]).reduce<S>((s, x) => (x === null || x === undefined ? s : el(x, s)), seed);
    }
    case 'struct': {
      const fields = (t.fields ?? []).map((f) => ({ name: f.name, hash: hashOf(typeOfField(f), h) }));
      const bad = fields.find((f) => typeof f.hash === 'string');
      if (bad) return bad.hash as string;
      return (v, seed) => fields.reduce<S>((s, f) => {
        const x = (v as Record<string, unknown>)[f.name];
        return x === null || x === undefined ? s : (f.hash as (v: unknown, seed: S) => S)(x, s);
      }, seed);
    }
    case 'map': return 'MAP';
    // Spark's HASH_VARIANT_TYPE.
    case 'variant': return 'VARIANT';
    default: return typeText(t);
  }
}

/**
 * hash(…) and xxhash64(…): each argument hashed in turn, the seed of each the hash of the ones
 * before it (42 for the first); a MAP anywhere in an argument is refused, as Spark refuses it
 * (HASH_MAP_TYPE: equal maps may order their entries differently).
 */
function compileHash<S>(h: Hasher<S>, seed: S, result: (s: S) => unknown, type: TypeInfo): (e: CallExpr, c: CallCompiler) => CompiledExpr {
  return (e, c) => {
    const args = e.args.map((a) => c.compile(a));
    const hashes = args.map((a) => {
      const f = hashOf(a, h);
      if (f === 'MAP') {
        c.mismatch(e, 'HASH_MAP_TYPE', `Input to the function \`${e.name}\` cannot contain elements of the "MAP" type. In Spark, same maps may have different hashcode, thus hash expressions are prohibited on "MAP" elements.`, 'Hash the map\'s sorted entries instead, such as array_sort(map_entries(m)).');
      }
      if (f === 'VARIANT') {
        c.mismatch(e, 'HASH_VARIANT_TYPE', `Input to the function \`${e.name}\` cannot contain elements of the "VARIANT" type yet.`, 'Hash its JSON instead: to_json(v).');
      }
      if (typeof f === 'string') return c.fail(e, `${e.name}() cannot hash a ${f}`);
      return f;
    });
    return compiled(type, () => {
      const evals = args.map((a) => a.eval);
      return (row, x) => {
        let s = seed;
        for (let i = 0; i < evals.length; i++) {
          const v = evals[i](row, x);
          if (v !== null && v !== undefined) s = hashes[i](v, s);
        }
        return result(s);
      };
    });
  };
}

export const HASH_FUNCTIONS: Record<string, FunctionDef> = {
  md5: digest('md5'),
  sha1: digest('sha1'),
  sha: digest('sha1'),
  sha2: {
    // Spark's inputTypes (BINARY, INT): a bit length written as a string or a fraction is cast to
    // an INT (sha2(s, '256'); text that is no number NULL, so the digest NULL).
    min: 2, max: 2, inputTypes: ([, bits]) => [undefined, bits && ['string', 'double', 'decimal'].includes(bits.type) ? { type: 'long', integral: 32 } : undefined],
    type: (a) => (isBytes(a[0]) && (a[1] === 'long' || a[1] === 'null') ? 'string' : 'takes (string or binary, bit length)'),
    impl: ([v, bits], _c, t) => {
      const algorithm = SHA2[bits as number];
      return algorithm === undefined ? null : createHash(algorithm).update(bytesOf(v, t[0])).digest('hex');
    },
  },
  // java.util.zip.CRC32: a BIGINT from 0 to 2^32 - 1.
  crc32: { min: 1, max: 1, type: (a) => (isBytes(a[0]) ? 'long' : 'takes a string or a binary'), impl: ([v], _c, t) => crc32(bytesOf(v, t[0])) },
  hash: {
    min: 1, max: Infinity, nullIntolerant: false, type: () => 'long', impl: compiledByHook,
    compile: compileHash(MURMUR3, 42, (s) => s, { type: 'long', integral: 32 }),
  },
  xxhash64: {
    min: 1, max: Infinity, nullIntolerant: false, type: () => 'long', impl: compiledByHook,
    compile: compileHash(XXH64, 42n, (s) => toLong(BigInt.asIntN(64, s)), { type: 'long' }),
  },
};
