/**
 * Regular expressions from user SQL (rlike, regexp_extract) run on RE2 (`re2-wasm`), never on
 * JavaScript's backtracking RegExp: RE2 matches in time linear in the value (times the
 * pattern's size), so no pattern can hold the event loop on one record.
 *
 * Differences from Spark's Java regular expressions: RE2 has no backreferences (`\1`, `\k<n>`),
 * no lookahead or lookbehind (`(?=`, `(?!`, `(?<=`, `(?<!`), no possessive quantifiers and no
 * atomic groups; a repetition count is at most 1000. Such a pattern is refused at validation
 * (a literal pattern) or makes the record bad (a pattern read from a column). Matching is on
 * code points (`.` is one character, also outside the Basic Multilingual Plane), and `.` does
 * not match a line break unless the pattern says `(?s)`, as in Java.
 */
import { RE2 } from 're2-wasm';

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

/** The compiled pattern, or RE2's reason for refusing it (with what to do about it). */
export function compileRegex(pattern: string): RE2 | string {
  let re = cache.get(pattern);
  if (re === undefined) {
    try {
      re = new RE2(pattern, 'u');
    } catch (e) {
      const reason = (e as Error).message.replace(/^Invalid regular expression: \/.*\/u: /s, '');
      re =
        `the regular expression '${pattern.length > 200 ? pattern.slice(0, 200) + '…' : pattern}' is not supported: ${reason}. ` +
        'Patterns run on RE2, which has no backreferences (\\1), lookahead or lookbehind ((?=, (?!, (?<=, (?<!) and allows repetition counts up to 1000; rewrite the pattern without them';
    }
    if (cache.size >= CACHE_SIZE) {
      for (const old of cache.values()) free(old);
      cache.clear();
    }
    cache.set(pattern, re);
  }
  return re;
}
