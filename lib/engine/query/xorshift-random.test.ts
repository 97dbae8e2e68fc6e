/**
 * Spark's XORShiftRandom against the values Spark's own tests and function reference print:
 * RandomSuite (`Rand(30)`, `Randn(30)`, a long seed) and the rand/randn examples (seed 0).
 */
import { describe, expect, it } from 'vitest';
import { XORShiftRandom } from './xorshift-random';

describe('XORShiftRandom', () => {
  it("draws Spark's first double and Gaussian for a seed (RandomSuite, the function reference)", () => {
    for (const [seed, uniform, gaussian] of [
      [0n, 0.7604953758285915, 1.6034991609278433],
      [30n, 0.2762195585886885, -1.0451987154313813],
      [5419823303878592871n, 0.7145363364564755, 0.7816815274533012],
    ] as const) {
      expect(new XORShiftRandom(seed).nextDouble(), `rand(${seed})`).toBe(uniform);
      expect(new XORShiftRandom(seed).nextGaussian(), `randn(${seed})`).toBe(gaussian);
    }
  });

  it('is a sequence: the same seed gives the same values, the second Gaussian is the pair kept from the first', () => {
    const a = new XORShiftRandom(42n), b = new XORShiftRandom(42n);
    const xs = Array.from({ length: 5 }, () => a.nextDouble());
    expect(Array.from({ length: 5 }, () => b.nextDouble())).toEqual(xs);
    expect(new Set(xs).size).toBe(5);
    for (const x of xs) expect(x >= 0 && x < 1).toBe(true);
    const g = new XORShiftRandom(7n);
    const [g1, g2, g3] = [g.nextGaussian(), g.nextGaussian(), g.nextGaussian()];
    expect(g1).not.toBe(g2);
    expect(g3).not.toBe(g2);
  });

  it('nextIntBounded stays within its bound, a power of two included', () => {
    const r = new XORShiftRandom(1n);
    for (const bound of [1, 2, 3, 7, 8, 1000]) for (let i = 0; i < 200; i++) expect(r.nextIntBounded(bound)).toBeLessThan(bound);
  });
});
