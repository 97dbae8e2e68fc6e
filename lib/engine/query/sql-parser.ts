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
 * The identifier `window` (the struct column a window aggregation outputs) stands for this in
 * the text the parser reads: PostgreSQL's grammar reserves WINDOW, so `window.start` or a bare
 * `window` would be a syntax error. Same length in UTF-16 units (positions stay right); the
 * accented letter (the grammar takes Latin-1 letters in identifiers, and `$` or `_` would be
 * either refused or a plausible user name) keeps it from meeting a user's identifier. The
 * expression builder reads it back as `window`.
 */
export const WINDOW_IDENT = 'w\u00edndow';

/**
 * Spark's type names where the PostgreSQL grammar wants its own, rewritten to a spelling of the
 * same length so that every position reported afterwards still points into the user's text.
 * The expression builder maps each back (CAST_TYPES there).
 */
const TYPE_SPELLINGS: Record<string, string> = {
  STRING: 'TEXT  ', LONG: 'INT8', SHORT: 'INT2 ', BYTE: 'INT2', BINARY: 'BYTEA ',
};

/**
 * Spark's lexical forms that the PostgreSQL grammar does not take, rewritten outside quoted text
 * to PostgreSQL forms of the same length:
 * - type names after `AS` in CAST and after `::` (STRING, LONG, SHORT, BYTE, BINARY);
 * - typed number literals `2L`, `2S`, `2Y` (bigint, smallint, tinyint: all BIGINT in Weir) and
 *   `1.5BD` (the suffix dropped: a literal with a point is a DECIMAL), `1.5D`, `1.5F` (a DOUBLE:
 *   `1.5e0`, the one rewrite that is a character longer, so a position after it on its line is
 *   off by one);
 * - RLIKE / REGEXP as operators (PostgreSQL's `~`, `!~` for NOT), the function forms untouched;
 * - raw strings `r'a\d'` (see below);
 * - the identifier `window` not followed by `(` (see WINDOW_IDENT);
 * - EXTRACT(field FROM x) with a field the grammar does not know (see PG_EXTRACT_FIELDS).
 */
/** `1.5BD` is a decimal (`1.5` and spaces); `1.5D` and `1.5F` a double (`1.5e0`: an exponent makes a double). */
function doubleOrDecimal(digits: string, suffix: string): string {
  if (suffix.toUpperCase() === 'BD' || /[eE]/.test(digits)) return `${digits}${' '.repeat(suffix.length)}`;
  return `${digits}e0`;
}

/**
 * EXTRACT fields PostgreSQL's grammar takes; Spark's other spellings (SECONDS, DAYOFWEEK_ISO,
 * YEAROFWEEK, …) make `EXTRACT(f FROM x)` the same-length `date_part('f', x)`, which is Spark's
 * own equivalent.
 */
const PG_EXTRACT_FIELDS = new Set(['CENTURY', 'DAY', 'DATE', 'DECADE', 'DOW', 'DOY', 'EPOCH', 'HOUR', 'ISODOW', 'ISOYEAR', 'MICROSECONDS', 'MILLENNIUM', 'MILLISECONDS', 'MINUTE', 'MONTH', 'QUARTER', 'SECOND', 'TIMEZONE', 'TIMEZONE_HOUR', 'TIMEZONE_MINUTE', 'WEEK', 'YEAR']);

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
    const part = sql.slice(i, j)
      .replace(/\b(AS\s+|::\s*)(STRING|LONG|SHORT|BYTE|BINARY)(?![A-Za-z0-9_$])/gi, (_m, as: string, t: string) => `${as}${TYPE_SPELLINGS[t.toUpperCase()]}`)
      .replace(/(?<![A-Za-z0-9_$.])(\d+)([LSY])(?![A-Za-z0-9_$])/gi, (_m, d: string) => `${d} `)
      .replace(/(?<![A-Za-z0-9_$.])(\d*\.\d+(?:[eE][+-]?\d+)?)(BD|[DF])(?![A-Za-z0-9_$])/gi, (_m, d: string, suf: string) => doubleOrDecimal(d, suf))
      .replace(/(?<![A-Za-z0-9_$.])window(?![A-Za-z0-9_$])(?!\s*\()/gi, WINDOW_IDENT)
      .replace(/\b(NOT\s+)?(RLIKE|REGEXP)\b(?!\s*\()/gi, (m: string, not: string | undefined) => (not ? '!~' : '~').padEnd(m.length, ' '))
      .replace(/(?<![A-Za-z0-9_$.])EXTRACT(\s*\(\s*)([A-Za-z_]+)(\s+FROM\s+)/gi, (m: string, _o: string, field: string) => (PG_EXTRACT_FIELDS.has(field.toUpperCase()) ? m : `date_part('${field}',`.padEnd(m.length, ' ')));
    // r'…' / R'…': the `r` right before a quote becomes a space, and the string's backslashes are
    // doubled so that the expression builder's unescaping (Spark's, for every other string)
    // gives them back. Only here does the text grow: a position later on the same line as a raw
    // string with backslashes is off by their number.
    if (j < sql.length && sql[j] === "'" && /(?<![A-Za-z0-9_$])[rR]$/.test(part)) {
      out += `${part.slice(0, -1)} `;
      let k = j + 1;
      while (k < sql.length && !(sql[k] === "'" && sql[k + 1] !== "'")) k += sql[k] === "'" ? 2 : 1;
      out += sql.slice(j, k + 1).replace(/\\/g, '\\\\');
      i = k + 1;
      continue;
    }
    out += part;
    i = j;
  }
  return out;
}

/** The end (exclusive) of the quoted text that starts at `i` (Spark's strings also take backslash escapes). */
function quotedEnd(sql: string, i: number): number {
  const q = sql[i];
  let j = i + 1;
  while (j < sql.length) {
    if (sql[j] === '\\' && q !== '`') j += 2;
    else if (sql[j] === q) {
      if (sql[j + 1] !== q) return j + 1;
      j += 2;
    } else j++;
  }
  return sql.length;
}

/**
 * Spark's keyword form overlay(s PLACING r FROM p [FOR n]), which PostgreSQL's grammar has no
 * rule for here, as the function form overlay(s, r, p[, n]): each of PLACING, FROM and FOR at
 * the call's own level becomes a comma and spaces, the same length.
 */
function overlayKeywords(sql: string): string {
  if (!/placing/i.test(sql)) return sql;
  const out = sql.split('');
  const word = (at: number) => /^[A-Za-z_]\w*/.exec(sql.slice(at, at + 64))?.[0] ?? '';
  for (let i = 0; i < sql.length; ) {
    if ("'\"`".includes(sql[i])) { i = quotedEnd(sql, i); continue; }
    const w = /[A-Za-z_]/.test(sql[i]) && !/[\w$.]/.test(sql[i - 1] ?? '') ? word(i) : '';
    if (!w) { i++; continue; }
    const open = /^\s*\(/.exec(sql.slice(i + w.length, i + w.length + 64));
    if (w.toLowerCase() !== 'overlay' || !open) { i += w.length; continue; }
    let depth = 0;
    const keywords: [number, number][] = [];
    let j = i + w.length + open[0].length - 1;
    for (; j < sql.length; j++) {
      const c = sql[j];
      if ("'\"`".includes(c)) { j = quotedEnd(sql, j) - 1; continue; }
      if (c === '(') depth++;
      else if (c === ')') { if (--depth === 0) break; }
      else if (depth === 1 && /[A-Za-z_]/.test(c) && !/[\w$.]/.test(sql[j - 1])) {
        const k = word(j);
        if (['PLACING', 'FROM', 'FOR'].includes(k.toUpperCase())) keywords.push([j, k.length]);
        j += k.length - 1;
      }
    }
    if (keywords.some(([at, n]) => sql.slice(at, at + n).toUpperCase() === 'PLACING')) {
      for (const [at, n] of keywords) for (let k = 0; k < n; k++) out[at + k] = k === 0 ? ',' : ' ';
    }
    i += w.length;
  }
  return out.join('');
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
    ast = parser.astify(sparkTypeNames(overlayKeywords(sql)), { database: 'PostgreSQL', parseOptions: { includeLocations: true } });
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
