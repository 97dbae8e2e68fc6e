/**
 * Spark's regexp_count, regexp_instr, regexp_substr and regexp_extract_all, on RE2 (regex.ts):
 * regexp_count and regexp_extract_all walk every match once (regexMatches), the others take the
 * first match.
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
import { recordRegex, regexLiterals, regexMatches, walkRegex } from './regex';
import type { ExprType } from './sql-values';

const isStr = (t: ExprType) => t === 'string' || t === 'null';

function checkGroup(fn: string, groupCount: number, i: number): void {
  if (i < 0 || i > groupCount) throw new RecordExpressionError(`${fn}: group index ${i} is out of range; the pattern has ${groupCount} group(s)`, { function: fn });
}

const two = (fn: string, result: ExprType) => (a: ExprType[]) => (isStr(a[0]) && isStr(a[1]) ? result : `${fn} takes (string, pattern)`);

export const REGEXP_FUNCTIONS: Record<string, FunctionDef> = {
  regexp_count: {
    min: 2, max: 2, type: two('regexp_count()', 'long'),
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
    // Spark: NULLIF(regexp_extract(s, p, 0), ''): an empty match is NULL as no match is.
    impl: ([s, p]) => recordRegex('regexp_substr()', p as string).exec(s as string)?.[0] || null,
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
      const out: string[] = [];
      for (const m of regexMatches(walkRegex('regexp_extract_all()', p as string), s as string)) {
        checkGroup('regexp_extract_all()', m.groupCount, i);
        out.push(m.group(i) ?? '');
      }
      return out;
    },
    checkLiterals: regexLiterals('regexp_extract_all()', true),
  },
};
