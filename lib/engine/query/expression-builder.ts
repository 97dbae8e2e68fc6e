/**
 * Converts node-sql-parser's expression AST into Weir's safe Expr AST. Anything outside the
 * supported subset is rejected here with a SqlValidationError naming the construct and its
 * position (the nearest `loc` node-sql-parser recorded).
 */
import { parseDate } from './date';
import { MAX_PRECISION, SYSTEM_DEFAULT } from './decimal';
import type { BinaryOp, Expr, SqlPosition, SqlType } from './expression';
import { findPosition, notSupportedYet, offsetToPosition, SqlValidationError } from './sql-error';
import { WINDOW_IDENT } from './sql-parser';

/** node-sql-parser's AST is loosely typed; we read it defensively. */
export type SqlNode = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const BINARY: Record<string, BinaryOp> = {
  '+': '+', '-': '-', '*': '*', '/': '/', '%': '%', '=': '=', '==': '=', '!=': '<>', '<>': '<>',
  '<': '<', '<=': '<=', '>': '>', '>=': '>=', AND: 'AND', '&&': 'AND', OR: 'OR', '||': '||',
};

const CAST_TYPES: Record<string, SqlType> = {
  BIGINT: 'long', LONG: 'long', INT: 'long', INTEGER: 'long', SMALLINT: 'long', TINYINT: 'long', INT8: 'long', INT4: 'long',
  DOUBLE: 'double', FLOAT: 'double', REAL: 'double', FLOAT8: 'double', NUMERIC: 'decimal', DECIMAL: 'decimal', DEC: 'decimal',
  STRING: 'string', VARCHAR: 'string', TEXT: 'string', CHAR: 'string',
  BOOLEAN: 'boolean', BOOL: 'boolean',
  TIMESTAMP: 'timestamp', TIMESTAMPTZ: 'timestamp', DATETIME: 'timestamp', DATE: 'date',
  BINARY: 'binary', BYTEA: 'binary',
};

/** An identifier as the user wrote it: the parser saw `window` as WINDOW_IDENT (sql-parser.ts). */
function identifier(name: string): string {
  return name === WINDOW_IDENT ? 'window' : name;
}

export function posOf(node: SqlNode | undefined): SqlPosition | undefined {
  const s = node?.loc?.start;
  return s ? { line: s.line, column: s.column } : undefined;
}

/** Identifier text of a column_ref's `column` (a string in some dialects, `{expr:{value}}` in PostgreSQL). */
export function columnName(col: unknown): string {
  if (typeof col === 'string') return identifier(col);
  const v = (col as SqlNode)?.expr?.value;
  return identifier(typeof v === 'string' ? v : String(v));
}

/** The qualifier of a column_ref (`t` in `t.a`): a string, or `{ value }` before `.*`. */
export function tableName(t: unknown): string | undefined {
  if (t === null || t === undefined) return undefined;
  if (typeof t === 'string') return identifier(t);
  const v = (t as SqlNode).value;
  return v === undefined ? undefined : identifier(String(v));
}

export function functionName(node: SqlNode): string {
  const n = node.name;
  if (typeof n === 'string') return n;
  const parts = (n?.name ?? []) as SqlNode[];
  if (parts.length === 0 && n?.schema?.value) return String(n.schema.value);
  return parts.map((p) => String(p.value)).join('.');
}

export class ExpressionBuilder {
  /**
   * @param qualifiers table names/aliases that may qualify a column (`src.a`)
   * @param fallbackPos position used when a node carries none (its enclosing node's)
   */
  constructor(
    private readonly qualifiers: Set<string>,
    private readonly sql = '',
  ) {}

  build(node: SqlNode, fallbackPos?: SqlPosition): Expr {
    const pos = posOf(node) ?? fallbackPos;
    const subscripts = Array.isArray(node.array_index) ? (node.array_index as SqlNode[]) : [];
    let e = this.convert(subscripts.length ? { ...node, array_index: undefined } : node, pos);
    e.pos ??= pos;
    // `arr[0]` (0-based) and `m['k']`: Spark's GetArrayItem and GetMapValue, as get(x, i).
    for (const s of subscripts) {
      if (!s.brackets || !s.index) throw new SqlValidationError('Use x[index] for an array element or m[key] for a map value', pos, '[]');
      e = { kind: 'call', name: 'get', args: [e, this.build(s.index as SqlNode, pos)], subscript: true, pos };
    }
    return e;
  }

  private list(node: SqlNode, pos?: SqlPosition): Expr[] {
    const items = node?.type === 'expr_list' ? (node.value as SqlNode[]) : [node];
    return items.map((x) => this.build(x, pos));
  }

  private convert(node: SqlNode, pos: SqlPosition | undefined): Expr {
    switch (node.type) {
      case 'column_ref': {
        if (node.column === '*') throw new SqlValidationError('* is only allowed as a whole select item', pos, '*');
        const name = columnName(node.column);
        // node-sql-parser records no location for column refs: point at the name's first use.
        const own = findPosition(this.sql, new RegExp(`(?<![A-Za-z0-9_])"?${escapeRegExp(name)}"?(?![A-Za-z0-9_])`));
        const table = tableName(node.table);
        if (table !== undefined && !this.qualifiers.has(table)) {
          // Not a table or alias: `a.b` reads field b of the struct column a (Spark resolves the
          // same way: a qualifier first, then a column). The compiler says if `a` is no struct.
          const at = findPosition(this.sql, new RegExp(`(?<![A-Za-z0-9_])"?${escapeRegExp(table)}"?\\s*\\.`)) ?? own ?? pos;
          return { kind: 'field', arg: { kind: 'column', name: table, pos: at }, field: name, pos: at };
        }
        return { kind: 'column', name, pos: own ?? pos };
      }
      case 'number':
      case 'bigint': {
        const v = Number(node.value);
        if (!Number.isFinite(v)) throw new SqlValidationError(`Number literal ${node.value} is out of range`, pos, 'literal');
        const text = String(node.value);
        const isInt = Number.isInteger(v) && !/[.eE]/.test(text);
        // Spark: a literal with a point and no exponent is a DECIMAL of its digits (`1.80` is DECIMAL(3,2)).
        const dec = /^-?(\d*)\.(\d*)$/.exec(this.decimalText(text));
        if (dec && !isInt) {
          const intDigits = dec[1].replace(/^0+/, '');
          const scale = dec[2].length;
          const precision = Math.max(intDigits.length + scale, scale, 1);
          if (precision > MAX_PRECISION) throw new SqlValidationError(`Decimal literal ${text} has more than ${MAX_PRECISION} digits; write it as a double (${text}D) or with fewer digits`, pos, 'literal');
          const unscaled = BigInt(`${intDigits}${dec[2]}` || '0');
          return { kind: 'literal', value: text.startsWith('-') ? -unscaled : unscaled, type: 'decimal', decimal: { precision, scale } };
        }
        // An integer too large for an exact long is a DECIMAL(p,0), as Spark reads one beyond BIGINT.
        if (isInt && !Number.isSafeInteger(v) && /^\d+$/.test(text)) {
          const digits = text.replace(/^0+/, '');
          if (digits.length > MAX_PRECISION) throw new SqlValidationError(`Number literal ${text} has more than ${MAX_PRECISION} digits`, pos, 'literal');
          return { kind: 'literal', value: BigInt(digits), type: 'decimal', decimal: { precision: digits.length, scale: 0 } };
        }
        return { kind: 'literal', value: v, type: isInt ? 'long' : 'double' };
      }
      case 'single_quote_string':
      case 'string':
      case 'natural_string':
        return { kind: 'literal', value: unescapeSparkString(String(node.value)), type: 'string' };
      case 'bool':
        return { kind: 'literal', value: Boolean(node.value), type: 'boolean' };
      case 'null':
        return { kind: 'literal', value: null, type: 'null' };
      case 'timestamp':
      case 'datetime': {
        const ms = parseTimestampLiteral(String(node.value));
        if (ms === null) throw new SqlValidationError(`Invalid TIMESTAMP literal '${node.value}'; use 'YYYY-MM-DD HH:MM:SS' (UTC)`, pos, 'TIMESTAMP literal');
        return { kind: 'literal', value: ms, type: 'timestamp' };
      }
      case 'date': {
        const days = parseDate(String(node.value));
        if (days === null) throw new SqlValidationError(`Invalid DATE literal '${node.value}'; use 'YYYY-MM-DD'`, pos, 'DATE literal');
        return { kind: 'literal', value: days, type: 'date' };
      }
      case 'unary_expr': {
        const op = String(node.operator).toUpperCase();
        if (op === '-') return { kind: 'unary', op: '-', arg: this.build(node.expr, pos) };
        if (op === '+') return this.build(node.expr, pos);
        if (op === 'NOT' || op === '!') return { kind: 'unary', op: 'NOT', arg: this.build(node.expr, pos) };
        throw new SqlValidationError(`Unsupported unary operator ${node.operator}`, pos, node.operator);
      }
      case 'binary_expr':
        return this.binary(node, pos);
      case 'function':
        return this.func(node, pos);
      case 'case': {
        const branches: { when: Expr; then: Expr }[] = [];
        let otherwise: Expr | undefined;
        for (const a of node.args as SqlNode[]) {
          if (a.type === 'when') branches.push({ when: this.build(a.cond, pos), then: this.build(a.result, pos) });
          else otherwise = this.build(a.result, pos);
        }
        return { kind: 'case', operand: node.expr ? this.build(node.expr, pos) : undefined, branches, otherwise };
      }
      case 'cast': {
        const target = (node.target?.[0]?.dataType ?? node.target?.dataType ?? '') as string;
        const to = CAST_TYPES[String(target).toUpperCase()];
        if (!to) throw new SqlValidationError(`CAST to ${target} is not supported; use BIGINT (LONG, INT), DOUBLE, DECIMAL(p,s), STRING, BINARY, BOOLEAN, TIMESTAMP or DATE`, pos, 'CAST');
        if (to !== 'decimal') return { kind: 'cast', arg: this.build(node.expr, pos), to };
        const t = node.target?.[0] ?? node.target;
        // DECIMAL without (p,s) is Spark's DECIMAL(10,0); DECIMAL(p) is DECIMAL(p,0).
        const precision = t?.length === undefined ? SYSTEM_DEFAULT.precision : Number(t.length);
        const scale = t?.length === undefined ? SYSTEM_DEFAULT.scale : Number(t?.scale ?? 0);
        if (!(precision >= 1 && precision <= MAX_PRECISION) || !(scale >= 0 && scale <= precision)) {
          throw new SqlValidationError(`DECIMAL(${precision},${scale}) is not a decimal type: the precision is 1 to ${MAX_PRECISION} and the scale 0 to the precision`, pos, 'CAST');
        }
        return { kind: 'cast', arg: this.build(node.expr, pos), to, decimal: { precision, scale } };
      }
      case 'extract': {
        const field = String(node.args?.field ?? '').toLowerCase();
        return { kind: 'call', name: 'extract', args: [{ kind: 'literal', value: field, type: 'string', pos }, this.build(node.args.source, pos)] };
      }
      case 'aggr_func':
        throw notSupportedYet(`Aggregate function ${String(node.name).toUpperCase()}()`, pos, 'aggregation (GROUP BY and aggregate functions) arrives with stateful operators');
      case 'window_func':
        throw this.nonTimeWindow(String(node.name), pos);
      case 'interval':
        throw notSupportedYet('INTERVAL', pos);
      default:
        if (node.ast || node.type === 'select') throw notSupportedYet('Subquery', pos);
        throw new SqlValidationError(`Unsupported expression (${node.type})`, pos, String(node.type));
    }
  }

  private binary(node: SqlNode, pos: SqlPosition | undefined): Expr {
    const op = String(node.operator).toUpperCase();
    const left = () => this.build(node.left, pos);
    switch (op) {
      case 'IS':
      case 'IS NOT': {
        if (node.right?.type !== 'null') throw new SqlValidationError(`${op} is only supported with NULL (IS [NOT] NULL)`, pos, op);
        return { kind: 'isNull', arg: left(), negated: op === 'IS NOT' };
      }
      case 'IN':
      case 'NOT IN': {
        if (node.right?.type !== 'expr_list') throw notSupportedYet(`${op} (subquery)`, pos);
        return { kind: 'in', arg: left(), list: this.list(node.right, pos), negated: op === 'NOT IN' };
      }
      case 'BETWEEN':
      case 'NOT BETWEEN': {
        const [low, high] = this.list(node.right, pos);
        return { kind: 'between', arg: left(), low, high, negated: op === 'NOT BETWEEN' };
      }
      case 'LIKE':
      case 'NOT LIKE':
      case 'ILIKE':
      case 'NOT ILIKE': {
        // node-sql-parser hangs `ESCAPE 'c'` on the pattern node.
        const esc = node.right?.escape?.value as SqlNode | undefined;
        if (esc && esc.type !== 'single_quote_string' && esc.type !== 'string') throw new SqlValidationError('ESCAPE needs a string literal of one character', pos, 'ESCAPE');
        return {
          kind: 'like', arg: left(), pattern: this.build(node.right, pos), negated: op.startsWith('NOT'), caseInsensitive: op.endsWith('ILIKE'),
          ...(esc ? { escape: String(esc.value) } : {}),
        };
      }
    }
    // RLIKE / REGEXP, rewritten to PostgreSQL's operators by sql-parser.ts.
    if (op === '~' || op === '!~') {
      const call: Expr = { kind: 'call', name: 'rlike', args: [left(), this.build(node.right, pos)] };
      return op === '~' ? call : { kind: 'unary', op: 'NOT', arg: call };
    }
    const b = BINARY[op];
    if (!b) throw new SqlValidationError(`Operator ${node.operator} is not supported`, pos, String(node.operator));
    return { kind: 'binary', op: b, left: left(), right: this.build(node.right, pos) };
  }

  /**
   * Spark's NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING for `f(...) OVER (...)`. node-sql-parser
   * records no location for window functions, so the call, its window specification and its
   * alias are read from the SQL text at the function's name.
   */
  private nonTimeWindow(name: string, pos: SqlPosition | undefined): SqlValidationError {
    const m = new RegExp(`\\b${escapeRegExp(name)}\\s*\\(`, 'i').exec(this.sql);
    const at = m ? offsetToPosition(this.sql, m.index) : pos;
    let spec = '';
    let column = `${name.toUpperCase()}()`;
    if (m) {
      const over = /\)\s*OVER\s*\(/i.exec(this.sql.slice(m.index));
      if (over) {
        const open = m.index + over.index + over[0].length - 1;
        let depth = 0;
        let close = open;
        for (; close < this.sql.length; close++) {
          if (this.sql[close] === '(') depth++;
          else if (this.sql[close] === ')' && --depth === 0) break;
        }
        spec = this.sql.slice(open, close + 1);
        column = this.sql.slice(m.index, close + 1);
        const alias = /^\s*(?:AS\s+)?(`[^`]+`|"[^"]+"|[A-Za-z_][A-Za-z0-9_]*)/i.exec(this.sql.slice(close + 1));
        if (alias && !/^(FROM|WHERE|GROUP|ORDER|HAVING|LIMIT|UNION)$/i.test(alias[1])) column = alias[1].replace(/^[`"]|[`"]$/g, '');
      }
    }
    return new SqlValidationError(
      `Window function is not supported in ${name.toUpperCase()}() (as column \`${column}\`) on streaming DataFrames/Datasets. ` +
        `Structured Streaming only supports time-window aggregation using the WINDOW function. (window specification: ${spec || '(unknown)'}). ` +
        "In Weir, group by window(<event time>, '<duration>') instead, or deduplicate with the job's dedup option",
      at,
      'window function',
      'NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING',
    );
  }

  /**
   * A decimal literal's digits as the user wrote them. The parser reads a number through a
   * double, so past 17 significant digits its text is not the user's (0.1234567890123456789
   * comes back as 0.1234567890123456774): the literal in the SQL text with the same value and
   * the same number of decimals is.
   */
  private decimalText(text: string): string {
    const m = /^-?(\d*)\.(\d+)$/.exec(text);
    if (!m || (m[1] + m[2]).replace(/^0+/, '').length <= 15) return text;
    const v = Number(text);
    const neg = text.startsWith('-');
    for (const lit of this.sql.matchAll(/(?<![A-Za-z0-9_$.])\d*\.(\d+)(?![0-9eE.])/g)) {
      if (lit[1].length === m[2].length && Number(lit[0]) === Math.abs(v)) return neg ? `-${lit[0]}` : lit[0];
    }
    return text;
  }

  private func(node: SqlNode, pos: SqlPosition | undefined): Expr {
    const name = functionName(node).toLowerCase();
    if (node.over) throw this.nonTimeWindow(name, pos);
    const raw = (node.args?.type === 'expr_list' ? node.args.value : node.args ? [node.args] : []) as SqlNode[];
    const keyword = (n: SqlNode | undefined) => (n?.type === 'origin' ? String(n.value).toUpperCase() : undefined);
    if (raw.some((a) => keyword(a) !== undefined)) {
      // SQL's keyword argument forms: trim([BOTH|LEADING|TRAILING] [chars] FROM s), position(sub IN s).
      const kw = raw.map(keyword);
      if (name === 'trim') {
        const fromAt = kw.indexOf('FROM');
        const mode = ['BOTH', 'LEADING', 'TRAILING'].includes(kw[0] ?? '') ? kw[0]! : 'BOTH';
        const charsNode = raw.slice(kw[0] === mode ? 1 : 0, fromAt).find((a) => keyword(a) === undefined);
        if (fromAt < 0 || fromAt !== raw.length - 2) throw new SqlValidationError('trim() takes trim(s), or trim([BOTH | LEADING | TRAILING] [characters] FROM s)', pos, 'trim');
        const src = this.build(raw[fromAt + 1], pos);
        const fn = mode === 'LEADING' ? 'ltrim' : mode === 'TRAILING' ? 'rtrim' : 'btrim';
        return { kind: 'call', name: fn, args: charsNode ? [src, this.build(charsNode, pos)] : [src] };
      }
      if (name === 'position' && raw.length === 3 && kw[1] === 'IN') return { kind: 'call', name: 'position', args: [this.build(raw[0], pos), this.build(raw[2], pos)] };
      throw new SqlValidationError(`${name}() does not take ${kw.filter(Boolean).join(', ')} here`, pos, name);
    }
    const args = node.args ? this.list(node.args, pos) : [];
    if (name === 'not' && args.length === 1) return { kind: 'unary', op: 'NOT', arg: args[0] };
    if (name === 'all' || name === 'any' || name === 'exists') throw notSupportedYet(`${name.toUpperCase()} (subquery)`, pos);
    return { kind: 'call', name, args };
  }
}

const ESCAPES: Record<string, string> = { '0': '\u0000', b: '\b', n: '\n', r: '\r', t: '\t', Z: '\u001a', '%': '\\%', _: '\\_' };

/**
 * Spark's string literal unescaping (spark.sql.parser.escapedStringLiterals=false, the default):
 * `\n`, `\t`, `\r`, `\b`, `\0`, `\Z`, `\uXXXX`, `\\` → `\`, and `\x` → x for any other x, except
 * that `\%` and `\_` keep their backslash (LIKE's escapes). So `'\\d+'` is the pattern \d+ as in Spark.
 */
function unescapeSparkString(s: string): string {
  if (!s.includes('\\')) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c !== '\\' || i + 1 >= s.length) {
      out += c;
      continue;
    }
    const n = s[++i];
    if (n === 'u' && /^[0-9a-fA-F]{4}$/.test(s.slice(i + 1, i + 5))) {
      out += String.fromCharCode(parseInt(s.slice(i + 1, i + 5), 16));
      i += 4;
    } else out += ESCAPES[n] ?? n;
  }
  return out;
}

/** Parses `YYYY-MM-DD[ T]HH:MM:SS[.fff][Z|±HH:MM]` (UTC when no zone) to epoch ms, or null. */
export function parseTimestampLiteral(s: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/.exec(s.trim());
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = '', zone] = m;
  const ms = Number((frac + '000').slice(0, 3));
  let t = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec), ms);
  if (zone && zone !== 'Z') {
    const zm = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
    const off = (Number(zm[2]) * 60 + Number(zm[3])) * 60_000;
    t -= zm[1] === '+' ? off : -off;
  }
  const check = new Date(t);
  if (Number.isNaN(check.getTime())) return null;
  // Reject impossible dates such as 2024-02-31 (Date.UTC would roll them over).
  if (!zone && (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d))) return null;
  return t;
}

/**
 * `s` as a RegExp matching exactly its text. The only RegExps built from user text here locate
 * an identifier in the SQL for an error position: escaped, they have no quantifier over user
 * text and cannot backtrack.
 */
function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
