/**
 * Regular expressions from user SQL (rlike, regexp_extract) run on RE2 (`re2-wasm`), never on
 * JavaScript's backtracking RegExp: RE2 matches in time linear in the value (times the
 * pattern's size), so no pattern can hold the event loop on one record.
 *
 * Differences from Spark's Java regular expressions: RE2 has no backreferences (`\1`, `\k<n>`),
 * no lookahead or lookbehind (`(?=`, `(?!`, `(?<=`, `(?<!`), no possessive quantifiers and no
 * atomic groups; a repetition count is at most 100 (200 for all of a pattern's counts
 * together). Such a pattern is refused at validation
 * (a literal pattern) or makes the record bad (a pattern read from a column). Matching is on
 * code points (`.` is one character, also outside the Basic Multilingual Plane), and `.` does
 * not match a line break unless the pattern says `(?s)`, as in Java.
 */
import { RE2 } from 're2-wasm';
import { RecordExpressionError } from '../errors';

/**
 * Compiled patterns by text. re2-wasm's compiled programs live in WebAssembly memory, which
 * JavaScript's garbage collector does not reclaim (the package predates FinalizationRegistry),
 * so the cache is bounded and frees what it drops.
 */
const cache = new Map<string, RE2 | string>();
const CACHE_SIZE = 100;

function free(re: RE2 | string): void {
  if (typeof re !== 'string') (re as unknown as { wrapper?: { delete?(): void } }).wrapper?.delete?.();
}

/**
 * Counted repetitions make RE2's program large, and re2-wasm then slows down by orders of
 * magnitude (`[a-z]{1000}[a-z]{1000}c` took 78 s over 16 KiB here; `[a-z]{200}c` 23 ms over
 * 1 MiB). Each bound is at most MAX_REPEAT and all bounds together at most MAX_REPEAT_TOTAL.
 */
const MAX_REPEAT = 100;
const MAX_REPEAT_TOTAL = 200;

function repetitionProblem(pattern: string): string | undefined {
  let total = 0;
  // No nested quantifier over user text here: this scan is linear.
  for (const m of pattern.matchAll(/\\.|\{(\d+)(?:,(\d*))?\}/gs)) {
    if (m[1] === undefined) continue;
    const bound = Math.max(Number(m[1]), m[2] ? Number(m[2]) : 0);
    if (bound > MAX_REPEAT) return `the repetition ${m[0]} is over ${MAX_REPEAT}`;
    total += bound;
  }
  return total > MAX_REPEAT_TOTAL ? `its repetition counts add up to ${total}, over ${MAX_REPEAT_TOTAL}` : undefined;
}

/**
 * The compiled pattern, or RE2's reason for refusing it (with what to do about it). `gu`: the
 * global program, which matches from `lastIndex` (split walks a value with it).
 */
export function compileRegex(pattern: string, flags: 'u' | 'gu' = 'u'): RE2 | string {
  const key = flags === 'u' ? pattern : `${flags}/${pattern}`;
  let re = cache.get(key);
  if (re === undefined) {
    try {
      const problem = repetitionProblem(pattern);
      if (problem) throw new Error(problem);
      re = new RE2(pattern, flags);
    } catch (e) {
      const reason = (e as Error).message.replace(/^Invalid regular expression: \/.*\/u: /s, '');
      re =
        `the regular expression '${pattern.length > 200 ? pattern.slice(0, 200) + '…' : pattern}' is not supported: ${reason}. ` +
        'Patterns run on RE2, which has no backreferences (\\1), lookahead or lookbehind ((?=, (?!, (?<=, (?<!) and Weir allows repetition counts up to 100 each, 200 in all; rewrite the pattern without them';
    }
    if (cache.size >= CACHE_SIZE) {
      for (const old of cache.values()) free(old);
      cache.clear();
    }
    cache.set(key, re);
  }
  return re;
}

/**
 * The program of a pattern compiled at run time (read from a column), for function `fn`: a pattern
 * RE2 refuses makes the record bad, with RE2's reason.
 */
export function recordRegex(fn: string, pattern: string): RE2 {
  const re = compileRegex(pattern);
  if (typeof re === 'string') throw new RecordExpressionError(`${fn}: ${re}`, { function: fn });
  return re;
}

/** The global (`gu`) program regexMatches walks; a refused pattern is refused as by recordRegex. */
export function globalRegex(fn: string, pattern: string): RE2 {
  recordRegex(fn, pattern);
  return compileRegex(pattern, 'gu') as RE2;
}

/** One match of regexMatches: its groups, and where it is in the string in UTF-16 code units. */
export interface RegexMatch {
  groups: NonNullable<ReturnType<RE2['exec']>>;
  /** Code-unit offsets, for String.slice. */
  start: number;
  end: number;
}

/**
 * Every non-overlapping match of a global (`gu`) program in `s`, left to right, as Java's
 * Matcher.find() walks: after an empty match the search steps one character on (never half a
 * surrogate pair). re2-wasm reports `index` and reads `lastIndex` in code points, but after a
 * match sets `lastIndex` to the index plus the match's UTF-16 length, which skips a character
 * after a match with an emoji in it; so this walks in code points and gives code-unit offsets.
 */
export function* regexMatches(re: RE2, s: string): Generator<RegexMatch> {
  const wide = /[\uD800-\uDFFF]/.test(s);
  const n = wide ? [...s].length : s.length;
  // Code-unit offsets of code points, counted on from the last match.
  let cp = 0;
  let cu = 0;
  const unitOf = (target: number) => {
    if (!wide) return target;
    for (; cp < target && cu < s.length; cp++) cu += s.codePointAt(cu)! > 0xffff ? 2 : 1;
    return cu;
  };
  re.lastIndex = 0;
  for (;;) {
    const m = re.exec(s);
    if (m === null) return;
    const whole = m[0] ?? '';
    const len = wide ? [...whole].length : whole.length;
    const start = unitOf(m.index);
    yield { groups: m, start, end: start + whole.length };
    if (len === 0 && m.index >= n) return;
    re.lastIndex = m.index + Math.max(len, 1);
  }
}

/** Capturing groups of a valid pattern: `(?:p)|` always matches '' and reports every group. */
function regexGroupCount(pattern: string): number {
  const re = compileRegex(`(?:${pattern})|`);
  return typeof re === 'string' ? 0 : (re.exec('')?.length ?? 1) - 1;
}

/**
 * A regexp function's check at validation: a literal pattern (its second argument) RE2 refuses,
 * or a literal group index (its third) the pattern does not have.
 */
export const regexLiterals =
  (fn: string) =>
  (lits: unknown[]): string | undefined => {
    const [, pattern, idx] = lits;
    if (typeof pattern !== 'string') return undefined;
    const re = compileRegex(pattern);
    if (typeof re === 'string') return `${fn}: ${re}`;
    if (typeof idx === 'number') {
      const groups = regexGroupCount(pattern);
      if (idx < 0 || idx > groups) return `${fn}: group index ${idx} is out of range; the pattern has ${groups} group(s) (0 is the whole match)`;
    }
    return undefined;
  };
