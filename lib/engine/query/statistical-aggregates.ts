/**
 * Spark's statistical aggregates for streaming GROUP BY, each with the buffer Spark keeps, so
 * that a group's state is a few doubles whatever its row count:
 * - CentralMomentAgg (stddev_samp/stddev/std, stddev_pop, var_samp/variance, var_pop, skewness,
 *   kurtosis): [n, avg, m2] (+ m3, m4 for skewness and kurtosis), updated one value at a time
 *   with Spark's update expressions (Meng's one-pass central moments);
 * - Covariance (covar_pop, covar_samp): [n, xAvg, yAvg, ck]; PearsonCorrelation (corr):
 *   [n, xAvg, yAvg, ck, xMk, yMk]. A pair with a NULL on either side is skipped.
 * Results are DOUBLE; NULL for no rows; with Spark's default
 * spark.sql.legacy.statisticalAggregate=false, NULL where the formula divides by zero (the
 * sample statistics of one row, skewness and kurtosis of constant values, corr with one row).
 * corr of a constant column divides by zero too, which Spark's Divide makes NULL (ANSI off).
 * Spark folds partial buffers with its merge expressions, Weir folds row by row: results equal
 * Spark's up to floating-point rounding.
 *
 * - percentile, median (Spark's percentile(x, 0.5)), percentile_cont and percentile_disc (exact),
 *   and mode: the count of each distinct value, [v0, c0, v1, c1, …]; the state grows with the
 *   group's distinct values, as Spark's Percentile and Mode buffers do. The percentiles read
 *   the counts as Spark's PercentileBase does (see percentile below); mode of a tie is the least
 *   of the tied values (Spark 4's mode(x, true); Spark 3 picks any of them).
 * - percentile_approx / approx_percentile(x, p[, accuracy]): Spark's Greenwald-Khanna quantile
 *   summary (see Sketch below), exact while a group has fewer than accuracy/2 values.
 * - histogram_numeric(x, nb): Spark's NumericHistogram (see histogramAdd below), at most nb bins.
 *
 * Inputs are numbers: the planner converts a DECIMAL or a BIGINT held as a bigint to a double
 * first (Spark casts the argument to DOUBLE).
 */
import { RecordExpressionError } from '../errors';
import { encodeKey } from '../state/state-value-codec';
import type { AggregateFunction } from './function-types';

const MOMENTS = 100, CO_MOMENTS = 101, COUNTS = 102, QUANTILES = 103, WEIGHTED_COUNTS = 104, HISTOGRAM = 105;
export type StatisticalOp = typeof MOMENTS | typeof CO_MOMENTS | typeof COUNTS | typeof QUANTILES | typeof WEIGHTED_COUNTS | typeof HISTOGRAM;

/** Folds one value into a moments buffer (in place): Spark's CentralMomentAgg.updateExpressions. */
function moments(b: number[], x: number): void {
  const order = b.length - 1;
  const n = b[0] + 1;
  const delta = x - b[1];
  const deltaN = delta / n;
  const m2 = b[2] + delta * (delta - deltaN);
  b[0] = n;
  b[1] = b[1] + deltaN;
  if (order >= 3) {
    const delta2 = delta * delta, deltaN2 = deltaN * deltaN;
    const m3 = b[3] - 3 * deltaN * m2 + delta * (delta2 - deltaN2);
    if (order >= 4) b[4] = b[4] - 4 * deltaN * m3 - 6 * deltaN2 * m2 + delta * (delta * delta2 - deltaN * deltaN2);
    b[3] = m3;
  }
  b[2] = m2;
}

/** Folds one pair into a co-moments buffer (in place): Spark's Covariance / PearsonCorrelation update. */
function coMoments(b: number[], x: number, y: number): void {
  const n = b[0] + 1;
  const dx = x - b[1], dy = y - b[2];
  const dxN = dx / n, dyN = dy / n;
  const xAvg = b[1] + dxN, yAvg = b[2] + dyN;
  b[3] += dx * (y - yAvg);
  if (b.length === 6) {
    b[4] += dx * (x - xAvg);
    b[5] += dy * (y - yAvg);
  }
  b[0] = n;
  b[1] = xAvg;
  b[2] = yAvg;
}

/** Folds `v` into buffer `b` of a statistical aggregate (buffers are changed in place). */
export function updateStatistical(op: StatisticalOp, b: unknown, v: unknown): unknown {
  if (v === null || v === undefined) return b;
  if (op === MOMENTS) {
    // A BIGINT past 2^53 (a bigint, long.ts) counts as its nearest double, as Spark casts it.
    moments(b as number[], typeof v === 'bigint' ? Number(v) : (v as number));
    return b;
  }
  if (op === WEIGHTED_COUNTS) {
    // percentile(col, p, frequency): Spark's Percentile.update, a row counting `frequency` times.
    const [x, f] = v as [unknown, number | bigint | null];
    if (x === null || x === undefined || f === null || f === undefined) return b;
    if (f < 0) {
      throw new RecordExpressionError(`[NEGATIVE_VALUES_IN_FREQUENCY_EXPRESSION] Found the negative value in the frequency of percentile(): ${f}, but expected a positive integral value.`, { function: 'percentile()' });
    }
    if (f > 0) countValue(b as unknown[], x, Number(f));
    return b;
  }
  if (op === COUNTS) {
    countValue(b as unknown[], v);
    return b;
  }
  if (op === QUANTILES) {
    sketchAdd(b as Sketch, v);
    return b;
  }
  if (op === HISTOGRAM) {
    histogramAdd(b as number[], v as number);
    return b;
  }
  const [x, y] = v as [number | bigint | null, number | bigint | null];
  if (x !== null && y !== null) coMoments(b as number[], Number(x), Number(y));
  return b;
}

const MOMENT_FUNCTIONS = {
  stddev_samp: { order: 2, result: (n: number, m2: number) => (n === 1 ? null : Math.sqrt(m2 / (n - 1))) },
  stddev_pop: { order: 2, result: (n: number, m2: number) => Math.sqrt(m2 / n) },
  var_samp: { order: 2, result: (n: number, m2: number) => (n === 1 ? null : m2 / (n - 1)) },
  var_pop: { order: 2, result: (n: number, m2: number) => m2 / n },
  skewness: { order: 3, result: (n: number, m2: number, m3: number) => (m2 === 0 ? null : (Math.sqrt(n) * m3) / Math.sqrt(m2 * m2 * m2)) },
  kurtosis: { order: 4, result: (n: number, m2: number, _m3: number, m4: number) => (m2 === 0 ? null : (n * m4) / (m2 * m2) - 3) },
} as const;

/** Spark's aliases: stddev and std are stddev_samp, variance is var_samp. */
const MOMENT_ALIASES: Record<string, keyof typeof MOMENT_FUNCTIONS> = { stddev: 'stddev_samp', std: 'stddev_samp', variance: 'var_samp' };

export const MOMENT_NAMES = [...Object.keys(MOMENT_FUNCTIONS), ...Object.keys(MOMENT_ALIASES)];
export const CO_MOMENT_NAMES = ['corr', 'covar_pop', 'covar_samp'];

/** A one-argument central-moment aggregate (`name` one of MOMENT_NAMES). */
export function centralMoment(name: string): AggregateFunction {
  const def = MOMENT_FUNCTIONS[MOMENT_ALIASES[name] ?? (name as keyof typeof MOMENT_FUNCTIONS)];
  const size = def.order + 1;
  return {
    name, resultType: 'double', op: MOMENTS,
    init: () => new Array<number>(size).fill(0),
    result: (b) => {
      const m = b as number[];
      return m[0] === 0 ? null : (def.result as (n: number, m2: number, m3: number, m4: number) => number | null)(m[0], m[2], m[3], m[4]);
    },
  };
}

/** corr, covar_pop, covar_samp over pairs [x, y]. */
export function coMoment(name: string): AggregateFunction {
  const corr = name === 'corr';
  return {
    name, resultType: 'double', op: CO_MOMENTS,
    init: () => new Array<number>(corr ? 6 : 4).fill(0),
    result: (b) => {
      const [n, , , ck, xMk, yMk] = b as number[];
      if (n === 0) return null;
      if (name === 'covar_pop') return ck / n;
      if (n === 1) return null;
      if (name === 'covar_samp') return ck / (n - 1);
      const d = Math.sqrt(xMk * yMk);
      return d === 0 ? null : ck / d;
    },
  };
}

/**
 * Spark's linear regression aggregates regr_*(y, x) over the pairs with neither side NULL, on
 * PearsonCorrelation's buffer [n, xAvg, yAvg, ck, xMk, yMk] of (x, y): the planner swaps the
 * arguments into it.
 */
const REGRESSIONS: Record<string, (b: number[]) => number | null> = {
  regr_count: ([n]) => n,
  regr_avgx: ([n, xAvg]) => (n === 0 ? null : xAvg),
  regr_avgy: ([n, , yAvg]) => (n === 0 ? null : yAvg),
  regr_sxx: ([n, , , , xMk]) => (n === 0 ? null : xMk),
  regr_syy: ([n, , , , , yMk]) => (n === 0 ? null : yMk),
  regr_sxy: ([n, , , ck]) => (n === 0 ? null : ck),
  regr_slope: ([n, , , ck, xMk]) => (n === 0 || xMk === 0 ? null : ck / xMk),
  regr_intercept: ([n, xAvg, yAvg, ck, xMk]) => (n === 0 || xMk === 0 ? null : yAvg - (ck / xMk) * xAvg),
  regr_r2: ([, , , ck, xMk, yMk]) => (xMk === 0 ? null : yMk === 0 ? 1 : (ck * ck) / (xMk * yMk)),
};
export const REGRESSION_NAMES = Object.keys(REGRESSIONS);

/** A regr_* aggregate over pairs [x, y] (already swapped from Spark's (y, x)). */
export function regression(name: string): AggregateFunction {
  const result = REGRESSIONS[name];
  return {
    name, resultType: name === 'regr_count' ? 'long' : 'double', op: CO_MOMENTS,
    init: () => new Array<number>(6).fill(0),
    result: (b) => result(b as number[]),
  };
}

/** Where each distinct value of a counts buffer is, rebuilt after the buffer comes back from state. */
const countIndex = new WeakMap<unknown[], Map<string, number>>();

function countValue(b: unknown[], v: unknown, times = 1): void {
  let index = countIndex.get(b);
  if (index === undefined) {
    index = new Map();
    for (let i = 0; i < b.length; i += 2) index.set(encodeKey([b[i]]), i);
    countIndex.set(b, index);
  }
  const k = encodeKey([v]);
  const at = index.get(k);
  if (at === undefined) {
    index.set(k, b.length);
    b.push(v, times);
  } else {
    (b[at + 1] as number) += times;
  }
}

/** Ascending, NaN above every other double (Spark's order); numbers, bigints (decimals) or strings. */
function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number' && (Number.isNaN(a) || Number.isNaN(b))) return Number.isNaN(a) ? (Number.isNaN(b) ? 0 : 1) : -1;
  return (a as never) < (b as never) ? -1 : (a as never) > (b as never) ? 1 : 0;
}

/** The [value, count] pairs of a counts buffer, by value. */
function sortedCounts(b: unknown[]): [unknown, number][] {
  const pairs: [unknown, number][] = [];
  for (let i = 0; i < b.length; i += 2) pairs.push([b[i], b[i + 1] as number]);
  return pairs.sort((x, y) => compare(x[0], y[0]));
}

/** How Spark's PercentileBase reads the sorted counts, and what it gives for each percentage. */
export interface PercentileOptions {
  /** Spark's `reverse`: the values in descending order (`WITHIN GROUP (ORDER BY x DESC)`). */
  readonly reverse?: boolean;
  /**
   * percentile_disc: the first value whose cumulative count reaches ⌈p·n⌉ (the least value whose
   * cume_dist is at least p, Spark 3.5's calculation), never interpolated.
   */
  readonly discrete?: boolean;
  /** percentile(x, p, frequency): the input is [x, frequency], a row counting `frequency` times. */
  readonly withFrequency?: boolean;
  /** The result as a value of the result type (an ANSI interval's, truncated); the double itself otherwise. */
  readonly fromDouble?: (x: number) => unknown;
}

/**
 * Spark's exact percentile(x, p) and the functions it stands for (median, percentile_cont,
 * percentile_disc) over the exact counts: for percentile_cont the value at position p·(n-1) of
 * the sorted values, interpolated linearly between its neighbours (not when both are one
 * value); for percentile_disc see PercentileOptions. An array of p gives an array of results;
 * NULL for no values. `toNumber` reads a value as Spark's double.
 */
export function percentile(
  name: string,
  toNumber: (v: unknown) => number,
  p: number | number[],
  shape: Pick<AggregateFunction, 'resultType' | 'resultShape'>,
  options: PercentileOptions = {},
): AggregateFunction {
  const { reverse = false, discrete = false, withFrequency = false, fromDouble } = options;
  return {
    name, ...shape, op: withFrequency ? WEIGHTED_COUNTS : COUNTS,
    init: () => [],
    result: (b) => {
      const pairs = sortedCounts(b as unknown[]);
      if (pairs.length === 0) return null;
      if (reverse) pairs.reverse();
      // Cumulative counts, and the index of the first one that reaches `count`.
      const cumulative: number[] = [];
      let n = 0;
      for (const [, c] of pairs) cumulative.push((n += c));
      const reaching = (count: number) => {
        let lo = 0, hi = cumulative.length - 1;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (cumulative[mid] >= count) hi = mid;
          else lo = mid + 1;
        }
        return lo;
      };
      const one = (q: number): number => {
        if (discrete) return toNumber(pairs[reaching(Math.ceil(n * q))][0]);
        const position = (n - 1) * q;
        const lower = Math.floor(position), higher = Math.ceil(position);
        const lowerKey = pairs[reaching(lower + 1)][0];
        if (lower === higher) return toNumber(lowerKey);
        const higherKey = pairs[reaching(higher + 1)][0];
        if (compare(lowerKey, higherKey) === 0) return toNumber(lowerKey);
        return (higher - position) * toNumber(lowerKey) + (position - lower) * toNumber(higherKey);
      };
      const value = (q: number) => (fromDouble ? fromDouble(one(q)) : one(q));
      return Array.isArray(p) ? p.map(value) : value(p);
    },
  };
}

/**
 * mode: the most frequent value; of tied values the least, the greatest when `greatest` (Spark's
 * Mode of `WITHIN GROUP (ORDER BY x DESC)`).
 */
export function mode(shape: Pick<AggregateFunction, 'resultType' | 'resultDecimal' | 'resultShape'>, greatest = false): AggregateFunction {
  return {
    name: 'mode', ...shape, op: COUNTS,
    init: () => [],
    result: (b) => {
      const list = b as unknown[];
      let best: unknown = null, most = 0;
      for (let i = 0; i < list.length; i += 2) {
        const c = list[i + 1] as number;
        if (c > most || (c === most && (greatest ? compare(list[i], best) > 0 : compare(list[i], best) < 0))) {
          best = list[i];
          most = c;
        }
      }
      return best;
    },
  };
}

/**
 * The quantile summary of percentile_approx: Spark's QuantileSummaries (Greenwald-Khanna, with
 * relative error 1/accuracy). `values` ascending with, per sample, `g` (its minimum rank less
 * the previous sample's) and `d` (its rank's uncertainty); `n` the values the samples stand for;
 * `pending` the values not yet inserted (Spark's head buffer), kept sorted. Every HEAD_SIZE values the
 * pending ones are sorted in and the samples compressed (Spark compresses only past 10000
 * samples; compressing each time keeps a group's state small, within the same error bound).
 * An answer's rank is within about n/accuracy of the one asked for, and exact while a group has
 * fewer than accuracy/2 values (then every uncertainty is 0). The buffer depends only on the
 * values and their order, never on batch boundaries or on when results are read, so a
 * restarted query answers exactly as an uninterrupted one.
 */
interface Sketch {
  values: unknown[];
  g: number[];
  d: number[];
  pending: unknown[];
  n: number;
  accuracy: number;
}

/** Spark's head buffer is 50000 values; a smaller one keeps a group's state small. */
const HEAD_SIZE = 1024;

function sketchAdd(s: Sketch, v: unknown): void {
  // Kept sorted (after its equals), so that reading a result sorts nothing; the order depends
  // only on the values and their arrival order.
  const p = s.pending;
  let lo = 0, hi = p.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(p[mid], v) <= 0) lo = mid + 1;
    else hi = mid;
  }
  if (lo === p.length) p.push(v);
  else p.splice(lo, 0, v);
  if (p.length >= HEAD_SIZE) {
    const c = sketchCompressed(s);
    s.values = c.values;
    s.g = c.g;
    s.d = c.d;
    s.n = c.n;
    s.pending = [];
  }
}

/** The samples with the pending values inserted, then compressed (Spark's compress(); `s` is not changed). */
function sketchCompressed(s: Sketch): { values: unknown[]; g: number[]; d: number[]; n: number } {
  const eps = 1 / s.accuracy;
  const sorted = s.pending;
  const values: unknown[] = [], g: number[] = [], d: number[] = [];
  let count = s.n, at = 0;
  const take = (i: number) => {
    values.push(s.values[i]);
    g.push(s.g[i]);
    d.push(s.d[i]);
  };
  for (let i = 0; i < sorted.length; i++) {
    while (at < s.values.length && compare(s.values[at], sorted[i]) <= 0) take(at++);
    count++;
    // The new least value, and the new greatest, have an exact rank.
    const exact = values.length === 0 || (at === s.values.length && i === sorted.length - 1);
    values.push(sorted[i]);
    g.push(1);
    d.push(exact ? 0 : Math.floor(2 * eps * count));
  }
  while (at < s.values.length) take(at++);
  return { ...compressSamples(values, g, d, 2 * eps * count), n: count };
}

/** Spark's compressImmut: from the greatest sample down, join a sample into the next while the joined one stays under the threshold; the least and the greatest stay. */
function compressSamples(values: unknown[], g: number[], d: number[], threshold: number): { values: unknown[]; g: number[]; d: number[] } {
  const n = values.length;
  if (n === 0) return { values, g, d };
  const rv: unknown[] = [], rg: number[] = [], rd: number[] = [];
  let hv = values[n - 1], hg = g[n - 1], hd = d[n - 1];
  for (let i = n - 2; i >= 1; i--) {
    if (g[i] + hg + hd < threshold) {
      hg += g[i];
    } else {
      rv.push(hv);
      rg.push(hg);
      rd.push(hd);
      hv = values[i];
      hg = g[i];
      hd = d[i];
    }
  }
  rv.push(hv);
  rg.push(hg);
  rd.push(hd);
  if (n > 1 && compare(values[0], hv) <= 0) {
    rv.push(values[0]);
    rg.push(g[0]);
    rd.push(d[0]);
  }
  return { values: rv.reverse(), g: rg.reverse(), d: rd.reverse() };
}

/** Spark's QuantileSummaries.query over compressed samples of `n` values. */
function sketchQuantile(c: { values: unknown[]; g: number[]; d: number[]; n: number }, eps: number, p: number): unknown {
  const last = c.values.length - 1;
  if (p <= eps) return c.values[0];
  if (p >= 1 - eps) return c.values[last];
  const rank = Math.ceil(p * c.n);
  let targetError = 0;
  for (let i = 0; i <= last; i++) targetError = Math.max(targetError, c.d[i] + c.g[i]);
  targetError = Math.floor(targetError / 2);
  let minRank = 0;
  for (let i = 0; i < last; i++) {
    minRank += c.g[i];
    const maxRank = minRank + c.d[i];
    if (maxRank - targetError <= rank && rank <= minRank + targetError) return c.values[i];
  }
  return c.values[last];
}

export const PERCENTILE_NAMES = ['percentile_approx', 'approx_percentile'];

/** percentile_approx(x, p[, accuracy]); `ps` one percentage (a value result) or several (an array). */
export function percentileApprox(
  name: string,
  ps: number | number[],
  accuracy: number,
  shape: Pick<AggregateFunction, 'resultType' | 'resultDecimal' | 'resultShape'>,
): AggregateFunction {
  return {
    name, ...shape, op: QUANTILES,
    init: (): Sketch => ({ values: [], g: [], d: [], pending: [], n: 0, accuracy }),
    result: (b) => {
      const s = b as Sketch;
      const count = s.n + s.pending.length;
      if (count === 0) return null;
      // Before the first flush, and while 2·count/accuracy < 1, every sample would be exact
      // (g 1, delta 0) and nothing would be compressed: the answer is the sorted values' ⌈p·n⌉-th.
      if (s.n === 0 && 2 * count < accuracy) {
        const at = (p: number) => s.pending[Math.min(count, Math.max(1, Math.ceil(p * count))) - 1];
        return Array.isArray(ps) ? ps.map(at) : at(ps);
      }
      const c = sketchCompressed(s);
      const at = (p: number) => sketchQuantile(c, 1 / accuracy, p);
      return Array.isArray(ps) ? ps.map(at) : at(ps);
    },
  };
}

/**
 * histogram_numeric's buffer: Spark's NumericHistogram (Ben-Haim and Tom-Tov's streaming
 * histogram, by way of Hive) as one array, `[nb, prng, x0, y0, x1, y1, …]`: at most nb bins
 * (x the bin's centre, y its count) in ascending x, and the state of the java.util.Random
 * (seeded 31183) that breaks ties between equally close pairs of bins. A value equal to a bin's
 * centre counts in that bin; any other value is a new bin, and past nb bins the two closest
 * are merged into their weighted mean. Spark starts the random generator afresh with each
 * buffer it deserializes; Weir keeps its state in the buffer, so the bins depend only on the
 * values and their order, never on batch boundaries or restarts.
 */
function histogramAdd(b: number[], v: number): void {
  const used = (b.length - 2) >> 1;
  // Binary search as NumericHistogram.add: `bin` is where v goes, or the bin equal to v.
  let bin = 0;
  for (let l = 0, r = used; l < r;) {
    bin = (l + r) >> 1;
    const x = b[2 + 2 * bin];
    if (x > v) r = bin;
    else if (x < v) l = ++bin;
    else break;
  }
  if (bin < used && b[2 + 2 * bin] === v) {
    b[3 + 2 * bin]++;
    return;
  }
  b.splice(2 + 2 * bin, 0, v, 1);
  if (used + 1 > b[0]) histogramTrim(b);
}

/** NumericHistogram.trim: merges the closest pair of bins until nb are left (a tie: each pair alike likely, by the generator). */
function histogramTrim(b: number[]): void {
  const x = (i: number) => b[2 + 2 * i], y = (i: number) => b[3 + 2 * i];
  for (let used = (b.length - 2) >> 1; used > b[0]; used--) {
    let smallest = x(1) - x(0);
    let at = 0, ties = 1;
    for (let i = 1; i < used - 1; i++) {
      const diff = x(i + 1) - x(i);
      if (diff < smallest) {
        smallest = diff;
        at = i;
        ties = 1;
      } else if (diff === smallest && javaRandomNextDouble(b) <= 1 / ++ties) {
        at = i;
      }
    }
    // The merged centre in Spark's order of operations, so that it rounds as Spark's does.
    const d = y(at) + y(at + 1);
    let centre = x(at) * (y(at) / d);
    centre += (x(at + 1) / d) * y(at + 1);
    b[2 + 2 * at] = centre;
    b[3 + 2 * at] = d;
    b.splice(4 + 2 * at, 2);
  }
}

const RANDOM_MULTIPLIER = 0x5deece66dn, RANDOM_MASK = (1n << 48n) - 1n;
/** java.util.Random's state after `new Random(31183)`, NumericHistogram's seed. */
const HISTOGRAM_SEED = Number((31183n ^ RANDOM_MULTIPLIER) & RANDOM_MASK);

/** java.util.Random.nextDouble over the 48-bit state kept in `b[1]` (called only on a tie). */
function javaRandomNextDouble(b: number[]): number {
  let seed = BigInt(b[1]);
  seed = (seed * RANDOM_MULTIPLIER + 0xbn) & RANDOM_MASK;
  const high = Number(seed >> 22n); // next(26)
  seed = (seed * RANDOM_MULTIPLIER + 0xbn) & RANDOM_MASK;
  const low = Number(seed >> 21n); // next(27)
  b[1] = Number(seed);
  return (high * 2 ** 27 + low) / 2 ** 53;
}

/**
 * histogram_numeric(x, nb): an ARRAY of STRUCT<x, y>, a bin's centre `x` of x's own type (Spark
 * 3.3+: a centre of integers truncated to an integer) and its count `y` a DOUBLE; NULL for no
 * values. `toDouble` reads a value as Spark's double (a timestamp in microseconds), `fromDouble`
 * makes a centre a value of x's type again.
 */
export function histogramNumeric(
  nb: number,
  toDouble: (v: unknown) => number,
  fromDouble: (x: number) => unknown,
  shape: Pick<AggregateFunction, 'resultType' | 'resultShape'>,
): AggregateFunction {
  return {
    name: 'histogram_numeric', ...shape, op: HISTOGRAM,
    prepare: (v) => (v === null || v === undefined ? null : toDouble(v)),
    init: () => [nb, HISTOGRAM_SEED],
    result: (buffer) => {
      const b = buffer as number[];
      if (b.length === 2) return null;
      const bins: { x: unknown; y: number }[] = [];
      for (let i = 2; i < b.length; i += 2) bins.push({ x: fromDouble(b[i]), y: b[i + 1] });
      return bins;
    },
  };
}

