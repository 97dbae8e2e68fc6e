/**
 * Parses a query's SQL with node-sql-parser (PostgreSQL dialect, with source locations) into
 * its SELECT AST. Syntax errors become SqlValidationError with line/column and the text found.
 *
 * node-sql-parser 5.4 groups AND/OR wrongly after IN, BETWEEN, NOT and a few other predicates
 * (`a = 1 AND b IN (1) OR c = 2` comes back as `a = 1 AND (b IN (1) OR c = 2)`), which would
 * silently change what a WHERE keeps. `fixBooleanPrecedence` regroups every unparenthesized
 * AND/OR chain from its operands in source order with SQL's precedence (AND before OR, both
 * left-associative). The parser records explicit parentheses, so user grouping is kept.
 *
 * The parser, the regrouping, the expression builder and the compiled closures all recurse once
 * per level of the expression tree, and a 5,000-term `+` or a 60,000-term OR overflowed the
 * stack. `checkSqlLimits` refuses such text before any of them runs, by counting in the raw text
 * (no tokenizer to get out of step with the parser's): its size, its operators (every one can add
 * a level) and its bracket nesting (each costs the parser many frames). The limits are far above
 * any hand-written query and well inside what every stage survives on Node's default stack.
 */
// The PostgreSQL build alone: the package's main file loads every dialect's grammar (4x the CPU
// and heap at load), which each run's engine process would pay at its start.
import pkg from 'node-sql-parser/build/postgresql.js';
import type { SqlNode } from './expression-builder';
import { offsetToPosition, SqlValidationError } from './sql-error';

const { Parser } = pkg as unknown as { Parser: new () => { astify(sql: string, opt: object): unknown } };
const parser = new Parser();

/**
 * Spark spells the string type STRING (`CAST(x AS STRING)`), which the PostgreSQL grammar
 * rejects. Outside quoted text, `AS STRING)` becomes `AS TEXT  )`: same length, so every position
 * reported afterwards still points into the user's text.
 */
function sparkTypeNames(sql: string): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i];
    if (ch === "'" || ch === '"' || ch === '`') {
      let j = i + 1;
      while (j < sql.length && !(sql[j] === ch && sql[j + 1] !== ch)) j += sql[j] === ch ? 2 : 1;
      out += sql.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    let j = i;
    while (j < sql.length && !"'\"`".includes(sql[j])) j++;
    out += sql.slice(i, j).replace(/\b(AS\s+)STRING(?=\s*\))/gi, (_m, as: string) => `${as}TEXT  `);
    i = j;
  }
  return out;
}

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

export function parseSelect(sql: string): SqlNode {
  checkSqlLimits(sql);
  let ast: unknown;
  try {
    ast = parser.astify(sparkTypeNames(sql), { database: 'PostgreSQL', parseOptions: { includeLocations: true } });
  } catch (e) {
    if (e instanceof RangeError) throw tooDeep();
    const err = e as { location?: { start?: { line: number; column: number } }; found?: string | null; message?: string };
    const pos = err.location?.start ? { line: err.location.start.line, column: err.location.start.column } : undefined;
    if (!pos) throw new SqlValidationError(`SQL syntax error: ${err.message ?? String(e)}`);
    const found = err.found === null || err.found === undefined ? 'end of input' : `"${err.found}"`;
    throw new SqlValidationError(`SQL syntax error: unexpected ${found}`, pos, 'syntax');
  }
  const statements = (Array.isArray(ast) ? ast : [ast]) as SqlNode[];
  if (statements.length !== 1) throw new SqlValidationError(`Expected exactly one SELECT statement, found ${statements.length}`, undefined, 'statements');
  let stmt: SqlNode;
  try {
    stmt = fixBooleanPrecedence(statements[0]) as SqlNode;
  } catch (e) {
    if (e instanceof RangeError) throw tooDeep();
    throw e;
  }
  if (stmt.type !== 'select') {
    throw new SqlValidationError(`Only SELECT queries can run as streams, found ${String(stmt.type).toUpperCase()}`, { line: 1, column: 1 }, String(stmt.type));
  }
  return stmt;
}

/** The last resort, should some shape within the limits still exhaust the stack. */
export function tooDeep(): SqlValidationError {
  return new SqlValidationError('The query is nested too deeply to analyze (the stack ran out). Simplify the expression: fewer nested operators, CASEs and brackets', { line: 1, column: 1 }, 'nesting');
}

const isBool = (n: unknown): n is SqlNode =>
  !!n && typeof n === 'object' && (n as SqlNode).type === 'binary_expr' && /^(AND|OR)$/i.test(String((n as SqlNode).operator));

/** Operands and operators of an unparenthesized AND/OR chain, in source order. */
function flatten(n: SqlNode, items: (SqlNode | string)[]): void {
  for (const side of [n.left, 'op', n.right] as const) {
    if (side === 'op') items.push(String(n.operator).toUpperCase());
    else if (isBool(side) && !side.parentheses) flatten(side, items);
    else items.push(side);
  }
}

function fixBooleanPrecedence(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(fixBooleanPrecedence);
  if (!node || typeof node !== 'object') return node;
  const n = node as SqlNode;
  if (isBool(n)) {
    const items: (SqlNode | string)[] = [];
    flatten(n, items);
    const operands = items.filter((_, i) => i % 2 === 0).map((x) => fixBooleanPrecedence(x) as SqlNode);
    const ops = items.filter((_, i) => i % 2 === 1) as string[];
    // AND binds tighter than OR: split on OR, fold each AND run left to right, then fold the ORs.
    const terms: SqlNode[] = [];
    let cur = operands[0];
    for (let i = 0; i < ops.length; i++) {
      if (ops[i] === 'AND') cur = { type: 'binary_expr', operator: 'AND', left: cur, right: operands[i + 1] };
      else {
        terms.push(cur);
        cur = operands[i + 1];
      }
    }
    terms.push(cur);
    let root = terms[0];
    for (let i = 1; i < terms.length; i++) root = { type: 'binary_expr', operator: 'OR', left: root, right: terms[i] };
    return { ...root, parentheses: n.parentheses, loc: n.loc };
  }
  const out: SqlNode = {};
  for (const [k, v] of Object.entries(n)) out[k] = k === 'loc' ? v : fixBooleanPrecedence(v);
  return out;
}
