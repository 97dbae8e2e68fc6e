/**
 * A seeded pseudo-random generator (mulberry32): numbers in [0, 1) that are the same on every
 * run for a seed, for tests and benchmarks whose inputs must be random yet reproducible.
 */
export function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
