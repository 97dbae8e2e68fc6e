/**
 * strict-math.ts against Java's StrictMath: each expected value is what StrictMath.exp or
 * StrictMath.pow (OpenJDK) answers, printed as the shortest double; for each of the pow cases
 * JavaScript's `**` answers the next double up or down.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { strictExp, strictPow } from './strict-math';

// [x, y, StrictMath.pow(x, y)]
const POW: [number, number, number][] = [
  // POWER(10, LN(x)) of postgreSQL/numeric.sql's num_data
  [10, 17.351777504938976, 224790267919917440],
  [10, 17.03145425013166, 107511333880051872],
  [10, 18.234694299654787, 1716699575118595580],
  [2, -0.5, 0.7071067811865475],
  [0.5, -0.5, 1.414213562373095],
  [2147483648, -0.5, 0.000021579186437577742],
  [65.92433885860785, -25.696854171789454, 1.8040384163167713e-47],
  [10, -117.53467746171506, 2.9195945096789896e-118],
  [84.12322933871003, -3.25661885154763, 5.386199990553094e-7],
  [87.01210515270645, 15.726353366277426, 3.180646229994571e30],
  [-5, -5, -0.00031999999999999997],
  [2.4536655212740834, -140.76972804710874, 1.3359731960162511e-55],
  // |y| past 2**31, x within 2**-20 of 1
  [0.9999999106154956, -3670016805.573011, 2.9316476172449826e142],
  [0.9999999072777018, 7579692874.982866, 5.956380874290569e-306],
  // a subnormal result
  [1.9483788476260577, -1072.6190562285876, 1.953370325551e-311],
];

describe('strictPow', () => {
  it.each(POW)('pow(%s, %s) is StrictMath.pow\'s %s', (x, y, z) => {
    expect(strictPow(x, y)).toBe(z);
  });

  it('answers the special values as StrictMath.pow', () => {
    expect(strictPow(NaN, 0)).toBe(1);
    expect(strictPow(NaN, 1)).toBeNaN();
    expect(strictPow(1, Infinity)).toBeNaN();
    expect(strictPow(-8, 1 / 3)).toBeNaN();
    expect(strictPow(-2, 3)).toBe(-8);
    expect(strictPow(-0, -1)).toBe(-Infinity);
    expect(strictPow(-0, 0.5)).toBe(0);
    expect(strictPow(-Infinity, 0.5)).toBe(Infinity);
    expect(strictPow(0.5, -Infinity)).toBe(Infinity);
    expect(strictPow(10, 309)).toBe(Infinity);
    expect(strictPow(10, -324)).toBe(0);
  });

  it('is within one unit in the last place of JavaScript\'s **', () => {
    const ulp = (v: number) => Math.max(Number.MIN_VALUE, Math.abs(v) * Number.EPSILON);
    fc.assert(fc.property(fc.double({ min: 1e-3, max: 1e3, noNaN: true }), fc.double({ min: -100, max: 100, noNaN: true }), (x, y) => {
      const js = x ** y;
      expect(Math.abs(strictPow(x, y) - js)).toBeLessThanOrEqual(ulp(js));
    }), { numRuns: 2000 });
  });
});

describe('strictExp', () => {
  it('is StrictMath.exp at 1, where V8 answers Math.E', () => {
    expect(strictExp(1)).toBe(2.7182818284590455);
    expect(Math.E).toBe(2.718281828459045);
  });

  it('is StrictMath.exp elsewhere', () => {
    expect(strictExp(32.999)).toBe(214429043492155.56);
    expect(strictExp(-123.456)).toBe(2.4195825412645934e-54);
    expect(strictExp(1234.5678)).toBe(Infinity);
  });
});
