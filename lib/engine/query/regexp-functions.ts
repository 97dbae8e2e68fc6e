/**
 * Spark's regexp_count, regexp_instr, regexp_substr and regexp_extract_all, on RE2 (regex.ts).
 *
 * re2-wasm reports a match's `index` (and takes `lastIndex`) in code points, as Spark counts
 * characters, so positions here are characters. One difference: Spark's regexp_instr returns
 * Java's UTF-16 index, one more per preceding character outside the Basic Multilingual Plane
 * (an emoji); Weir's counts characters, so it agrees with instr, locate and substr.
 */
import { RecordExpressionError } from '../errors';
import type { CollectionFunctionDef } from './collection-functions';
import type { TypeInfo } from './data-types';
import type { FunctionDef } from './functions';
import { globalRegex, recordRegex, regexLiterals, regexMatches, type RegexMatch } from './regex';
import type { ExprType } from './sql-values';

const isStr = (t: ExprType) => t === 'string' || t === 'null';

type Match = RegexMatch['groups'];

/** Every non-overlapping match left to right (regex.ts regexMatches). */
function allMatches(fn: string, s: string, pattern: string): Match[] {
  return Array.from(regexMatches(globalRegex(fn, pattern), s), (m) => m.groups);
}

function checkGroup(fn: string, m: Match, i: number): void {
  if (i < 0 || i >= m.length) throw new RecordExpressionError(`${fn}: group index ${i} is out of range; the pattern has ${m.length - 1} group(s)`, { function: fn });
}

const two = (fn: string, result: ExprType) => (a: ExprType[]) => (isStr(a[0]) && isStr(a[1]) ? result : `${fn} takes (string, pattern)`);

export const REGEXP_FUNCTIONS: Record<string, FunctionDef> = {
  regexp_count: {
    min: 2, max: 2, type: two('regexp_count()', 'long'),
    impl: ([s, p]) => allMatches('regexp_count()', s as string, p as string).length,
    checkLiterals: regexLiterals('regexp_count()'),
  },
  // The 1-based character position of the first match, 0 when none. As Spark's, the whole
  // match's position: the group index is taken and not used.
  regexp_instr: {
    min: 2, max: 3, type: (a) => (isStr(a[0]) && isStr(a[1]) && (a.length < 3 || a[2] === 'long' || a[2] === 'null') ? 'long' : 'regexp_instr() takes (string, pattern[, group index])'),
    impl: ([s, p]) => {
      const m = recordRegex('regexp_instr()', p as string).exec(s as string);
      return m === null ? 0 : m.index + 1;
    },
    checkLiterals: ([s, p]) => regexLiterals('regexp_instr()')([s, p]),
  },
  // The first match's text; NULL when nothing matches.
  regexp_substr: {
    min: 2, max: 2, type: two('regexp_substr()', 'string'),
    impl: ([s, p]) => recordRegex('regexp_substr()', p as string).exec(s as string)?.[0] ?? null,
    checkLiterals: regexLiterals('regexp_substr()'),
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
      return allMatches('regexp_extract_all()', s as string, p as string).map((m) => {
        checkGroup('regexp_extract_all()', m, i);
        return m[i] ?? '';
      });
    },
    checkLiterals: regexLiterals('regexp_extract_all()'),
  },
};
