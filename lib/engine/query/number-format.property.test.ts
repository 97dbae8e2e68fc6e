/**
 * Property tests of Spark's number formats (number-format.ts): what to_char prints by a format,
 * to_number reads back by the same format, for every value the format can hold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatNumber, numberFormat, parseNumber, type NumberFormat } from './number-format';

const FORMATS = ['99,999S', 'S00000.00', '$99,999.9PR', '999G999D99MI', '9.999', '$0,000'];

const fmt = (f: string): NumberFormat => {
  const nf = numberFormat(f);
  if (typeof nf === 'string') throw new Error(nf);
  return nf;
};

/** The digits of `unscaled / 10^scale` as to_char takes them. */
function digits(unscaled: bigint, scale: number): { int: string; frac: string; neg: boolean } {
  const s = (unscaled < 0n ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  return { int: s.slice(0, s.length - scale), frac: s.slice(s.length - scale), neg: unscaled < 0n };
}

describe("Spark's number formats", () => {
  for (const f of FORMATS) {
    it(`to_number(to_char(x, '${f}'), '${f}') is x`, () => {
      const nf = fmt(f);
      const intDigits = nf.precision - nf.scale;
      const signed = /S|MI|PR/.test(f);
      fc.assert(
        // Not 0: Spark prints a zero integer part as no digits at all, which reads back as nothing.
        fc.property(fc.bigInt({ min: signed ? -(10n ** BigInt(nf.precision)) + 1n : 1n, max: 10n ** BigInt(nf.precision) - 1n }).filter((v) => v !== 0n), (v) => {
          const d = digits(v, nf.scale);
          const text = formatNumber(d.int, d.frac, d.neg, nf);
          // A leading-zero run is exact: the text always has all its digits.
          expect(text).not.toContain('#');
          expect(parseNumber(text, nf), `${text} (${intDigits} integer digits)`).toBe(v);
        }),
        { numRuns: 200, seed: 4242 },
      );
    });
  }

  it('prints # for a value with more digits than the format, and refuses it back', () => {
    const nf = fmt('99.9');
    expect(formatNumber('123', '', false, nf)).toBe('##.#');
    expect(parseNumber('123', nf)).toBeUndefined();
    expect(formatNumber('1', '25', false, nf)).toBe('##.#');
  });

  it('prints zero as Spark does: no integer digits unless the format asks for zeros', () => {
    expect(formatNumber('0', '', false, fmt('999'))).toBe('   ');
    expect(formatNumber('0', '', false, fmt('000'))).toBe('000');
    expect(formatNumber('0', '5', false, fmt('9.9'))).toBe('0.5');
    expect(formatNumber('0', '', false, fmt('99S'))).toBe('+  ');
  });
});
