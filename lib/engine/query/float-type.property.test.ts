/**
 * Spark's FLOAT through the engine, against an exact oracle: each float as the integer n with
 * value n * 2^-149, the exact sum, difference, product or remainder in BigInt, rounded to the
 * nearest float (ties to even, subnormals and overflow to an infinity included) by hand, at the
 * edges where floats round (2^24), go subnormal (2^-126) and overflow (2^128); then Spark's typing
 * (literals, typeof, FLOAT beside the other numbers), casts and Java's Float.toString.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row, Schema } from '../types';
import { compileStreamingQuery } from './streaming-query';
import { floatFromLong, formatFloat } from './float';
import { propertyRuns } from '../../testing/property-runs';
import { StatefulQueryRunner } from './testing/stateful-test-harness';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { columnField } from '../spec/source-schema';
import { convertValue } from '../sources/value-conversion';
import { JsonLineParser } from '../operators/record-parser';
import { decodeValue, encodeValue } from '../state/state-value-codec';
import { eventsQuery } from './testing/events-query';
import { jsonWriter, renderText } from '../sinks/row-rendering';
import { previewQuery } from '../execution/query-preview';
import { parseJobSpec } from '../spec/job-spec';

const FLOAT_MAX = 3.4028234663852886e38;

/** The float nearest to n / 2^s (ties to even), as IEEE single precision rounds; an exact 0 is `zero`. */
function roundDyadic(n: bigint, s: number, zero = 0): number {
  if (n === 0n) return zero;
  const negative = n < 0n;
  const m = negative ? -n : n;
  const top = m.toString(2).length - 1 - s;
  // The last bit kept: 24 bits of a normal float, down to 2^-149 for a subnormal.
  const lowest = Math.max(top - 23, -149);
  const drop = lowest + s;
  let q: bigint;
  if (drop > 0) {
    const d = BigInt(drop);
    q = m >> d;
    const rest = m - (q << d);
    const half = 1n << (d - 1n);
    if (rest > half || (rest === half && (q & 1n) === 1n)) q += 1n;
  } else {
    q = m << BigInt(-drop);
  }
  const r = Number(q) * 2 ** lowest;
  const x = r > FLOAT_MAX ? Infinity : r;
  return negative ? -x : x;
}

const exact = (f: number) => BigInt(f * 2 ** 149);
const negative = (f: number) => f < 0 || Object.is(f, -0);
/** IEEE's signed zeros: a product's sign is the operands' xor; an exact sum is +0 unless both are -0. */
const productZero = (a: number, b: number) => (negative(a) !== negative(b) ? -0 : 0);

/** Floats clustered where they round, go subnormal and overflow. */
const float: fc.Arbitrary<number> = fc.oneof(
  fc.float({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: 2 ** 24 - 8, max: 2 ** 24 + 8 }).map(Math.fround),
  fc.float({ min: Math.fround(2 ** -130), max: Math.fround(2 ** -120), noNaN: true }),
  fc.float({ min: Math.fround(FLOAT_MAX / 2), max: Math.fround(FLOAT_MAX), noNaN: true }),
  fc.integer({ min: -20, max: 20 }).map((i) => Math.fround(i / 8)),
).map((f) => (f === 0 ? 0 : f));

const SCHEMA: Schema = [
  { name: 'f', type: 'double', float32: true }, { name: 'g', type: 'double', float32: true },
  { name: 'i', type: 'long', integral: 32 }, { name: 'l', type: 'long' }, { name: 'd', type: 'double' },
  { name: 'dec', type: 'decimal', precision: 10, scale: 2 }, { name: 's', type: 'string' },
];
const { rel, run } = eventsQuery(SCHEMA);

describe('FLOAT arithmetic (IEEE single precision, as the JVM)', () => {
  it('+, -, *, % of FLOATs, and of a FLOAT with an INT or a BIGINT, equal the exact oracle rounded once', async () => {
    const q = compileStreamingQuery(
      'SELECT f + g AS add, f - g AS sub, f * g AS mul, f % g AS rem, -f AS neg, f + i AS fi, l * f AS lf, f / g AS div FROM events', rel as never);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(float, float, fc.integer(), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })), { minLength: 1, maxLength: 30 }), async (rows) => {
        let out: Row[] = rows.map(([f, g, i, l]) => ({ f, g, i, l: Number.isSafeInteger(Number(l)) ? Number(l) : l }));
        for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
        rows.forEach(([f, g, i, l], k) => {
          const [a, b] = [exact(f), exact(g)];
          const li = roundDyadic(BigInt(l), 0);
          expect(out[k]).toEqual({
            add: roundDyadic(a + b, 149, Object.is(f, -0) && Object.is(g, -0) ? -0 : 0), sub: roundDyadic(a - b, 149, Object.is(f, -0) && g === 0 && !Object.is(g, -0) ? -0 : 0),
            mul: roundDyadic(a * b, 298, productZero(f, g)), rem: b === 0n ? null : roundDyadic(a % b, 149, negative(f) ? -0 : 0), neg: -f,
            fi: roundDyadic(a + exact(roundDyadic(BigInt(i), 0)), 149), lf: roundDyadic(exact(li) * a, 298, productZero(li, f)),
            div: g === 0 ? null : f / g,
          });
        });
      }),
      { numRuns: propertyRuns(100, 2000) },
    );
  });

  it('an integer as a FLOAT is the nearest float, ties to even (exact past 2^53)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.bigInt({ min: 2n ** 24n - 9n, max: 2n ** 24n + 9n }), fc.bigInt({ min: 2n ** 60n - 2n ** 36n, max: 2n ** 60n + 2n ** 36n })), (b) => {
        const v = Number.isSafeInteger(Number(b)) ? Number(b) : b;
        expect(floatFromLong(v)).toBe(roundDyadic(b, 0));
      }),
      { numRuns: propertyRuns(500, 20000) },
    );
  });

  it("prints as Java's Float.toString: the shortest text that reads back as the float", () => {
    fc.assert(
      fc.property(float, (f) => {
        const t = formatFloat(f);
        expect(Math.fround(Number(t))).toBe(f);
        const digits = t.replace(/^-/, '').replace(/E.*$/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
        // No text of fewer significant digits reads back as f (two are allowed where one would do).
        if (digits.length > 2) expect(Math.fround(Number(Math.abs(f).toPrecision(digits.length - 1)))).not.toBe(Math.abs(f));
        expect(t).toMatch(Math.abs(f) >= 1e-3 && Math.abs(f) < 1e7 ? /^-?\d+\.\d+$/ : /^-?\d\.\d+E-?\d+$|^-?0\.0$/);
      }),
      { numRuns: propertyRuns(1000, 50000) },
    );
  });
});

/**
 * The reference for Java's Float.toString (JDK 19+): of the decimals that round to f, those of the
 * fewest digits m (of one or two digits when m is 1), the one closest to f, a tie to the even last
 * digit. Candidates of p digits are the nearest p-digit decimal and its two neighbours; closeness
 * is compared exactly, in BigInt. The answer as [digits without trailing zeros, exponent of the last digit].
 */
function shortestFloatDecimal(f: number): [bigint, number] {
  const a = Math.abs(f);
  const exactScaled = BigInt(a * 2 ** 149) * 10n ** 100n;
  const candidates = (p: number): [bigint, number][] => {
    const [mantissa, e] = a.toExponential(p - 1).split('e');
    const d = BigInt(mantissa.replace('.', ''));
    const k = Number(e) - (p - 1);
    return [d - 1n, d, d + 1n].filter((c) => c > 0n && Math.fround(Number(`${c}e${k}`)) === a).map((c) => [c, k]);
  };
  const distance = ([c, k]: [bigint, number]) => {
    const diff = c * 10n ** BigInt(k + 100) * 2n ** 149n - exactScaled;
    return diff < 0n ? -diff : diff;
  };
  for (let p = 1; p <= 9; p++) {
    const t = candidates(p);
    if (t.length === 0) continue;
    if (p === 1) t.push(...candidates(2));
    t.sort((x, y) => {
      const dx = distance(x), dy = distance(y);
      if (dx !== dy) return dx < dy ? -1 : 1;
      return Number(x[0] % 2n) - Number(y[0] % 2n);
    });
    let [c, k] = t[0];
    while (c % 10n === 0n) { c /= 10n; k += 1; }
    return [c, k];
  }
  throw new Error(`no decimal of 9 digits reads back as ${f}`);
}

describe('FLOAT text against the shortest-decimal reference', () => {
  it('formatFloat picks the decimal Java picks', () => {
    // Exactly halfway between 1625397.2 and 1625397.3: the even last digit, as Java's spec says.
    expect(formatFloat(1625397.25)).toBe('1625397.2');
    expect(formatFloat(1625397.75)).toBe('1625397.8');
    fc.assert(
      fc.property(fc.oneof(float, fc.float({ noNaN: true, noDefaultInfinity: true })), (f) => {
        fc.pre(f !== 0);
        const m = /^-?(\d+)\.(\d+)(?:E(-?\d+))?$/.exec(formatFloat(f));
        expect(m).not.toBeNull();
        let digits = BigInt(m![1] + m![2]);
        let k = Number(m![3] ?? 0) - m![2].length;
        while (digits % 10n === 0n) { digits /= 10n; k += 1; }
        expect([digits, k]).toEqual(shortestFloatDecimal(f));
      }),
      { numRuns: propertyRuns(2000, 100000) },
    );
  });

  it('the sinks, to_json and the preview write a FLOAT as that text', async () => {
    const field = { name: 'x', type: 'double', float32: true } as const;
    const v = Math.fround(1.1);
    expect(renderText(v, field)).toBe('1.1');
    const schema: Schema = [field, { name: 'a', type: 'array', elementType: { name: 'element', type: 'double', float32: true } }];
    const w = jsonWriter(schema);
    // NaN as Jackson writes a non-finite number by default: the string "NaN".
    expect(w.stringify(w.row({ x: v, a: [Math.fround(0.1), 1e7, NaN] }))).toBe('{"x":1.1,"a":[0.1,1.0E7,"NaN"]}');
    expect(renderText([Math.fround(0.1)], schema[1])).toBe('[0.1]');
    expect(await run('SELECT to_json(named_struct(\'f\', CAST(1.1 AS FLOAT), \'d\', 1.1D)) AS j FROM events', [{}])).toEqual([{ j: '{"f":1.1,"d":1.1}' }]);
    const parsed = parseJobSpec({
      name: 'floats', source: { name: 'events', type: 'memory', options: { stream: 'floats' }, schema: 'x FLOAT' },
      sql: 'SELECT x, x * 2 AS y FROM events', sink: { type: 'memory', options: { table: 'floats' } }, checkpointLocation: 'memory://floats',
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const p = await previewQuery(parsed.spec, [{ x: 1.1 }]);
    expect(p.rows).toEqual([{ x: '1.1', y: '2.2' }]);
  });
});

describe("Spark's FLOAT end to end", () => {
  const one = async (sql: string, row: Row = { f: 1.5, g: 2, i: 3, l: 4, d: 0.5, dec: 125n, s: '0.1' }) => (await run(`SELECT ${sql} FROM events`, [row]))[0];

  it('types literals, casts and operators as Spark', async () => {
    expect(await one(`typeof(1.5F) AS a, typeof(CAST(1 AS FLOAT)) AS b, typeof(float('1')) AS c, typeof(CAST(1 AS REAL)) AS e,
      typeof(f + i) AS g, typeof(f * l) AS h, typeof(f + d) AS k, typeof(f + dec) AS m, typeof(f / g) AS n, typeof(f % i) AS o,
      typeof(-f) AS p, typeof(coalesce(f, i)) AS q, typeof(CASE WHEN true THEN f ELSE 1 END) AS r, typeof(array(f, 1)) AS t,
      typeof(CAST(f AS DOUBLE)) AS u, typeof(greatest(f, i)) AS v, typeof(try_add(f, i)) AS w`)).toEqual({
      a: 'float', b: 'float', c: 'float', e: 'float', g: 'float', h: 'float', k: 'double', m: 'double', n: 'double', o: 'float',
      p: 'float', q: 'float', r: 'float', t: 'array<float>', u: 'double', v: 'float', w: 'float',
    });
  });

  it('rounds to single precision and prints as Java does', async () => {
    expect(await one(`CAST(1.1F AS STRING) AS a, CAST(CAST(0.1 AS FLOAT) AS DOUBLE) AS b, CAST(s AS FLOAT) AS c, 0.1F + 0.2F AS d,
      CAST(16777217 AS FLOAT) AS e, CAST(1e7F AS STRING) AS g, CAST(100F AS STRING) AS h, CAST(1e40D AS FLOAT) AS k,
      concat(CAST(0.1 AS FLOAT), '') AS m, 1.5F || 'x' AS n, CAST(0.1F AS DOUBLE) = 0.1D AS o, 0.1F = 0.1F AS p,
      CAST(16777217 AS FLOAT) = 16777217 AS q, CAST(f AS DECIMAL(5, 2)) AS r, CAST(2.5F AS INT) AS t, CAST(CAST(0.1 AS FLOAT) AS STRING) AS u`)).toEqual({
      a: '1.1', b: 0.10000000149011612, c: Math.fround(0.1), d: Math.fround(Math.fround(0.1) + Math.fround(0.2)), e: 16777216,
      g: '1.0E7', h: '100.0', k: Infinity, m: '0.1', n: '1.5x', o: false, p: true, q: true, r: 150n, t: 2, u: '0.1',
    });
  });

  it('reads a FLOAT field of JSON and casts arrays of FLOATs element by element', async () => {
    expect(await one(`from_json('{"x": 0.1}', 'x FLOAT').x AS a, typeof(from_json('{"x": 0.1}', 'x FLOAT').x) AS b,
      CAST(array(CAST(0.1 AS FLOAT)) AS ARRAY<STRING>) AS c, CAST(array(0.1D, 16777217D) AS ARRAY<FLOAT>) AS d, CAST(array(16777217) AS ARRAY<FLOAT>) AS e`)).toEqual({
      a: Math.fround(0.1), b: 'float', c: ['0.1'], d: [Math.fround(0.1), 16777216], e: [16777216],
    });
  });

  it('sums and averages as DOUBLE, keeps FLOAT for min, max and group keys', async () => {
    const sql = 'SELECT f, sum(g) AS s, avg(g) AS a, max(g) AS mx, min(g) AS mn FROM events GROUP BY f';
    expect(compileStreamingQuery(sql, rel as never, { outputMode: 'complete' }).outputSchema).toEqual([
      { name: 'f', type: 'double', float32: true, nullable: true }, { name: 's', type: 'double', nullable: true },
      { name: 'a', type: 'double', nullable: true }, { name: 'mx', type: 'double', float32: true, nullable: true },
      { name: 'mn', type: 'double', float32: true, nullable: true },
    ]);
    const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, rel as never, 'complete');
    await q.runBatch([{ f: 0.5, g: Math.fround(0.1) }, { f: 0.5, g: Math.fround(0.2) }]);
    const { output } = await q.runBatch([{ f: 0.5, g: Math.fround(0.3) }]);
    const sum = Math.fround(0.1) + Math.fround(0.2) + Math.fround(0.3);
    expect(output).toEqual([{ f: 0.5, s: sum, a: sum / 3, mx: Math.fround(0.3), mn: Math.fround(0.1) }]);
  });

  it('reads a FLOAT source column as the nearest float, and keeps floats exactly in state', () => {
    expect(columnField('x', 'FLOAT')).toEqual({ name: 'x', type: 'double', float32: true });
    expect(columnField('x', 'real')).toEqual({ name: 'x', type: 'double', float32: true });
    expect(columnField('x', 'array<float>')).toEqual({ name: 'x', type: 'array', elementType: { name: 'element', type: 'double', float32: true, nullable: true } });
    const field = { name: 'x', type: 'double', float32: true } as const;
    expect(convertValue(0.1, field)).toEqual({ ok: true, value: Math.fround(0.1) });
    expect(convertValue('0.1', field)).toEqual({ ok: true, value: Math.fround(0.1) });
    expect(new JsonLineParser([field]).parse('{"x": 0.1}')).toMatchObject({ ok: true, row: { x: Math.fround(0.1) } });
    expect(new JsonLineParser([field]).parse('{"x": 0.5}')).toMatchObject({ ok: true, row: { x: 0.5 } });
    fc.assert(fc.property(float, (f) => { expect(decodeValue(encodeValue(f))).toBe(f); }), { numRuns: propertyRuns(200, 5000) });
  });
});
