/**
 * Spark's XORShiftRandom (org.apache.spark.util.random): Marsaglia's xorshift generator over a
 * 64-bit state seeded by hashing the seed with Scala's MurmurHash3, under java.util.Random's
 * nextInt, nextDouble and nextGaussian, so that `rand(42)` and `randn(42)` give Spark's values.
 * Spark seeds one per task with `seed + partitionIndex` (Nondeterministic.initialize).
 */
import { murmur3HashBytes } from './hash-functions';

const MASK64 = (1n << 64n) - 1n;
/** Scala's MurmurHash3.arraySeed, the seed of MurmurHash3.bytesHash(bytes). */
const ARRAY_SEED = 0x3c074a61;
/** java.util.Random's DOUBLE_UNIT, 2^-53. */
const DOUBLE_UNIT = 2 ** -53;

/** XORShiftRandom.hashSeed: the seed's 8 big-endian bytes hashed twice, the low word's hash seeding the high's. */
function hashSeed(seed: bigint): bigint {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigInt64(0, BigInt.asIntN(64, seed));
  // Scala's bytesHash is Murmur3_x86_32 over little-endian words; 8 bytes leave no tail.
  const low = murmur3HashBytes(bytes, ARRAY_SEED);
  const high = murmur3HashBytes(bytes, low);
  return ((BigInt(high) << 32n) | BigInt(low >>> 0)) & MASK64;
}

export class XORShiftRandom {
  private seed: bigint;
  private nextNextGaussian = 0;
  private haveNextNextGaussian = false;

  constructor(init: bigint) {
    this.seed = hashSeed(init);
  }

  /** XORShiftRandom.next: the low `bits` bits of the next state, as a Java int. */
  private next(bits: number): number {
    let s = this.seed;
    s = (s ^ (s << 21n)) & MASK64;
    s ^= s >> 35n;
    s = (s ^ (s << 4n)) & MASK64;
    this.seed = s;
    return Number(BigInt.asIntN(32, s & ((1n << BigInt(bits)) - 1n)));
  }

  nextInt(): number {
    return this.next(32);
  }

  /** java.util.Random.nextInt(bound). */
  nextIntBounded(bound: number): number {
    let r = this.next(31);
    const m = bound - 1;
    if ((bound & m) === 0) return Number((BigInt(bound) * BigInt(r)) >> 31n);
    for (let u = r; u - (r = u % bound) + m > 0x7fffffff; u = this.next(31));
    return r;
  }

  /** java.util.Random.nextDouble: 53 random bits, 26 then 27. */
  nextDouble(): number {
    return (this.next(26) * 2 ** 27 + this.next(27)) * DOUBLE_UNIT;
  }

  /** java.util.Random.nextGaussian: Marsaglia's polar method, the second value kept for the next call. */
  nextGaussian(): number {
    if (this.haveNextNextGaussian) {
      this.haveNextNextGaussian = false;
      return this.nextNextGaussian;
    }
    let v1: number, v2: number, s: number;
    do {
      v1 = 2 * this.nextDouble() - 1;
      v2 = 2 * this.nextDouble() - 1;
      s = v1 * v1 + v2 * v2;
    } while (s >= 1 || s === 0);
    const multiplier = Math.sqrt((-2 * Math.log(s)) / s);
    this.nextNextGaussian = v2 * multiplier;
    this.haveNextNextGaussian = true;
    return v1 * multiplier;
  }
}
