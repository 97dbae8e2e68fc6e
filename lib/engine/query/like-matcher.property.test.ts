/**
 * The LIKE matcher against a reference: a plain dynamic-programming matcher over code points,
 * written for obviousness rather than speed. Random short patterns and values from a small
 * alphabet (with %, _, the escape character, a character outside the BMP and both cases) must
 * agree; then the pattern that made a backtracking RegExp hold the event loop runs through the
 * whole SQL pipeline and gives the right answer.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileLike } from './like-matcher';
import { compileStreamingQuery } from './streaming-query';
import { propertyRuns } from '@/lib/testing/property-runs';

type Tok = { any: true } | { one: true } | { lit: string };

/** Reference: tokens, then dp[i][j] = pattern tokens from i match value code points from j. */
function referenceLike(value: string, pattern: string, escape = '\\', ci = false): boolean {
  const p = Array.from(pattern);
  const toks: Tok[] = [];
  for (let i = 0; i < p.length; i++) {
    if (p[i] === escape && i + 1 < p.length) toks.push({ lit: p[++i] });
    else if (p[i] === '%') toks.push({ any: true });
    else if (p[i] === '_') toks.push({ one: true });
    else toks.push({ lit: p[i] });
  }
  // Spark's ILIKE lower-cases both sides; literal text is lowered per character here and as runs
  // in the matcher, which agree for this alphabet.
  const v = Array.from(ci ? value.toLowerCase() : value);
  const lit = (t: string) => (ci ? t.toLowerCase() : t);
  const memo = new Map<string, boolean>();
  const m = (i: number, j: number): boolean => {
    const key = `${i},${j}`;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    let r: boolean;
    if (i === toks.length) r = j === v.length;
    else {
      const t = toks[i];
      if ('any' in t) r = m(i + 1, j) || (j < v.length && m(i, j + 1));
      else if ('one' in t) r = j < v.length && m(i + 1, j + 1);
      else r = j < v.length && v[j] === lit(t.lit) && m(i + 1, j + 1);
    }
    memo.set(key, r);
    return r;
  };
  return m(0, 0);
}

/** Whether Spark refuses the pattern: its escape character before other than _, % or itself, or at its end. */
function refused(pattern: string, escape = '\\'): boolean {
  const p = Array.from(pattern);
  for (let i = 0; i < p.length; i++) if (p[i] === escape && !['_', '%', escape].includes(p[++i])) return true;
  return false;
}

/** The matcher's answer, or 'refused' where it throws Spark's INVALID_FORMAT error. */
function answer(value: string, pattern: string, escape?: string, ci = false): boolean | 'refused' {
  try {
    return compileLike(pattern, { escape, caseInsensitive: ci })(value);
  } catch (e) {
    if (!/INVALID_FORMAT\.ESC_/.test((e as Error).message)) throw e;
    return 'refused';
  }
}

const patternArb = fc.string({ unit: fc.constantFrom('a', 'b', 'A', '%', '_', '\\', '!', '😀'), maxLength: 8 });
const valueArb = fc.string({ unit: fc.constantFrom('a', 'b', 'A', 'B', '%', '_', '\\', '!', '😀'), maxLength: 10 });

describe('LIKE matcher', () => {
  it('agrees with the dynamic-programming reference (default escape)', () => {
    fc.assert(
      fc.property(valueArb, patternArb, (v, p) => {
        expect(answer(v, p)).toBe(refused(p) ? 'refused' : referenceLike(v, p));
      }),
      { numRuns: propertyRuns(5000, 20_000), seed: 1717 },
    );
  });

  it('agrees with the reference for ILIKE and for another escape character', () => {
    fc.assert(
      fc.property(valueArb, patternArb, fc.boolean(), (v, p, ci) => {
        expect(answer(v, p, '!', ci)).toBe(refused(p, '!') ? 'refused' : referenceLike(v, p, '!', ci));
      }),
      { numRuns: propertyRuns(5000, 20_000), seed: 2718 },
    );
  });

  it('is not vacuous: the reference and the matcher both tell matches from non-matches', () => {
    const cases: [string, string, boolean][] = [
      ['abc', 'a%c', true], ['abc', 'a_c', true], ['ac', 'a_c', false], ['a😀c', 'a_c', true],
      ['a%c', 'a\\%c', true], ['abc', 'a\\%c', false], ['abc', '%b%', true], ['abc', '%d%', false],
      ['aXbXc', '%b_c', true], ['a\\b', 'a\\\\b', true],
    ];
    for (const [v, p, want] of cases) {
      expect(referenceLike(v, p)).toBe(want);
      expect(compileLike(p)(v)).toBe(want);
    }
    // Spark refuses an escape character before other than _, % or itself, and one at the end.
    expect(() => compileLike('ab\\')).toThrow(/INVALID_FORMAT\.ESC_AT_THE_END/);
    expect(() => compileLike('m%aca', { escape: '%' })).toThrow(/INVALID_FORMAT\.ESC_IN_THE_MIDDLE/);
  });

  it("runs the pathological '%a%a%a%a%a%a%b' over 60-character rows through SQL and answers right", async () => {
    const q = compileStreamingQuery("SELECT id FROM src WHERE name LIKE '%a%a%a%a%a%a%b'", {
      kind: 'StreamingRelation',
      sourceName: 'src',
      schema: [{ name: 'id', type: 'long' }, { name: 'name', type: 'string' }],
    });
    const rows = [
      { id: 1, name: 'a'.repeat(60) }, // a backtracking RegExp tries ~C(60,6) splits here
      { id: 2, name: 'a'.repeat(59) + 'b' },
      { id: 3, name: 'a'.repeat(30) + 'c'.repeat(30) },
      { id: 4, name: 'ab'.repeat(30) },
      { id: 5, name: 'a'.repeat(1 << 20) }, // a 1 MiB value
    ];
    let out: Record<string, unknown>[] = rows;
    for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
    expect(out.map((r) => r.id)).toEqual([2, 4]);
  });
});
