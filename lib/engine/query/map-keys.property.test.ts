/**
 * A map key's text is reversible and is one text per key by Spark's equality of map keys: over
 * random keys of random types (numbers with -0.0, NaN and the infinities, strings holding the
 * text's own punctuation, decimals, dates, bytes, intervals, and arrays and structs of them
 * nested, with NULLs inside), the text reads back as the key, and two keys have one text exactly
 * when they are equal (ArrayBasedMapBuilder's normalization: -0.0 is 0.0, NaN is NaN).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TypeInfo } from './data-types';
import { mapKeyText, mapKeyValue } from './map-keys';

const STRINGS = fc.oneof(fc.string(), fc.constantFrom('', 'null', '"', '\\', '[1,2]', ',', ']', '\u0000', '\ud800', 'a"b,c]'));
const DOUBLES = fc.oneof(fc.double(), fc.constantFrom(0, -0, Number.NaN, Infinity, -Infinity, 1e21, 1.5));

/** A key type (depth-bounded) with an arbitrary of its values. */
interface Typed { t: TypeInfo; value: fc.Arbitrary<unknown> }

const leaf: fc.Arbitrary<Typed> = fc.constantFrom<Typed>(
  { t: { type: 'string' }, value: STRINGS },
  { t: { type: 'long', integral: 32 }, value: fc.integer() },
  { t: { type: 'long' }, value: fc.maxSafeInteger() },
  { t: { type: 'double' }, value: DOUBLES },
  { t: { type: 'boolean' }, value: fc.boolean() },
  { t: { type: 'decimal', decimal: { precision: 20, scale: 3 } }, value: fc.bigInt({ min: -(10n ** 20n) + 1n, max: 10n ** 20n - 1n }) },
  { t: { type: 'date' }, value: fc.integer({ min: -719_162, max: 2_932_896 }) },
  { t: { type: 'binary' }, value: fc.uint8Array({ maxLength: 6 }) },
  { t: { type: 'day_time_interval' }, value: fc.integer({ min: -(2 ** 50), max: 2 ** 50 }) },
  { t: { type: 'year_month_interval' }, value: fc.integer({ min: -(2 ** 31) + 1, max: 2 ** 31 - 1 }) },
);

const orNull = (v: fc.Arbitrary<unknown>) => fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: v });

const typed: fc.Arbitrary<Typed> = fc.letrec<{ node: Typed }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    tie('node').map((e): Typed => ({ t: { type: 'array', elementType: { name: 'element', ...e.t } as never }, value: fc.array(orNull(e.value), { maxLength: 3 }) })),
    fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((fs): Typed => ({
      t: { type: 'struct', fields: fs.map((f, i) => ({ name: i === 0 ? '__proto__' : `f${i}`, ...f.t }) as never) },
      value: fc.tuple(...fs.map((f) => orNull(f.value))).map((vs) => Object.fromEntries(vs.map((v, i) => [i === 0 ? '__proto__' : `f${i}`, v]))),
    })),
  ),
})).node;

/** A key as Spark's map builder compares it: -0.0 is 0.0, bytes are bytes. */
function normalized(v: unknown): unknown {
  if (Object.is(v, -0)) return 0;
  if (v instanceof Uint8Array) return [...v];
  if (Array.isArray(v)) return v.map(normalized);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalized(x)]));
  return v;
}

/** The key with every 0.0 made -0.0 (an equal key). */
function negativeZeros(v: unknown): unknown {
  if (v === 0) return -0;
  if (Array.isArray(v)) return v.map(negativeZeros);
  if (v !== null && typeof v === 'object' && !(v instanceof Uint8Array)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, negativeZeros(x)]));
  return v;
}

const twoKeys = typed.chain(({ t, value }) => fc.record({ t: fc.constant(t), a: value, b: value }));

describe('a map key text', () => {
  it('reads back as the key', () => {
    fc.assert(fc.property(typed.chain(({ t, value }) => fc.record({ t: fc.constant(t), k: value })), ({ t, k }) => {
      fc.pre(k !== null);
      const text = mapKeyText(k, t);
      expect(normalized(mapKeyValue(text, t))).toEqual(normalized(k));
      // An integral DOUBLE key reads back a number, never as another type.
      if (t.type === 'double') expect(typeof mapKeyValue(text, t)).toBe('number');
    }), { numRuns: 2000 });
  });

  it('is one text for equal keys and two texts for different ones', () => {
    fc.assert(fc.property(twoKeys, ({ t, a, b }) => {
      fc.pre(a !== null && b !== null);
      expect(mapKeyText(negativeZeros(a), t)).toBe(mapKeyText(a, t));
      const exact = (_k: string, v: unknown) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'number' && !Number.isFinite(v) ? String(v) : v);
      const equal = JSON.stringify(normalized(a), exact) === JSON.stringify(normalized(b), exact);
      expect(mapKeyText(a, t) === mapKeyText(b, t)).toBe(equal);
    }), { numRuns: 2000 });
  });

  it('is no key of the type for text that does not read as one', () => {
    const arr: TypeInfo = { type: 'array', elementType: { name: 'element', type: 'long', integral: 32 } };
    for (const bad of ['[1,', '1,2]', '[1]x', '[a]', '["1"']) expect(mapKeyValue(bad, arr)).toBeNull();
    const st: TypeInfo = { type: 'struct', fields: [{ name: 'a', type: 'long' }] };
    expect(mapKeyValue('[1,2]', st)).toBeNull();
    expect(mapKeyValue('[]', st)).toBeNull();
    expect(mapKeyValue('[1]', st)).toEqual({ a: 1 });
  });
});
