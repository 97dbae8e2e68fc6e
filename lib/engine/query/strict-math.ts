/**
 * Java's StrictMath (fdlibm) where JavaScript's Math differs from it in the last bit: Spark's
 * EXP and POW/POWER are StrictMath.exp and StrictMath.pow.
 */

const bits = new DataView(new ArrayBuffer(8));
const high = (x: number): number => {
  bits.setFloat64(0, x);
  return bits.getInt32(0);
};
const low = (x: number): number => {
  bits.setFloat64(0, x);
  return bits.getInt32(4);
};
const withHigh = (x: number, hi: number): number => {
  bits.setFloat64(0, x);
  bits.setInt32(0, hi);
  return bits.getFloat64(0);
};
const fromWords = (hi: number, lo: number): number => {
  bits.setInt32(0, hi);
  bits.setInt32(4, lo);
  return bits.getFloat64(0);
};
/** x with its low 32 bits cleared: its top 21 bits of fraction, which multiply exactly. */
const lowCleared = (x: number): number => {
  bits.setFloat64(0, x);
  bits.setInt32(4, 0);
  return bits.getFloat64(0);
};

/**
 * e to the x, as StrictMath.exp. V8's Math.exp is fdlibm's e_exp.c, as Java's is, but answers
 * exp(1) as Math.E (2.718281828459045), where fdlibm gives the next double up.
 */
export const strictExp = (x: number): number => (x === 1 ? 2.7182818284590455 : Math.exp(x));

const BP = [1.0, 1.5];
const DP_H = [0.0, 5.84962487220764160156e-1];
const DP_L = [0.0, 1.35003920212974897128e-8];
const TWO53 = 9007199254740992.0;
const L1 = 5.99999999999994648725e-1;
const L2 = 4.28571428578550184252e-1;
const L3 = 3.33333329818377432918e-1;
const L4 = 2.72728123808534006489e-1;
const L5 = 2.30660745775561754067e-1;
const L6 = 2.06975017800338417784e-1;
const P1 = 1.66666666666666019037e-1;
const P2 = -2.77777777770155933842e-3;
const P3 = 6.61375632143793436117e-5;
const P4 = -1.65339022054652515390e-6;
const P5 = 4.13813679705723846039e-8;
const LG2 = 6.93147180559945286227e-1;
const LG2_H = 6.93147182464599609375e-1;
const LG2_L = -1.90465429995776804525e-9;
const OVT = 8.008566259537294e-17; // -(1024 - log2(the largest double + half an ulp))
const CP = 9.61796693925975554329e-1;
const CP_H = 9.61796700954437255859e-1;
const CP_L = -7.02846165095275826516e-9;
const INV_LN2 = 1.4426950408889634;
const INV_LN2_H = 1.44269502162933349609;
const INV_LN2_L = 1.92596299112661746887e-8;
const Y_HUGE = fromWords(0x41e00000, 0xffffffff | 0); // just over 2**31
const X_BELOW_ONE = fromWords(0x3fefffff, 0); // 1 - 2**-21
const X_ABOVE_ONE = fromWords(0x3ff00000, 0xffffffff | 0); // just under 1 + 2**-20

/**
 * x to the y, as StrictMath.pow (fdlibm's e_pow.c): log2(x) in extra precision (t1 + t2), times y
 * split likewise, then 2 to that power. JavaScript's `**` is not fdlibm's and differs from it
 * in the last bit for some arguments (10 ** 17.351777504938976).
 */
export function strictPow(x: number, y: number): number {
  if (y === 0) return 1;
  if (Number.isNaN(x) || Number.isNaN(y)) return x + y;
  const yAbs = Math.abs(y);
  let xAbs = Math.abs(x);
  if (y === 2) return x * x;
  if (y === 0.5) {
    if (x >= -Number.MAX_VALUE) return Math.sqrt(x + 0.0);
  } else if (yAbs === 1) return y === 1 ? x : 1 / x;
  else if (yAbs === Infinity) {
    if (xAbs === 1) return y - y;
    if (xAbs > 1) return y >= 0 ? y : 0;
    return y < 0 ? -y : 0;
  }
  const hx = high(x);
  let ix = hx & 0x7fffffff;
  // Whether y is an integer, for x < 0: 0 not one, 1 an odd one, 2 an even one.
  let yIsInt = 0;
  if (hx < 0) {
    if (yAbs >= TWO53) yIsInt = 2;
    else if (yAbs >= 1 && Math.trunc(yAbs) === yAbs) yIsInt = 2 - (yAbs % 2);
  }
  if (xAbs === 0 || xAbs === Infinity || xAbs === 1) {
    let z = xAbs;
    if (y < 0) z = 1 / z;
    if (hx < 0) {
      if (((ix - 0x3ff00000) | yIsInt) === 0) z = NaN; // (-1) ** a non-integer
      else if (yIsInt === 1) z = -z;
    }
    return z;
  }
  let n = (hx >> 31) + 1;
  if ((n | yIsInt) === 0) return NaN; // a negative number ** a non-integer
  const s = (n | (yIsInt - 1)) === 0 ? -1 : 1; // a negative number ** an odd integer
  let t1: number;
  let t2: number;
  if (yAbs > Y_HUGE) {
    // |y| > 2**31: past the range unless x is close to 1.
    if (xAbs < X_BELOW_ONE) return y < 0 ? s * Infinity : s * 0;
    if (xAbs > X_ABOVE_ONE) return y > 0 ? s * Infinity : s * 0;
    // |1 - x| <= 2**-20: log(x) by x - x^2/2 + x^3/3 - x^4/4.
    const t = xAbs - 1;
    const w = t * t * (0.5 - t * (0.3333333333333333 - t * 0.25));
    const u = INV_LN2_H * t;
    const v = t * INV_LN2_L - w * INV_LN2;
    t1 = lowCleared(u + v);
    t2 = v - (t1 - u);
  } else {
    n = 0;
    if (ix < 0x00100000) {
      // subnormal x
      xAbs *= TWO53;
      n -= 53;
      ix = high(xAbs);
    }
    n += (ix >> 20) - 0x3ff;
    const j = ix & 0x000fffff;
    ix = j | 0x3ff00000;
    let k: number;
    if (j <= 0x3988e) k = 0; // |x| < sqrt(3/2)
    else if (j < 0xbb67a) k = 1; // |x| < sqrt(3)
    else {
      k = 0;
      n += 1;
      ix -= 0x00100000;
    }
    xAbs = withHigh(xAbs, ix);
    // ss = s_h + s_l = (x - 1) / (x + 1) or (x - 1.5) / (x + 1.5)
    let u = xAbs - BP[k];
    let v = 1 / (xAbs + BP[k]);
    const ss = u * v;
    const sH = lowCleared(ss);
    let tH = withHigh(0, ((ix >> 1) | 0x20000000) + 0x00080000 + (k << 18));
    let tL = xAbs - (tH - BP[k]);
    const sL = v * ((u - sH * tH) - sH * tL);
    // log(x)
    let s2 = ss * ss;
    let r = s2 * s2 * (L1 + s2 * (L2 + s2 * (L3 + s2 * (L4 + s2 * (L5 + s2 * L6)))));
    r += sL * (sH + ss);
    s2 = sH * sH;
    tH = lowCleared(3.0 + s2 + r);
    tL = r - ((tH - 3.0) - s2);
    u = sH * tH;
    v = sL * tH + tL * ss;
    const pH = lowCleared(u + v);
    const pL = v - (pH - u);
    const zH = CP_H * pH;
    const zL = CP_L * pH + pL * CP + DP_L[k];
    // log2(x) = n + dp_h + z_h + z_l
    const t = n;
    t1 = lowCleared(((zH + zL) + DP_H[k]) + t);
    t2 = zL - (((t1 - t) - DP_H[k]) - zH);
  }
  // (y1 + y2) * (t1 + t2), y1 y's top 21 bits of fraction
  const y1 = lowCleared(y);
  const pL = (y - y1) * t1 + y * t2;
  let pH = y1 * t1;
  let z = pL + pH;
  let j = high(z);
  let i = low(z);
  if (j >= 0x40900000) {
    // z >= 1024
    if (((j - 0x40900000) | i) !== 0 || pL + OVT > z - pH) return s * Infinity;
  } else if ((j & 0x7fffffff) >= 0x4090cc00) {
    // z <= -1075
    if (((j - 0xc090cc00) | i) !== 0 || pL <= z - pH) return s * 0;
  }
  // 2 ** (p_h + p_l)
  i = j & 0x7fffffff;
  let k = (i >> 20) - 0x3ff;
  n = 0;
  if (i > 0x3fe00000) {
    // |z| > 0.5: n = [z + 0.5]
    n = j + (0x00100000 >> (k + 1));
    k = ((n & 0x7fffffff) >> 20) - 0x3ff;
    const t = withHigh(0, n & ~(0x000fffff >> k));
    n = ((n & 0x000fffff) | 0x00100000) >> (20 - k);
    if (j < 0) n = -n;
    pH -= t;
  }
  const t = lowCleared(pL + pH);
  const u = t * LG2_H;
  const v = (pL - (t - pH)) * LG2 + t * LG2_L;
  z = u + v;
  const w = v - (z - u);
  const tt = z * z;
  t1 = z - tt * (P1 + tt * (P2 + tt * (P3 + tt * (P4 + tt * P5))));
  const r = (z * t1) / (t1 - 2) - (w + z * w);
  z = 1 - (r - z);
  j = high(z) + (n << 20);
  // A subnormal result: scaled by 2**n in one rounding (the first product is exact).
  z = j >> 20 <= 0 ? z * 2 ** (n + 60) * 2 ** -60 : withHigh(z, j);
  return s * z;
}
