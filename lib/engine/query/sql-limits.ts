/**
 * Limits on a query's text, checked before the parser sees it. The parser, the planner and the
 * compiled closures all recurse once per level of the expression tree, and a 5,000-term `+` or a
 * 60,000-term OR would overflow the stack. `checkSqlLimits` refuses such text before any of them
 * runs, by counting in the raw text (no tokenizer to get out of step with the parser's): its
 * size, its operators (every one can add a level) and its bracket nesting (each costs the parser
 * many frames). The limits are far above any hand-written query and well inside what every stage
 * survives on Node's default stack.
 */
import { offsetToPosition, SqlValidationError } from './sql-error';

/** SQL text longer than this (UTF-8 bytes) is refused: 64 KiB. */
export const MAX_SQL_BYTES = 65_536;
/**
 * Operators in one query: each of `+ - * / % < > = ! | & ^ ~ :` counts (so `<=` counts twice),
 * and so does each AND, OR, NOT, CASE, WHEN, IS, IN, LIKE, ILIKE, RLIKE, REGEXP and BETWEEN,
 * wherever it appears (string literals included: counting may overshoot, never undershoot).
 */
export const MAX_SQL_OPERATORS = 256;
/** Nesting of ( and [ (function calls, casts, subexpressions). */
export const MAX_SQL_NESTING = 64;

const OPERATOR_CHARS = new Set('+-*/%<>=!|&^~:');
const OPERATOR_WORDS = new Set(['AND', 'OR', 'NOT', 'CASE', 'WHEN', 'IS', 'IN', 'LIKE', 'ILIKE', 'RLIKE', 'REGEXP', 'BETWEEN']);

const isWordChar = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 36;

/** Refuses SQL whose size, operator count or nesting is over the limits above (one pass, no allocation per character). */
export function checkSqlLimits(sql: string): void {
  let bytes = 0;
  let operators = 0;
  let depth = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql.charCodeAt(i);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdfff ? 2 : 3; // a surrogate pair is 4 bytes: 2 + 2
    if (bytes > MAX_SQL_BYTES) {
      throw new SqlValidationError(
        `The SQL is longer than ${MAX_SQL_BYTES} bytes (64 KiB; it is ${Buffer.byteLength(sql, 'utf8')}). Shorten it: put long lists of values in a static table and join with it`,
        offsetToPosition(sql, i),
        'size',
      );
    }
    const ch = sql[i];
    if (ch === '(' || ch === '[') {
      if (++depth > MAX_SQL_NESTING) {
        throw new SqlValidationError(`Brackets (subexpressions, function calls, casts) nest more than ${MAX_SQL_NESTING} levels deep here. Flatten the expression`, offsetToPosition(sql, i), 'nesting');
      }
    } else if (ch === ')' || ch === ']') {
      if (depth > 0) depth--;
    } else if (OPERATOR_CHARS.has(ch)) {
      operators++;
    } else if (isWordChar(c) && (i === 0 || !isWordChar(sql.charCodeAt(i - 1)))) {
      let j = i + 1;
      while (j < sql.length && isWordChar(sql.charCodeAt(j)) && j - i <= 7) j++;
      if (j - i <= 7 && !(j < sql.length && isWordChar(sql.charCodeAt(j))) && OPERATOR_WORDS.has(sql.slice(i, j).toUpperCase())) operators++;
    }
    if (operators > MAX_SQL_OPERATORS) {
      throw new SqlValidationError(
        `The query has more than ${MAX_SQL_OPERATORS} operators (AND, OR, NOT, CASE/WHEN, comparisons, arithmetic); longer expressions are refused so that no stage runs out of stack. Split the logic over several jobs, or write a long list of alternatives as IN (…)`,
        offsetToPosition(sql, i),
        'operators',
      );
    }
  }
}

/** The last resort, should some shape within the limits still exhaust the stack. */
export function tooDeep(): SqlValidationError {
  return new SqlValidationError('The query is nested too deeply to analyze (the stack ran out). Simplify the expression: fewer nested operators, CASEs and brackets', { line: 1, column: 1 }, 'nesting');
}
