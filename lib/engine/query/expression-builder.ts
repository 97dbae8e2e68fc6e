/**
 * Converts node-sql-parser's expression AST into Weir's safe Expr AST. Anything outside the
 * supported subset is rejected here with a SqlValidationError naming the construct and its
 * position (the nearest `loc` node-sql-parser recorded).
 */
import type { ColumnType } from '../types';
import type { BinaryOp, Expr, SqlPosition } from './expression';
import { findPosition, notSupportedYet, SqlValidationError } from './sql-error';

/** node-sql-parser's AST is loosely typed; we read it defensively. */
export type SqlNode = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const BINARY: Record<string, BinaryOp> = {
  '+': '+', '-': '-', '*': '*', '/': '/', '%': '%', '=': '=', '==': '=', '!=': '<>', '<>': '<>',
  '<': '<', '<=': '<=', '>': '>', '>=': '>=', AND: 'AND', '&&': 'AND', OR: 'OR', '||': '||',
};

const CAST_TYPES: Record<string, ColumnType> = {
  BIGINT: 'long', LONG: 'long', INT: 'long', INTEGER: 'long', SMALLINT: 'long', TINYINT: 'long', INT8: 'long', INT4: 'long',
  DOUBLE: 'double', FLOAT: 'double', REAL: 'double', FLOAT8: 'double', NUMERIC: 'double', DECIMAL: 'double',
  STRING: 'string', VARCHAR: 'string', TEXT: 'string', CHAR: 'string',
  BOOLEAN: 'boolean', BOOL: 'boolean',
  TIMESTAMP: 'timestamp', TIMESTAMPTZ: 'timestamp', DATETIME: 'timestamp',
};

export function posOf(node: SqlNode | undefined): SqlPosition | undefined {
  const s = node?.loc?.start;
  return s ? { line: s.line, column: s.column } : undefined;
}

/** Identifier text of a column_ref's `column` (a string in some dialects, `{expr:{value}}` in PostgreSQL). */
export function columnName(col: unknown): string {
  if (typeof col === 'string') return col;
  const v = (col as SqlNode)?.expr?.value;
  return typeof v === 'string' ? v : String(v);
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
    const e = this.convert(node, pos);
    e.pos ??= pos;
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
        if (node.table && !this.qualifiers.has(String(node.table))) {
          throw new SqlValidationError(`Unknown table or alias "${node.table}" in ${node.table}.${columnName(node.column)}`, pos, 'column reference');
        }
        const name = columnName(node.column);
        // node-sql-parser records no location for column refs: point at the name's first use.
        const own = findPosition(this.sql, new RegExp(`(?<![A-Za-z0-9_])"?${escapeRegExp(name)}"?(?![A-Za-z0-9_])`));
        return { kind: 'column', name, pos: own ?? pos };
      }
      case 'number':
      case 'bigint': {
        const v = Number(node.value);
        if (!Number.isFinite(v)) throw new SqlValidationError(`Number literal ${node.value} is out of range`, pos, 'literal');
        const isInt = Number.isInteger(v) && !/[.eE]/.test(String(node.value));
        return { kind: 'literal', value: v, type: isInt ? 'long' : 'double' };
      }
      case 'single_quote_string':
      case 'string':
      case 'natural_string':
        return { kind: 'literal', value: String(node.value), type: 'string' };
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
        if (!to) throw new SqlValidationError(`CAST to ${target} is not supported; use BIGINT, DOUBLE, STRING, BOOLEAN or TIMESTAMP`, pos, 'CAST');
        return { kind: 'cast', arg: this.build(node.expr, pos), to };
      }
      case 'extract': {
        const field = String(node.args?.field ?? '').toLowerCase();
        return { kind: 'call', name: 'extract', args: [{ kind: 'literal', value: field, type: 'string', pos }, this.build(node.args.source, pos)] };
      }
      case 'aggr_func':
        throw notSupportedYet(`Aggregate function ${String(node.name).toUpperCase()}()`, pos, 'aggregation (GROUP BY and aggregate functions) arrives with stateful operators');
      case 'window_func':
        // node-sql-parser records no location here: point at the function's name.
        throw notSupportedYet(`Window function ${node.name}()`, pos ?? findPosition(this.sql, new RegExp(`\\b${escapeRegExp(String(node.name))}\\s*\\(`, 'i')));
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
    const b = BINARY[op];
    if (!b) throw new SqlValidationError(`Operator ${node.operator} is not supported`, pos, String(node.operator));
    return { kind: 'binary', op: b, left: left(), right: this.build(node.right, pos) };
  }

  private func(node: SqlNode, pos: SqlPosition | undefined): Expr {
    const name = functionName(node).toLowerCase();
    if (node.over) throw notSupportedYet(`Window function ${name}()`, pos);
    const args = node.args ? this.list(node.args, pos) : [];
    if (name === 'not' && args.length === 1) return { kind: 'unary', op: 'NOT', arg: args[0] };
    if (name === 'all' || name === 'any' || name === 'exists') throw notSupportedYet(`${name.toUpperCase()} (subquery)`, pos);
    return { kind: 'call', name, args };
  }
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
