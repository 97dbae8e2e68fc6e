/**
 * Regular expressions from user SQL run on RE2, never on JavaScript's backtracking RegExp: RE2
 * matches in time linear in the value (times the pattern's size), so no pattern can hold the
 * event loop on one record.
 *
 * Two ports of RE2 are used, each where it is linear:
 * - one match per record (rlike, regexp_extract, regexp_instr, regexp_substr) runs on
 *   `re2-wasm` (Google's RE2 in WebAssembly: a DFA finds the match, so a large pattern stays
 *   fast). Each of its calls copies the whole value into WebAssembly memory and counts code
 *   points from the start, so it is never called once per match.
 * - every match of a value (regexp_replace, regexp_count, regexp_extract_all, split,
 *   str_to_map) walks the value once with one `re2js` Matcher (RE2 ported to JavaScript, reading
 *   the JavaScript string in place): a walk costs the value's length (times the pattern's size),
 *   not the value's length per match. re2-wasm there took 0.33, 1.2, 5.1 and 20 s for one
 *   record of 2.5k, 5k, 10k and 20k characters (`regexp_replace(repeat('a', N), 'a', 'b')`).
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
import { RE2JS } from 're2js';
import { RecordExpressionError } from '../errors';

/**
 * Compiled patterns by engine and text. re2-wasm's compiled programs live in WebAssembly memory,
 * which JavaScript's garbage collector does not reclaim (the package predates
 * FinalizationRegistry), so the cache is bounded and frees what it drops.
 */
const cache = new Map<string, RE2 | RE2JS | string>();
const CACHE_SIZE = 100;

function free(re: RE2 | RE2JS | string): void {
  if (re instanceof RE2) (re as unknown as { wrapper?: { delete?(): void } }).wrapper?.delete?.();
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

const HEX = /^[0-9a-fA-F]$/;

/**
 * The pattern in re2js's syntax: `\uXXXX` (one to four hex digits) becomes `\x{XXXX}` and `\cX`
 * the control character, as re2-wasm translates them, so both engines take the same patterns.
 */
function re2jsSyntax(pattern: string): string {
  if (!pattern.includes('\\u') && !pattern.includes('\\c')) return pattern;
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c !== '\\' || i + 1 >= pattern.length) {
      out += c;
      continue;
    }
    const next = pattern[i + 1];
    if (next === 'u' && HEX.test(pattern[i + 2] ?? '')) {
      let j = i + 2;
      while (j < i + 6 && HEX.test(pattern[j] ?? '')) j++;
      out += `\\x{${pattern.slice(i + 2, j)}}`;
      i = j - 1;
    } else if (next === 'u' && pattern[i + 2] === '{') {
      out += '\\x';
      i++;
    } else if (next === 'c' && /^[A-Z]$/.test(pattern[i + 2] ?? '')) {
      out += `\\x{${(pattern.charCodeAt(i + 2) - 64).toString(16)}}`;
      i += 2;
    } else {
      out += c + next;
      i++;
    }
  }
  return out;
}

/** Java's POSIX character classes (US-ASCII, as Java's by default) by their RE2 names. */
const POSIX_CLASSES: Record<string, string> = {
  Lower: 'lower', Upper: 'upper', ASCII: 'ascii', Alpha: 'alpha', Digit: 'digit', Alnum: 'alnum', Punct: 'punct',
  Graph: 'graph', Print: 'print', Blank: 'blank', Cntrl: 'cntrl', XDigit: 'xdigit', Space: 'space',
};
const POSIX_ESCAPE = /\\([pP])\{(\w{1,6})\}/y;

/**
 * Java's `\p{Punct}`, `\P{Alpha}`, … (a Spark user's usual text cleaning, `regexp_replace(s,
 * '\\p{Punct}', '')`) in RE2's spelling: `[[:punct:]]`, `[[:^alpha:]]`, and `[:punct:]` inside a
 * bracket expression. Other escapes are left as they are (`\p{L}`, `\p{Lu}` are RE2's too).
 */
function javaPosixClasses(pattern: string): string {
  if (!pattern.includes('\\p{') && !pattern.includes('\\P{')) return pattern;
  let out = '';
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      POSIX_ESCAPE.lastIndex = i;
      const m = POSIX_ESCAPE.exec(pattern);
      const name = m ? POSIX_CLASSES[m[2]] : undefined;
      if (m && name) {
        const cls = `[:${m[1] === 'P' ? '^' : ''}${name}:]`;
        out += depth > 0 ? cls : `[${cls}]`;
        i += m[0].length - 1;
      } else {
        out += pattern.slice(i, i + 2);
        i++;
      }
      continue;
    }
    if (c === '[') depth++;
    else if (c === ']' && depth > 0) depth--;
    out += c;
  }
  return out;
}

/**
 * Why a group index does not fit a pattern, with Spark's class: below zero
 * _LEGACY_ERROR_TEMP_2006, past the groups REGEX_GROUP_INDEX_EXCEED_REGEX_GROUP_COUNT.
 */
export function groupIndexProblem(idx: number, groups: number): string {
  return idx < 0
    ? `the group index ${idx} cannot be less than zero; 0 is the whole match (_LEGACY_ERROR_TEMP_2006)`
    : `group index ${idx} is out of range; the pattern has ${groups} group(s) (0 is the whole match) (INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX_EXCEED_REGEX_GROUP_COUNT)`;
}

function refusal(pattern: string, reason: string): string {
  return (
    `the regular expression '${pattern.length > 200 ? pattern.slice(0, 200) + '…' : pattern}' is not supported: ${reason}. ` +
    'Patterns run on RE2, which has no backreferences (\\1), lookahead or lookbehind ((?=, (?!, (?<=, (?<!) and Weir allows repetition counts up to 100 each, 200 in all; rewrite the pattern without them'
  );
}

function cached<T extends RE2 | RE2JS>(key: string, pattern: string, build: () => T, reason: (e: Error) => string): T | string {
  let re = cache.get(key) as T | string | undefined;
  if (re === undefined) {
    try {
      const problem = repetitionProblem(pattern);
      if (problem) throw new Error(problem);
      re = build();
    } catch (e) {
      re = refusal(pattern, reason(e as Error));
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
 * The compiled pattern for one match (re2-wasm), or RE2's reason for refusing it (with what to do
 * about it).
 */
export function compileRegex(pattern: string): RE2 | string {
  return cached(pattern, pattern, () => new RE2(javaPosixClasses(pattern), 'u'), (e) => e.message.replace(/^Invalid regular expression: \/.*\/u: /s, ''));
}

/** The compiled pattern for walking every match (re2js, see regexMatches), or why it is refused. */
export function compileWalkRegex(pattern: string): RE2JS | string {
  return cached(`walk/${pattern}`, pattern, () => RE2JS.compile(re2jsSyntax(javaPosixClasses(pattern))), (e) => e.message.replace(/^error parsing regexp: /, ''));
}

/**
 * A regexp function's refusal of a pattern: RE2's reason, with Spark's class for a pattern its
 * function cannot compile (a lookaround Java reads but RE2 does not is refused with it too).
 */
export function patternRefusal(fn: string, reason: string): string {
  return `${fn}: ${reason} (INVALID_PARAMETER_VALUE.PATTERN)`;
}

/**
 * The program of a pattern compiled at run time (read from a column), for function `fn`: a pattern
 * RE2 refuses makes the record bad, with RE2's reason.
 */
export function recordRegex(fn: string, pattern: string): RE2 {
  const re = compileRegex(pattern);
  if (typeof re === 'string') throw new RecordExpressionError(patternRefusal(fn, re), { function: fn });
  return re;
}

/** The program regexMatches walks; a refused pattern is refused as by recordRegex. */
export function walkRegex(fn: string, pattern: string): RE2JS {
  const re = compileWalkRegex(pattern);
  if (typeof re === 'string') throw new RecordExpressionError(patternRefusal(fn, re), { function: fn });
  return re;
}

/**
 * One match of regexMatches, valid until the walk moves on: where it is in the string in UTF-16
 * code units (for String.slice), and its groups.
 */
export interface RegexMatch {
  start: number;
  end: number;
  /** The number of capturing groups (group 0, the whole match, not counted). */
  groupCount: number;
  /** Group `i`'s text; undefined where the group did not take part. */
  group(i: number): string | undefined;
}

/**
 * Every non-overlapping match of `re` in `s`, left to right, as Java's Matcher.find() walks:
 * after an empty match the search steps one character on (never half a surrogate pair). One
 * Matcher reads `s` in place from where the last match ended, so the walk costs the length of
 * `s` (times the pattern's size) however many matches there are; a group's text is found only
 * when asked for, over the match alone.
 */
export function* regexMatches(re: RE2JS, s: string): Generator<RegexMatch> {
  const m = re.matcher(s);
  const groupCount = m.groupCount();
  const match: RegexMatch = {
    start: 0,
    end: 0,
    groupCount,
    group: (i) => (i === 0 ? s.slice(match.start, match.end) : i > 0 && i <= groupCount ? (m.group(i) ?? undefined) : undefined),
  };
  while (m.find()) {
    match.start = m.start();
    match.end = m.end();
    yield match;
  }
}

/** Capturing groups of a valid pattern: `(?:p)|` always matches '' and reports every group. */
function regexGroupCount(pattern: string): number {
  const re = compileRegex(`(?:${pattern})|`);
  return typeof re === 'string' ? 0 : (re.exec('')?.length ?? 1) - 1;
}

/**
 * A regexp function's check at validation: a literal pattern (its second argument) RE2 refuses,
 * or a literal group index (its third) the pattern does not have. `walk`: the function walks
 * every match (compileWalkRegex), else it takes one (compileRegex).
 */
export const regexLiterals =
  (fn: string, walk = false) =>
  (lits: unknown[]): string | undefined => {
    const [, pattern, idx] = lits;
    if (typeof pattern !== 'string') return undefined;
    const re = walk ? compileWalkRegex(pattern) : compileRegex(pattern);
    if (typeof re === 'string') return patternRefusal(fn, re);
    if (typeof idx === 'number') {
      const groups = re instanceof RE2JS ? re.groupCount() : regexGroupCount(pattern);
      if (idx < 0 || idx > groups) return `${fn}: ${groupIndexProblem(idx, groups)}`;
    }
    return undefined;
  };
