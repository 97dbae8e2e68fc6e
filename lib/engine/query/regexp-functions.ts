/**
 * Spark's string functions by regular expression (regexp_extract, regexp_replace, split,
 * regexp_count, regexp_instr, regexp_substr and regexp_extract_all), on RE2 (regex.ts):
 * regexp_count, regexp_extract_all, regexp_replace and split walk every match once
 * (regexMatches), the others take the first match. rlike is a predicate (predicate-functions.ts).
 *
 * re2-wasm reports a match's `index` (and takes `lastIndex`) in code points, as Spark counts
 * characters, so positions here are characters. One difference: Spark's regexp_instr returns
 * Java's UTF-16 index, one more per preceding character outside the Basic Multilingual Plane
 * (an emoji); Weir's counts characters, so it agrees with instr, locate and substr.
 */
import { RecordExpressionError } from '../errors';
import type { CollectionFunctionDef } from './function-types';
import type { TypeInfo } from './data-types';
import type { FunctionDef } from './function-types';
import { isStr, str } from './function-args';
import { compileWalkRegex, groupIndexProblem, patternRefusal, recordRegex, regexLiterals, regexMatches, walkRegex, type RegexMatch } from './regex';
import { isNumeric, type ExprType } from './sql-values';
import { checkStringLength, MAX_STRING_VALUE_LENGTH } from './value-limits';

function checkGroup(fn: string, groupCount: number, i: number): void {
  if (i < 0 || i > groupCount) throw new RecordExpressionError(`${fn}: ${groupIndexProblem(i, groupCount)}`, { function: fn });
}

const two = (fn: string, result: ExprType) => (a: ExprType[]) => (isStr(a[0]) && isStr(a[1]) ? result : `${fn} takes (string, pattern)`);

/** Java's Matcher.replaceAll replacement: `$n` is group n, `\x` is x. */
function expandReplacement(rep: string, m: RegexMatch, room: number): string {
  let out = '';
  for (let i = 0; i < rep.length; i++) {
    const c = rep[i];
    if (c === '\\' && i + 1 < rep.length) out += rep[++i];
    else if (c === '$' && /\d/.test(rep[i + 1] ?? '')) {
      let j = i + 1;
      let g = '';
      while (j < rep.length && /\d/.test(rep[j]) && Number(g + rep[j]) <= m.groupCount) g += rep[j++];
      if (g === '') throw new RecordExpressionError(`regexp_replace(): no group ${rep[i + 1]} in the pattern`, { function: 'regexp_replace()' });
      out += m.group(Number(g)) ?? '';
      i = j - 1;
      // Each group can be as long as the value: `$0$0…` must not grow without end before the check.
      if (out.length > room) checkStringLength('regexp_replace()', MAX_STRING_VALUE_LENGTH - room + out.length);
    } else out += c;
  }
  return out;
}

/**
 * The code-unit offset of code point `cp` of `s` (its length when past the end): SQL positions
 * count code points, JavaScript slices in UTF-16 code units.
 */
function codeUnitIndex(s: string, cp: number): number {
  if (!/[\uD800-\uDFFF]/.test(s)) return Math.min(cp, s.length);
  let i = 0;
  for (let n = 0; n < cp && i < s.length; n++) i += s.codePointAt(i)! > 0xffff ? 2 : 1;
  return i;
}

/** Spark's check of regexp_replace's position (RegExpReplace.checkInputDataTypes). */
const positionOutOfRange = (pos: number) =>
  `[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] The \`position\` must be between (0, 2147483647], but got ${Math.trunc(pos)}.`;

/**
 * Spark's split: Java's String.split(regex, limit) with limit -1 when `limit` <= 0, so trailing
 * empty strings stay; with limit > 0 at most `limit` parts, the last holding the rest. As in
 * Java, a zero-width match at the very start makes no leading empty string. As Spark's
 * UTF8String.split, `''` splits to [''] and an empty pattern splits into characters (no
 * trailing empty string).
 */
export function splitString(s: string, pattern: string, limit: number): string[] {
  const max = limit > 0 ? limit : Infinity;
  if (s === '') return [''];
  if (pattern === '') {
    const cs = [...s];
    return cs.length <= max ? cs : [...cs.slice(0, max - 1), cs.slice(max - 1).join('')];
  }
  const out: string[] = [];
  // A pattern with no regex syntax is its own text: split on it without the regex engine.
  if (!/[\\^$.|?*+()[\]{}]/.test(pattern)) {
    let from = 0;
    for (let i = s.indexOf(pattern); i >= 0 && out.length < max - 1; i = s.indexOf(pattern, from)) {
      out.push(s.slice(from, i));
      from = i + pattern.length;
    }
    out.push(s.slice(from));
    return out;
  }
  let from = 0;
  for (const m of regexMatches(walkRegex('split()', pattern), s)) {
    if (out.length >= max - 1) break;
    // Java: a zero-width match at the very start makes no leading empty string.
    if (m.end === 0) continue;
    out.push(s.slice(from, m.start));
    from = m.end;
  }
  out.push(s.slice(from));
  return out;
}


export const REGEXP_FUNCTIONS: Record<string, FunctionDef> = {
  regexp_count: {
    min: 2, max: 2, resultIntegral: 32, type: two('regexp_count()', 'long'),
    impl: ([s, p]) => {
      let n = 0;
      for (const _ of regexMatches(walkRegex('regexp_count()', p as string), s as string)) n++;
      return n;
    },
    checkLiterals: regexLiterals('regexp_count()', true),
  },
  // The 1-based character position of the first match, 0 when none. As Spark's, the whole
  // match's position: the group index is taken and not used.
  regexp_instr: {
    min: 2, max: 3, resultIntegral: 32, type: (a) => (isStr(a[0]) && isStr(a[1]) && (a.length < 3 || a[2] === 'long' || a[2] === 'null') ? 'long' : 'regexp_instr() takes (string, pattern[, group index])'),
    impl: ([s, p]) => {
      const m = recordRegex('regexp_instr()', p as string).exec(s as string);
      return m === null ? 0 : m.index + 1;
    },
    checkLiterals: ([s, p]) => regexLiterals('regexp_instr()')([s, p]),
  },
  // The first match's text; NULL when nothing matches.
  regexp_substr: {
    min: 2, max: 2, type: two('regexp_substr()', 'string'),
    // Spark: NULLIF(regexp_extract(s, p, 0), ''): an empty match is NULL as no match is.
    impl: ([s, p]) => recordRegex('regexp_substr()', p as string).exec(s as string)?.[0] || null,
    checkLiterals: regexLiterals('regexp_substr()'),
  },
  regexp_extract: {
    min: 2, max: 3,
    type: (a) => str(a, 2) ?? (a.length < 3 || isNumeric(a[2]) ? 'string' : 'expects (string, pattern[, group index])'),
    // Spark: group `idx` (default 1) of the first match; '' when nothing matches or the group did not take part.
    impl: ([s, p, idx]) => {
      const i = idx === undefined ? 1 : Math.trunc(idx as number);
      const m = recordRegex('regexp_extract()', p as string).exec(s as string);
      if (m !== null && (i < 0 || i >= m.length)) {
        throw new RecordExpressionError(`regexp_extract(): ${groupIndexProblem(i, m.length - 1)}`, { function: 'regexp_extract()' });
      }
      return m === null ? '' : (m[i] ?? '');
    },
    checkLiterals: regexLiterals('regexp_extract()'),
  },
  regexp_replace: {
    min: 3, max: 4, type: (a) => str(a, 3) ?? (a.length < 4 || isNumeric(a[3]) ? 'string' : 'expects (string, pattern, replacement[, position])'),
    impl: ([s, p, r, posArg]) => {
      const src = s as string;
      const re = walkRegex('regexp_replace()', p as string);
      // Spark's position counts characters (code points). The search runs on the rest of the
      // value, as Java's region with opaque bounds: `^` and `\b` see the position as the start.
      if (posArg !== undefined && Math.trunc(posArg as number) <= 0) throw new RecordExpressionError(`regexp_replace(): ${positionOutOfRange(posArg as number)}`, { function: 'regexp_replace()' });
      const start = posArg === undefined ? 0 : codeUnitIndex(src, Math.trunc(posArg as number) - 1);
      const rest = src.slice(start);
      const literal = /[$\\]/.test(r as string) ? undefined : (r as string);
      let out = src.slice(0, start);
      let from = 0;
      for (const m of regexMatches(re, rest)) {
        out += rest.slice(from, m.start);
        out += literal ?? expandReplacement(r as string, m, MAX_STRING_VALUE_LENGTH - out.length);
        checkStringLength('regexp_replace()', out.length);
        from = m.end;
      }
      return out + rest.slice(from);
    },
    checkLiterals: (lits) => (typeof lits[3] === 'number' && Math.trunc(lits[3]) <= 0 ? `regexp_replace(): ${positionOutOfRange(lits[3])}` : regexLiterals('regexp_replace()', true)(lits)),
  },
};

const STRING_ARRAY: TypeInfo = { type: 'array', elementType: { name: 'element', type: 'string', nullable: true } };

export const REGEXP_ARRAY_FUNCTIONS: Record<string, CollectionFunctionDef> = {
  // Group `idx` (default 1) of every match; '' where the group did not take part.
  regexp_extract_all: {
    min: 2, max: 3,
    type: (a) => (isStr(a[0].type) && isStr(a[1].type) && (a.length < 3 || a[2].type === 'long' || a[2].type === 'null') ? STRING_ARRAY : 'regexp_extract_all() takes (string, pattern[, group index])'),
    impl: ([s, p, idx]) => {
      const i = idx === undefined ? 1 : Math.trunc(idx as number);
      const out: string[] = [];
      for (const m of regexMatches(walkRegex('regexp_extract_all()', p as string), s as string)) {
        checkGroup('regexp_extract_all()', m.groupCount, i);
        out.push(m.group(i) ?? '');
      }
      return out;
    },
    checkLiterals: regexLiterals('regexp_extract_all()', true),
  },
  split: {
    min: 2, max: 3,
    type: (a) => (isStr(a[0].type) && isStr(a[1].type) && (a.length < 3 || a[2].type === 'long' || a[2].type === 'null') ? STRING_ARRAY : 'split() takes (string, regex[, limit])'),
    impl: ([s, p, limit]) => splitString(s as string, p as string, limit === undefined ? -1 : Math.trunc(limit as number)),
    checkLiterals: ([, p]) => {
      if (typeof p !== 'string') return undefined;
      const re = compileWalkRegex(p);
      return typeof re === 'string' ? patternRefusal('split()', re) : undefined;
    },
  },
};
