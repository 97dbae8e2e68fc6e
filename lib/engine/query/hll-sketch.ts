/**
 * Apache DataSketches' HLL sketch (its Java HllSketch and Union, of datasketches-java 3.3, which
 * Spark 3.5 bundles) for Spark's hll_sketch_agg, hll_union_agg, hll_union and hll_sketch_estimate,
 * with target type HLL_8 as Spark's, so that a sketch's bytes are Java's for the same operations.
 *
 * A sketch lives as its updatable serialized image (toUpdatableByteArray), which these functions
 * read and change in place, so that an aggregate's buffer is the BINARY the state store keeps and
 * Spark reads. All numbers in it are little-endian. The first 8 bytes are the preamble: preamble
 * ints (2, 3 or 10), serialization version 1, family 7, lgConfigK, lgArr (LIST and SET), flags
 * (EMPTY 4, COMPACT 8, OUT_OF_ORDER 16, REBUILD_CURMIN_NUM_KXQ 32), the LIST count or HLL curMin,
 * and the mode (the target type's ordinal, HLL_8 = 2, times 4, plus LIST 0, SET 1 or HLL 2). Then:
 * - LIST (a new sketch): 2^lgArr (8) coupon ints from byte 8, filled in order of arrival;
 * - SET (from 8 coupons, lgConfigK 8 and up): the coupon count (int at 8), then an open-addressing
 *   table of 2^lgArr coupon ints from byte 12, doubled past 3/4 full, up to 2^(lgConfigK - 3);
 * - HLL (past that, or past 8 coupons below lgConfigK 8): the HIP accumulator, KxQ0 and KxQ1
 *   (doubles at 8, 16, 24), the number of slots at curMin (int at 32), an aux count (0), and
 *   2^lgConfigK one-byte slots from byte 40.
 * A coupon is a value's 128-bit MurmurHash3 (x64, seed 9001): the low 26 bits of its first half
 * (the slot, of which HLL mode keeps the low lgConfigK) and 1 plus the leading zeros of its second
 * half, at most 63, in the top 6 bits.
 *
 * The estimate of a LIST or SET is the coupon count mapped through DataSketches' cubic
 * interpolation table; of an HLL the HIP accumulator, or where a union has left the sketch out of
 * order the composite estimator (the raw HLL estimate interpolated in DataSketches' table for the
 * lgConfigK, or linear counting below about 3K). A union's merge of HLL slots leaves KxQ and curMin
 * to be rebuilt (the REBUILD flag), as Java does before it serializes or estimates.
 */
import { COMPOSITE_X, COMPOSITE_Y_STRIDE, COUPON_X, COUPON_Y } from './hll-sketch-tables';
import type { Long } from './long';

export const HLL_MIN_LG_K = 4;
export const HLL_MAX_LG_K = 21;
export const HLL_DEFAULT_LG_K = 12;

const KEY_BITS_26 = 26;
const KEY_MASK_26 = (1 << KEY_BITS_26) - 1;
const VAL_MASK_6 = 63;

// Preamble bytes.
const PRE_INTS_BYTE = 0, SER_VER_BYTE = 1, FAMILY_BYTE = 2, LG_K_BYTE = 3, LG_ARR_BYTE = 4, FLAGS_BYTE = 5, COUNT_BYTE = 6, MODE_BYTE = 7;
// Where the modes' data start.
const LIST_START = 8, SET_COUNT_INT = 8, SET_START = 12, HIP_ACCUM = 8, KXQ0 = 16, KXQ1 = 24, NUM_AT_CUR_MIN = 32, HLL_START = 40;
const EMPTY_FLAG = 4, COMPACT_FLAG = 8, OUT_OF_ORDER_FLAG = 16, REBUILD_FLAG = 32;
const LIST = 0, SET = 1, HLL = 2;
const HLL_8 = 2;
const LG_INIT_LIST = 3, LG_INIT_SET = 5;

const viewOf = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
const modeOf = (b: Uint8Array) => b[MODE_BYTE] & 3;
export const lgConfigKOf = (b: Uint8Array): number => b[LG_K_BYTE];

// ---------------------------------------------------------------------------------------------
// MurmurHash3_x64_128, in pairs of unsigned 32-bit halves (hi, lo) of each 64-bit word. The
// helpers leave their result in rh, rl.

let rh = 0, rl = 0;

/** (ah, al) * (bh, bl) mod 2^64. */
function mul64(ah: number, al: number, bh: number, bl: number): void {
  const a0 = al & 0xffff, a1 = al >>> 16, b0 = bl & 0xffff, b1 = bl >>> 16;
  const p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  rl = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  rh = (p11 + (p01 >>> 16) + (p10 >>> 16) + Math.floor(mid / 65536) + Math.imul(al, bh) + Math.imul(ah, bl)) >>> 0;
}

function add64(ah: number, al: number, bh: number, bl: number): void {
  const s = al + bl;
  rl = s >>> 0;
  rh = (ah + bh + (s > 0xffffffff ? 1 : 0)) >>> 0;
}

function rotl64(h: number, l: number, r: number): void {
  if (r >= 32) {
    const t = h;
    h = l;
    l = t;
    r -= 32;
  }
  if (r === 0) {
    rh = h;
    rl = l;
    return;
  }
  rh = ((h << r) | (l >>> (32 - r))) >>> 0;
  rl = ((l << r) | (h >>> (32 - r))) >>> 0;
}

const C1H = 0x87c37b91, C1L = 0x114253d5, C2H = 0x4cf5ad43, C2L = 0x2745937f;

function mixK1(h: number, l: number): void {
  mul64(h, l, C1H, C1L);
  rotl64(rh, rl, 31);
  mul64(rh, rl, C2H, C2L);
}

function mixK2(h: number, l: number): void {
  mul64(h, l, C2H, C2L);
  rotl64(rh, rl, 33);
  mul64(rh, rl, C1H, C1L);
}

function finalMix64(h: number, l: number): void {
  l = (l ^ (h >>> 1)) >>> 0;
  mul64(h, l, 0xff51afd7, 0xed558ccd);
  h = rh;
  l = (rl ^ (rh >>> 1)) >>> 0;
  mul64(h, l, 0xc4ceb9fe, 0x1a85ec53);
  rl = (rl ^ (rh >>> 1)) >>> 0;
}

/** Little-endian bytes `at` to `at + n` (n ≤ 4) as an unsigned 32-bit number. */
function le32(b: Uint8Array, at: number, n: number): number {
  let v = 0;
  for (let i = n - 1; i >= 0; i--) v = v * 256 + b[at + i];
  return v;
}

/** The 128-bit MurmurHash3_x64_128 of `bytes`: [h1 hi, h1 lo, h2 hi, h2 lo], unsigned halves. */
export function murmurHash3x64(bytes: Uint8Array, seed: number): [number, number, number, number] {
  let h1h = 0, h1l = seed >>> 0, h2h = 0, h2l = seed >>> 0;
  const n = bytes.length;
  const blocks = n >>> 4;
  for (let i = 0; i < blocks; i++) {
    const at = i << 4;
    mixK1(le32(bytes, at + 4, 4), le32(bytes, at, 4));
    h1h = (h1h ^ rh) >>> 0;
    h1l = (h1l ^ rl) >>> 0;
    rotl64(h1h, h1l, 27);
    add64(rh, rl, h2h, h2l);
    mul64(rh, rl, 0, 5);
    add64(rh, rl, 0, 0x52dce729);
    h1h = rh;
    h1l = rl;
    mixK2(le32(bytes, at + 12, 4), le32(bytes, at + 8, 4));
    h2h = (h2h ^ rh) >>> 0;
    h2l = (h2l ^ rl) >>> 0;
    rotl64(h2h, h2l, 31);
    add64(rh, rl, h1h, h1l);
    mul64(rh, rl, 0, 5);
    add64(rh, rl, 0, 0x38495ab5);
    h2h = rh;
    h2l = rl;
  }
  // The tail: up to 8 bytes into k1, the rest into k2, little-endian.
  const tail = blocks << 4, rem = n - tail;
  const k1n = Math.min(rem, 8), k2n = rem - k1n;
  const k1l = le32(bytes, tail, Math.min(k1n, 4)), k1h = k1n > 4 ? le32(bytes, tail + 4, k1n - 4) : 0;
  const k2l = le32(bytes, tail + 8, Math.min(k2n, 4)), k2h = k2n > 4 ? le32(bytes, tail + 12, k2n - 4) : 0;
  mixK1(k1h, k1l);
  h1h = (h1h ^ rh) >>> 0;
  h1l = (h1l ^ rl) >>> 0;
  mixK2(k2h, k2l);
  h2h = (h2h ^ rh) >>> 0;
  h2l = (h2l ^ rl) >>> 0;
  // The length, a long: below 2^32 here.
  h1l = (h1l ^ n) >>> 0;
  h2l = (h2l ^ n) >>> 0;
  add64(h1h, h1l, h2h, h2l);
  h1h = rh;
  h1l = rl;
  add64(h2h, h2l, h1h, h1l);
  h2h = rh;
  h2l = rl;
  finalMix64(h1h, h1l);
  h1h = rh;
  h1l = rl;
  finalMix64(h2h, h2l);
  h2h = rh;
  h2l = rl;
  add64(h1h, h1l, h2h, h2l);
  h1h = rh;
  h1l = rl;
  add64(h2h, h2l, h1h, h1l);
  return [h1h, h1l, rh, rl];
}

/** DataSketches' DEFAULT_UPDATE_SEED. */
const UPDATE_SEED = 9001;

/** BaseHllSketch.coupon of a value's bytes: its slot address (26 bits) and value (6 bits), as a Java int. */
function couponOf(bytes: Uint8Array): number {
  const [, h1l, h2h, h2l] = murmurHash3x64(bytes, UPDATE_SEED);
  const lz = h2h !== 0 ? Math.clz32(h2h) : 32 + Math.clz32(h2l);
  return ((Math.min(lz, 62) + 1) << KEY_BITS_26) | (h1l & KEY_MASK_26);
}

const longBytes = new Uint8Array(8);
const longView = viewOf(longBytes);

/** HllSketch.update(long): the hash of the long's 8 little-endian bytes (Spark's INT is widened to one). */
export function hllUpdateLong(b: Uint8Array, v: Long): Uint8Array {
  if (typeof v === 'bigint') longView.setBigInt64(0, BigInt.asIntN(64, v), true);
  else {
    longView.setUint32(0, v >>> 0, true);
    longView.setUint32(4, Math.floor(v / 4294967296) >>> 0, true);
  }
  return couponUpdate(b, couponOf(longBytes));
}

/** HllSketch.update(byte[]) (a STRING is its UTF-8 bytes): nothing for no bytes. */
export function hllUpdateBytes(b: Uint8Array, bytes: Uint8Array): Uint8Array {
  return bytes.length === 0 ? b : couponUpdate(b, couponOf(bytes));
}

// ---------------------------------------------------------------------------------------------
// The three modes, on the image.

function writePreamble(b: Uint8Array, mode: number, lgK: number, lgArr: number): void {
  b[PRE_INTS_BYTE] = mode === LIST ? 2 : mode === SET ? 3 : 10;
  b[SER_VER_BYTE] = 1;
  b[FAMILY_BYTE] = 7;
  b[LG_K_BYTE] = lgK;
  b[LG_ARR_BYTE] = lgArr;
  b[MODE_BYTE] = (HLL_8 << 2) | mode;
}

/** `new HllSketch(lgK, HLL_8)`, serialized: an empty LIST. */
export function newHllSketch(lgK: number): Uint8Array {
  const b = new Uint8Array(LIST_START + (4 << LG_INIT_LIST));
  writePreamble(b, LIST, lgK, LG_INIT_LIST);
  b[FLAGS_BYTE] = EMPTY_FLAG;
  return b;
}

function newSet(lgK: number, lgArr: number): Uint8Array {
  const b = new Uint8Array(SET_START + (4 << lgArr));
  writePreamble(b, SET, lgK, lgArr);
  b[FLAGS_BYTE] = EMPTY_FLAG;
  return b;
}

/** A new Hll8Array: every slot 0, KxQ0 = K, all K slots at curMin 0. */
function newHll(lgK: number): Uint8Array {
  const b = new Uint8Array(HLL_START + (1 << lgK));
  writePreamble(b, HLL, lgK, 0);
  const v = viewOf(b);
  v.setFloat64(KXQ0, 1 << lgK, true);
  v.setInt32(NUM_AT_CUR_MIN, 1 << lgK, true);
  return b;
}

const couponCount = (b: Uint8Array): number => (modeOf(b) === LIST ? b[COUNT_BYTE] : viewOf(b).getInt32(SET_COUNT_INT, true));
const couponStart = (b: Uint8Array): number => (modeOf(b) === LIST ? LIST_START : SET_START);

/** A sketch of no value: a LIST or SET of no coupon (an HLL never is). */
const isEmpty = (b: Uint8Array): boolean => modeOf(b) !== HLL && couponCount(b) === 0;

/** The coupons of a LIST or SET in slot order (Java's iterator and mergeTo order), empty slots skipped. */
function forEachCoupon(b: Uint8Array, f: (coupon: number) => void): void {
  const v = viewOf(b), start = couponStart(b), len = 1 << b[LG_ARR_BYTE];
  for (let i = 0; i < len; i++) {
    const c = v.getInt32(start + 4 * i, true);
    if (c !== 0) f(c);
  }
}

/** Folds a coupon in (HllSketch.couponUpdate); returns the sketch, a new image when it grew or changed mode. */
function couponUpdate(b: Uint8Array, coupon: number): Uint8Array {
  if (coupon >>> KEY_BITS_26 === 0) return b;
  switch (modeOf(b)) {
    case LIST: return listUpdate(b, coupon);
    case SET: return setUpdate(b, coupon);
    default:
      updateSlot(b, coupon & ((1 << b[LG_K_BYTE]) - 1), coupon >>> KEY_BITS_26);
      return b;
  }
}

function listUpdate(b: Uint8Array, coupon: number): Uint8Array {
  const v = viewOf(b), len = 1 << b[LG_ARR_BYTE];
  for (let i = 0; i < len; i++) {
    const at = LIST_START + 4 * i, c = v.getInt32(at, true);
    if (c === coupon) return b;
    if (c === 0) {
      v.setInt32(at, coupon, true);
      const count = ++b[COUNT_BYTE];
      b[FLAGS_BYTE] &= ~EMPTY_FLAG;
      if (count < len) return b;
      return b[LG_K_BYTE] < 8 ? promoteToHll(b) : promoteListToSet(b);
    }
  }
  throw new Error('Internal: HLL coupon list has no empty slot and no duplicate');
}

/** AbstractCoupons.find: the slot of `coupon` in the table, or ~slot of the empty slot it goes to. */
function find(v: DataView, start: number, lgArr: number, coupon: number): number {
  const mask = (1 << lgArr) - 1;
  let probe = coupon & mask;
  const first = probe;
  do {
    const c = v.getInt32(start + 4 * probe, true);
    if (c === 0) return ~probe;
    if (c === coupon) return probe;
    probe = (probe + (((coupon & KEY_MASK_26) >>> lgArr) | 1)) & mask;
  } while (probe !== first);
  throw new Error('Internal: HLL coupon table has no empty slot');
}

function setUpdate(b: Uint8Array, coupon: number): Uint8Array {
  const v = viewOf(b), lgArr = b[LG_ARR_BYTE];
  const idx = find(v, SET_START, lgArr, coupon);
  if (idx >= 0) return b;
  v.setInt32(SET_START + 4 * ~idx, coupon, true);
  const count = v.getInt32(SET_COUNT_INT, true) + 1;
  v.setInt32(SET_COUNT_INT, count, true);
  b[FLAGS_BYTE] &= ~EMPTY_FLAG;
  if (4 * count <= 3 * (1 << lgArr)) return b;
  return lgArr === b[LG_K_BYTE] - 3 ? promoteToHll(b) : growSet(b, lgArr + 1);
}

/** The table rehashed into 2^lgArr slots, in the old table's slot order. */
function growSet(b: Uint8Array, lgArr: number): Uint8Array {
  const g = newSet(b[LG_K_BYTE], lgArr), gv = viewOf(g);
  g[FLAGS_BYTE] = b[FLAGS_BYTE];
  gv.setInt32(SET_COUNT_INT, couponCount(b), true);
  forEachCoupon(b, (c) => gv.setInt32(SET_START + 4 * ~find(gv, SET_START, lgArr, c), c, true));
  return g;
}

function promoteListToSet(list: Uint8Array): Uint8Array {
  let set = newSet(list[LG_K_BYTE], LG_INIT_SET);
  forEachCoupon(list, (c) => {
    set = setUpdate(set, c);
  });
  return set;
}

/** CouponList.promoteHeapListOrSetToHll: the coupons into slots, the HIP accumulator from their estimate. */
function promoteToHll(src: Uint8Array): Uint8Array {
  const h = newHll(src[LG_K_BYTE]), mask = (1 << src[LG_K_BYTE]) - 1;
  forEachCoupon(src, (c) => updateSlot(h, c & mask, c >>> KEY_BITS_26));
  viewOf(h).setFloat64(HIP_ACCUM, couponEstimate(couponCount(src)), true);
  return h;
}

/**
 * Hll8Array.updateSlotWithKxQ: a slot raised to `value` adds K / (KxQ0 + KxQ1) to the HIP
 * accumulator (before KxQ changes; out of order too, as DataSketches 3.3 does), moves the slot's
 * 2^-value between the KxQ registers (KxQ1 holds values from 32), and counts a zero slot less.
 */
function updateSlot(b: Uint8Array, slot: number, value: number): void {
  const old = b[HLL_START + slot] & VAL_MASK_6;
  if (value <= old) return;
  b[HLL_START + slot] = value & VAL_MASK_6;
  const v = viewOf(b);
  let kxq0 = v.getFloat64(KXQ0, true), kxq1 = v.getFloat64(KXQ1, true);
  v.setFloat64(HIP_ACCUM, v.getFloat64(HIP_ACCUM, true) + (1 << b[LG_K_BYTE]) / (kxq0 + kxq1), true);
  if (old < 32) v.setFloat64(KXQ0, (kxq0 -= 2 ** -old), true);
  else v.setFloat64(KXQ1, (kxq1 -= 2 ** -old), true);
  if (value < 32) v.setFloat64(KXQ0, kxq0 + 2 ** -value, true);
  else v.setFloat64(KXQ1, kxq1 + 2 ** -value, true);
  if (old === 0) v.setInt32(NUM_AT_CUR_MIN, v.getInt32(NUM_AT_CUR_MIN, true) - 1, true);
}

// ---------------------------------------------------------------------------------------------
// Estimators.

/** CubicInterpolation: the Lagrange cubic through four points at x. */
function cubic(x0: number, y0: number, x1: number, y1: number, x2: number, y2: number, x3: number, y3: number, x: number): number {
  const l0 = (x - x1) * (x - x2) * (x - x3), l1 = (x - x0) * (x - x2) * (x - x3);
  const l2 = (x - x0) * (x - x1) * (x - x3), l3 = (x - x0) * (x - x1) * (x - x2);
  const d0 = (x0 - x1) * (x0 - x2) * (x0 - x3), d1 = (x1 - x0) * (x1 - x2) * (x1 - x3);
  const d2 = (x2 - x0) * (x2 - x1) * (x2 - x3), d3 = (x3 - x0) * (x3 - x1) * (x3 - x2);
  return (y0 * l0) / d0 + (y1 * l1) / d1 + (y2 * l2) / d2 + (y3 * l3) / d3;
}

/** The index i with xs[i] <= x < xs[i + 1] (CubicInterpolation.findStraddle's bisection). */
function straddle(xs: readonly number[], x: number): number {
  let left = 0, right = xs.length - 1;
  while (left + 1 !== right) {
    const middle = left + Math.trunc((right - left) / 2);
    if (xs[middle] <= x) left = middle;
    else right = middle;
  }
  return left;
}

/** The cubic through the four table points around x (from the first four or the last four at the ends). */
function interpolate(xs: readonly number[], y: (i: number) => number, x: number): number {
  const last = xs.length - 1;
  if (x === xs[last]) return y(last);
  const at = straddle(xs, x);
  const o = at === 0 ? 0 : at === last - 1 ? at - 2 : at - 1;
  return cubic(xs[o], y(o), xs[o + 1], y(o + 1), xs[o + 2], y(o + 2), xs[o + 3], y(o + 3), x);
}

/** AbstractCoupons.getEstimate: the coupon count mapped to a distinct count, never below it. */
function couponEstimate(count: number): number {
  return Math.max(interpolate(COUPON_X, (i) => COUPON_Y[i], count), count);
}

/** HarmonicNumbers.harmonicNumber: exact below 25, else the asymptotic series. */
function harmonicNumber(n: number): number {
  if (n < HARMONIC.length) return HARMONIC[n];
  const invSq = 1 / (n * n);
  // The Euler-Mascheroni constant, as Java parses DataSketches' 0.577215664901532860606512090082.
  let sum = Math.log(n) + 0.5772156649015329 + 1 / (2 * n);
  let pow = invSq;
  sum -= pow * (1 / 12);
  pow *= invSq;
  sum += pow * (1 / 120);
  pow *= invSq;
  sum -= pow * (1 / 252);
  pow *= invSq;
  sum += pow * (1 / 240);
  return sum;
}

const HARMONIC = [
  0, 1, 1.5, 11 / 6, 25 / 12, 137 / 60, 49 / 20, 363 / 140, 761 / 280, 7129 / 2520, 7381 / 2520, 83711 / 27720, 86021 / 27720,
  1145993 / 360360, 1171733 / 360360, 1195757 / 360360, 2436559 / 720720, 42142223 / 12252240, 14274301 / 4084080,
  275295799 / 77597520, 55835135 / 15519504, 18858053 / 5173168, 19093197 / 5173168, 444316699 / 118982864, 1347822955 / 356948592,
];

/** HllEstimators.hllCompositeEstimate: the estimate of an out-of-order sketch. */
function compositeEstimate(b: Uint8Array): number {
  const v = viewOf(b), lgK = b[LG_K_BYTE], k = 1 << lgK;
  const alpha = lgK === 4 ? 0.673 : lgK === 5 ? 0.697 : lgK === 6 ? 0.709 : 0.7213 / (1.0 + 1.079 / k);
  const raw = (alpha * k * k) / (v.getFloat64(KXQ0, true) + v.getFloat64(KXQ1, true));
  const xs = COMPOSITE_X[lgK - HLL_MIN_LG_K], stride = COMPOSITE_Y_STRIDE[lgK - HLL_MIN_LG_K], last = xs.length - 1;
  if (raw < xs[0]) return 0;
  if (raw > xs[last]) return raw * ((stride * last) / xs[last]);
  const adjusted = interpolate(xs, (i) => stride * i, raw);
  // Linear counting is avoided where it may be far off (DataSketches' threshold of 3K).
  if (adjusted > 3 * k) return adjusted;
  const curMin = b[COUNT_BYTE], numAtCurMin = v.getInt32(NUM_AT_CUR_MIN, true);
  const unhit = curMin === 0 ? numAtCurMin : 0;
  const linear = unhit === 0 ? k * Math.log(k / 0.5) : k * (harmonicNumber(k) - harmonicNumber(unhit));
  const crossOver = lgK === 4 ? 0.718 : lgK === 5 ? 0.672 : 0.64;
  return (adjusted + linear) / 2 > crossOver * k ? adjusted : linear;
}

/** HllSketch.getEstimate of a sketch whose KxQ registers are current. */
function estimateOf(b: Uint8Array): number {
  if (modeOf(b) !== HLL) return couponEstimate(couponCount(b));
  return b[FLAGS_BYTE] & OUT_OF_ORDER_FLAG ? compositeEstimate(b) : viewOf(b).getFloat64(HIP_ACCUM, true);
}

// ---------------------------------------------------------------------------------------------
// Union.

/**
 * Union.checkRebuildCurMinNumKxQ: after a union merged HLL slots, KxQ0, KxQ1, curMin and the
 * count at it recomputed from the slots (in place).
 */
function rebuild(b: Uint8Array): void {
  if (modeOf(b) !== HLL || (b[FLAGS_BYTE] & REBUILD_FLAG) === 0) return;
  const k = 1 << b[LG_K_BYTE];
  let curMin = 64, numAtCurMin = 0, kxq0 = k, kxq1 = 0;
  for (let i = 0; i < k; i++) {
    const x = b[HLL_START + i] & VAL_MASK_6;
    if (x > 0) {
      if (x < 32) kxq0 += 2 ** -x - 1.0;
      else kxq1 += 2 ** -x - 1.0;
    }
    if (x > curMin) continue;
    if (x < curMin) {
      curMin = x;
      numAtCurMin = 1;
    } else numAtCurMin++;
  }
  const v = viewOf(b);
  v.setFloat64(KXQ0, kxq0, true);
  v.setFloat64(KXQ1, kxq1, true);
  b[COUNT_BYTE] = curMin;
  v.setInt32(NUM_AT_CUR_MIN, numAtCurMin, true);
  b[FLAGS_BYTE] &= ~REBUILD_FLAG;
}

/** putOutOfOrderFlag(true): the HIP accumulator no longer estimates (zeroed). */
function setOutOfOrder(b: Uint8Array): void {
  b[FLAGS_BYTE] |= OUT_OF_ORDER_FLAG;
  viewOf(b).setFloat64(HIP_ACCUM, 0, true);
}

/** Union.downsample: an HLL sketch's slots folded into 2^lgK slots, its HIP and order kept. */
function downsample(src: Uint8Array, lgK: number): Uint8Array {
  const t = newHll(lgK), mask = (1 << lgK) - 1, n = 1 << src[LG_K_BYTE];
  for (let i = 0; i < n; i++) {
    const x = src[HLL_START + i] & VAL_MASK_6;
    if (x !== 0) updateSlot(t, i & mask, x);
  }
  const v = viewOf(t);
  v.setFloat64(HIP_ACCUM, viewOf(src).getFloat64(HIP_ACCUM, true), true);
  if (src[FLAGS_BYTE] & OUT_OF_ORDER_FLAG) setOutOfOrder(t);
  return t;
}

/** Union.mergeHlltoHLLmode for HLL_8: the slot-wise maximum (src folded to tgt's size), KxQ left to rebuild. */
function mergeSlots(src: Uint8Array, tgt: Uint8Array): void {
  const n = 1 << src[LG_K_BYTE], mask = (1 << tgt[LG_K_BYTE]) - 1;
  for (let i = 0; i < n; i++) {
    const j = HLL_START + (i & mask);
    // Java compares the slots as signed bytes.
    if ((src[HLL_START + i] << 24) >> 24 > (tgt[j] << 24) >> 24) tgt[j] = src[HLL_START + i];
  }
  tgt[FLAGS_BYTE] |= REBUILD_FLAG;
}

function mergeCoupons(src: Uint8Array, tgt: Uint8Array): Uint8Array {
  forEachCoupon(src, (c) => {
    tgt = couponUpdate(tgt, c);
  });
  return tgt;
}

/**
 * Union.update(source) into the union's gadget (an HLL_8 sketch of at most lgMaxK): returns the
 * new gadget, which may be `gadget` changed in place or a new image; `source` is never changed.
 * `sourceWrapped`: the source is a wrapped image (HllSketch.wrap, as hll_union_agg reads its
 * rows), which a union never copies as a whole.
 */
function unionUpdate(gadget: Uint8Array, lgMaxK: number, src: Uint8Array, sourceWrapped: boolean): Uint8Array {
  if (isEmpty(src)) return gadget;
  const srcMode = modeOf(src);
  if (srcMode === LIST) return mergeCoupons(src, gadget);
  const srcLgK = src[LG_K_BYTE], gadgetLgK = gadget[LG_K_BYTE];
  const gadgetEmpty = isEmpty(gadget);
  if (srcMode === SET) {
    return gadgetEmpty && srcLgK === gadgetLgK && !sourceWrapped ? src.slice() : mergeCoupons(src, gadget);
  }
  // The source is in HLL mode.
  const srcOverMax = srcLgK > lgMaxK;
  if (gadgetEmpty) return srcOverMax ? downsample(src, lgMaxK) : src.slice();
  if (modeOf(gadget) !== HLL) {
    // The gadget's coupons merged into (a copy of) the source, the more accurate direction.
    return mergeCoupons(gadget, srcOverMax ? downsample(src, lgMaxK) : src.slice());
  }
  const tgt = srcLgK < gadgetLgK ? downsample(gadget, srcLgK) : gadget;
  mergeSlots(src, tgt);
  setOutOfOrder(tgt);
  return tgt;
}

/** Union.getResult(HLL_8) / toUpdatableByteArray: a copy of the gadget, rebuilt. */
function unionResult(gadget: Uint8Array): Uint8Array {
  const r = gadget.slice();
  rebuild(r);
  return r;
}

// ---------------------------------------------------------------------------------------------
// Reading a sketch a user gives.

/** PreambleUtil.computeLgArr for a SET whose lgArr byte is missing. */
function setLgArrFor(count: number): number {
  let p = 1;
  while (p < count) p *= 2;
  if (4 * count > 3 * p) p *= 2;
  return Math.max(LG_INIT_SET, Math.log2(p));
}

/**
 * HllSketch.heapify: the updatable HLL_8 image of a serialized sketch (any of Java's forms:
 * updatable or compact, of any target type while in LIST or SET mode), a new array; undefined
 * when the bytes are no sketch (Spark's HLL_INVALID_INPUT_SKETCH_BUFFER). An HLL-mode image of
 * HLL_4 or HLL_6 is refused (Weir reads HLL_8 slots only, the type Spark writes). `rebuildKxQ`:
 * as heapify does, except in Union.heapify.
 */
export function readHllSketch(bytes: Uint8Array, rebuildKxQ = true): Uint8Array | undefined {
  if (bytes.length < 8) return undefined;
  const preInts = bytes[PRE_INTS_BYTE] & 0x3f, mode = bytes[MODE_BYTE] & 3, lgK = bytes[LG_K_BYTE];
  if (bytes[FAMILY_BYTE] !== 7 || bytes[SER_VER_BYTE] !== 1 || mode === 3 || preInts !== [2, 3, 10][mode]) return undefined;
  if (lgK < HLL_MIN_LG_K || lgK > HLL_MAX_LG_K) return undefined;
  const v = viewOf(bytes);
  if (mode === LIST) {
    const count = bytes[COUNT_BYTE];
    if (count > 1 << LG_INIT_LIST || bytes.length < LIST_START + 4 * count) return undefined;
    const b = newHllSketch(lgK);
    b.set(bytes.subarray(LIST_START, LIST_START + 4 * count), LIST_START);
    b[COUNT_BYTE] = count;
    if (count > 0) b[FLAGS_BYTE] = 0;
    return b;
  }
  if (mode === SET) {
    if (bytes.length < SET_START) return undefined;
    const count = v.getInt32(SET_COUNT_INT, true);
    if (count < 0 || count > 1 << (lgK - 3)) return undefined;
    if (bytes[FLAGS_BYTE] & COMPACT_FLAG) {
      if (bytes.length < SET_START + 4 * count) return undefined;
      let b = newSet(lgK, LG_INIT_SET);
      for (let i = 0; i < count; i++) b = couponUpdate(b, v.getInt32(SET_START + 4 * i, true));
      return b;
    }
    const lgArr = bytes[LG_ARR_BYTE] < LG_INIT_SET ? setLgArrFor(count) : bytes[LG_ARR_BYTE];
    if (lgArr > lgK - 3 || count > 1 << lgArr || bytes.length < SET_START + (4 << lgArr)) return undefined;
    const b = newSet(lgK, lgArr);
    b.set(bytes.subarray(SET_START, SET_START + (4 << lgArr)), SET_START);
    viewOf(b).setInt32(SET_COUNT_INT, count, true);
    if (count > 0) b[FLAGS_BYTE] = 0;
    return b;
  }
  if (((bytes[MODE_BYTE] >>> 2) & 3) !== HLL_8 || bytes.length < HLL_START + (1 << lgK)) return undefined;
  const b = newHll(lgK), bv = viewOf(b);
  b[FLAGS_BYTE] = bytes[FLAGS_BYTE] & (OUT_OF_ORDER_FLAG | REBUILD_FLAG);
  b[COUNT_BYTE] = bytes[COUNT_BYTE];
  for (const at of [HIP_ACCUM, KXQ0, KXQ1]) bv.setFloat64(at, v.getFloat64(at, true), true);
  bv.setInt32(NUM_AT_CUR_MIN, v.getInt32(NUM_AT_CUR_MIN, true), true);
  b.set(bytes.subarray(HLL_START, HLL_START + (1 << lgK)), HLL_START);
  if (rebuildKxQ) rebuild(b);
  return b;
}

// ---------------------------------------------------------------------------------------------
// Spark's functions, over images.

/** HllSketch.getEstimate of a read sketch (hll_sketch_estimate rounds it). */
export function hllEstimate(sketch: Uint8Array): number {
  return estimateOf(sketch);
}

/** HllSketchAgg.merge: Union(lgConfigK of `into`) of `into` and `from`, its result. */
export function hllSketchMerge(into: Uint8Array, from: Uint8Array): Uint8Array {
  const lgK = into[LG_K_BYTE];
  return unionResult(unionUpdate(unionUpdate(newHllSketch(lgK), lgK, into, false), lgK, from, false));
}

/**
 * hll_union(first, second): Union(the smaller lgConfigK) of two read sketches, its result
 * (the caller checks the lgConfigKs when they must agree).
 */
export function hllUnionOf(first: Uint8Array, second: Uint8Array): Uint8Array {
  const lgK = Math.min(first[LG_K_BYTE], second[LG_K_BYTE]);
  return unionResult(unionUpdate(unionUpdate(newHllSketch(lgK), lgK, first, false), lgK, second, false));
}

/**
 * HllUnionAgg.update: a row's sketch (read, as wrapped) into the union's gadget (undefined: the
 * first row's sketch sets lgMaxK); a union's lgMaxK is its gadget's lgConfigK, which is the same
 * union: a gadget only drops below lgMaxK in HLL mode, where the two bounds act alike.
 */
export function hllUnionAggUpdate(gadget: Uint8Array | null, sketch: Uint8Array): Uint8Array {
  const g = gadget ?? newHllSketch(sketch[LG_K_BYTE]);
  return unionUpdate(g, g[LG_K_BYTE], sketch, true);
}

/** HllUnionAgg.merge: the union of two gadgets (`from` as its result, a heap sketch). */
export function hllUnionAggMerge(gadget: Uint8Array, from: Uint8Array): Uint8Array {
  return unionUpdate(gadget, gadget[LG_K_BYTE], unionResult(from), false);
}

/** HllUnionAgg.eval: the gadget's image rebuilt (no row: an empty Union()'s, of lgConfigK 12). */
export function hllUnionAggResult(gadget: Uint8Array | null): Uint8Array {
  return gadget === null ? newHllSketch(HLL_DEFAULT_LG_K) : unionResult(gadget);
}
