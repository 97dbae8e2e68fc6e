/**
 * Unresolved expressions printed back as Spark SQL, with as few parentheses as Spark's grammar
 * needs (its precedence: postfix `.` `[]`, unary, `* / % DIV`, `+ - ||`, `<< >> >>>`, `&`, `^`, `|`,
 * comparisons, predicates, NOT, AND, OR; binary operators left-associative). tree-string.ts
 * prints plans with it, Catalyst style (`'a` for an unresolved name); the property test parses
 * the plain form back to check precedence and associativity.
 * Part of the Spark SQL front end (see unresolved-plan.ts).
 */
import { quoteIfNeeded, sql as typeSql } from './data-type';
import type { BinaryOp, DecimalValue, Expression, Literal } from './unresolved-plan';

const BINARY: Record<BinaryOp, [string, number]> = {
  Or: ['OR', 1], And: ['AND', 2],
  EqualTo: ['=', 5], EqualNullSafe: ['<=>', 5], LessThan: ['<', 5], LessThanOrEqual: ['<=', 5], GreaterThan: ['>', 5], GreaterThanOrEqual: ['>=', 5],
  BitwiseOr: ['|', 6], BitwiseXor: ['^', 7], BitwiseAnd: ['&', 8],
  ShiftLeft: ['<<', 9], ShiftRight: ['>>', 9], ShiftRightUnsigned: ['>>>', 9],
  Add: ['+', 10], Subtract: ['-', 10], Concat: ['||', 10],
  Multiply: ['*', 11], Divide: ['/', 11], Remainder: ['%', 11], IntegralDivide: ['DIV', 11],
};
const PRIMARY = 13;

const LEVELS: Partial<Record<Expression['kind'], number>> = {
  Not: 3, IsNull: 4, IsNotNull: 4, In: 4, InSubquery: 4, Between: 4, Like: 4, RLike: 4,
  UnaryMinus: 12, UnaryPositive: 12, BitwiseNot: 12, LambdaFunction: 0, NamedArgumentExpression: 0,
};

function level(e: Expression): number {
  if (e.kind === 'BinaryOperator') return BINARY[e.op][1];
  if (e.kind === 'Literal' && typeof e.value === 'bigint' && e.value < 0n) return 12;
  return LEVELS[e.kind] ?? PRIMARY;
}

function decimalText({ unscaled, scale }: DecimalValue): string {
  const neg = unscaled < 0n;
  const digits = (neg ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return neg ? `-${text}` : text;
}

const quoteString = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;

/** A literal as Spark's Literal.sql writes it (`1`, `1L`, `1Y`, `1.50BD`, `'a'`, `DATE '…'`). */
function literalSql(l: Literal): string {
  const v = l.value;
  if (v === null) return 'NULL';
  const k = l.dataType.kind;
  const suffix: Partial<Record<typeof k, string>> = { integer: '', long: 'L', short: 'S', byte: 'Y', double: 'D', float: 'F' };
  if (suffix[k] !== undefined) return `${String(v)}${suffix[k]}`;
  if (k === 'boolean') return String(v).toUpperCase();
  if (k === 'decimal') return `${decimalText(v as DecimalValue)}BD`;
  if (k === 'string') return quoteString(v as string);
  if (k === 'binary') return `X'${[...(v as Uint8Array)].map((b) => b.toString(16).padStart(2, '0').toUpperCase()).join('')}'`;
  // A special value other than epoch (literals.ts) is kept as its word.
  if (k === 'date') return typeof v === 'string' ? `DATE '${v}'` : `DATE '${new Date(Number(v) * 86_400_000).toISOString().slice(0, 10)}'`;
  if (k === 'timestamp' || k === 'timestamp_ntz') return `${k.toUpperCase()} '${String(v)}'`;
  return `${typeSql(l.dataType)} ${String(v)}`;
}

export interface SqlStyle {
  /** Catalyst's tree style: `'a` for an unresolved name, `'f(…)` for an unresolved function. */
  readonly catalyst?: boolean;
}

/** `e` as SQL text that parses back to `e` (ast-builder.ts's parseExpression). */
export function expressionSql(e: Expression, style: SqlStyle = {}): string {
  const q = style.catalyst ? "'" : '';
  const s = (x: Expression, min = 0): string => {
    const text = expressionSql(x, style);
    return level(x) < min ? `(${text})` : text;
  };
  const name = (parts: readonly string[]) => parts.map(quoteIfNeeded).join('.');
  switch (e.kind) {
    case 'UnresolvedAttribute': return `${q}${name(e.nameParts)}`;
    case 'UnresolvedNamedLambdaVariable': return `${q}${name(e.nameParts)}`;
    case 'UnresolvedStar': return `${e.target ? `${name(e.target)}.*` : '*'}${e.except ? ` EXCEPT (${e.except.map(name).join(', ')})` : ''}`;
    case 'Literal': return literalSql(e);
    case 'BinaryOperator': {
      const [sym, lv] = BINARY[e.op];
      return `${s(e.left, lv)} ${sym} ${s(e.right, lv + 1)}`;
    }
    case 'Not': return `NOT ${s(e.child, 3)}`;
    case 'UnaryMinus': case 'UnaryPositive': case 'BitwiseNot': {
      // `-1…` would lex as a negative number literal, which then binds first (`-1[0]` is (-1)[0]).
      let child = s(e.child, 12);
      if (/^[0-9.]/.test(child)) child = `(${child})`;
      const sym = e.kind === 'UnaryMinus' ? '-' : e.kind === 'UnaryPositive' ? '+' : '~';
      return `${sym}${/^[-+~]/.test(child) ? ' ' : ''}${child}`;
    }
    case 'IsNull': return `${s(e.child, 5)} IS NULL`;
    case 'IsNotNull': return `${s(e.child, 5)} IS NOT NULL`;
    case 'In': return `${s(e.value, 5)} IN (${e.list.map((x) => s(x, 1)).join(', ')})`;
    case 'InSubquery': return `${e.values.length > 1 ? `(${e.values.map((v) => s(v, 1)).join(', ')})` : s(e.values[0], 5)} IN (<subquery>)`;
    case 'Between': return `${s(e.value, 5)} BETWEEN ${s(e.lower, 6)} AND ${s(e.upper, 6)}`;
    case 'Like': return `${s(e.left, 5)} ${e.caseInsensitive ? 'ILIKE' : 'LIKE'} ${s(e.right, 6)}${e.escapeChar === '\\' ? '' : ` ESCAPE ${quoteString(e.escapeChar)}`}`;
    case 'RLike': return `${s(e.left, 5)} RLIKE ${s(e.right, 6)}`;
    case 'Cast': return `${e.evalMode === 'TRY' ? 'TRY_CAST' : 'CAST'}(${s(e.child)} AS ${typeSql(e.dataType)})`;
    case 'Alias': return `${s(e.child)} AS ${quoteIfNeeded(e.name)}`;
    case 'MultiAlias': return `${s(e.child)} AS (${e.names.map(quoteIfNeeded).join(', ')})`;
    case 'UnresolvedExtractValue': return `${s(e.child, PRIMARY)}[${s(e.extraction, 5)}]`; // the index is a valueExpression
    case 'SemiStructuredExtract': return `${s(e.child, PRIMARY)}:${e.field.slice(e.field.startsWith('$.') ? 2 : 1)}`;
    case 'CaseWhen':
      return `CASE ${e.branches.map(([c, v]) => `WHEN ${s(c)} THEN ${s(v)}`).join(' ')}${e.elseValue ? ` ELSE ${s(e.elseValue)}` : ''} END`;
    case 'UnresolvedFunction': {
      const args = e.arguments.map((a) => s(a)).join(', ');
      const filter = e.filter ? ` FILTER (WHERE ${s(e.filter)})` : '';
      const within = e.orderingWithinGroup ? ` WITHIN GROUP (ORDER BY ${e.orderingWithinGroup.map((o) => s(o)).join(', ')})` : '';
      return `${q}${name(e.nameParts)}(${e.isDistinct ? 'DISTINCT ' : ''}${args})${e.ignoreNulls ? ' IGNORE NULLS' : ''}${within}${filter}`;
    }
    case 'LambdaFunction': {
      const vars = e.arguments.map((v) => name(v.nameParts));
      return `${vars.length === 1 ? vars[0] : `(${vars.join(', ')})`} -> ${s(e.function)}`;
    }
    case 'NamedArgumentExpression': return `${quoteIfNeeded(e.key)} => ${s(e.value)}`;
    case 'SortOrder': return `${s(e.child)} ${e.direction === 'Ascending' ? 'ASC' : 'DESC'} ${e.nullOrdering === 'NullsFirst' ? 'NULLS FIRST' : 'NULLS LAST'}`;
    case 'ScalarSubquery': return 'scalar-subquery';
    case 'Exists': return 'exists#subquery';
    case 'UnresolvedWindowExpression':
      return `${s(e.child)} OVER (${e.windowName ?? [e.partitionSpec.length ? `PARTITION BY ${e.partitionSpec.map((p) => s(p)).join(', ')}` : '', e.orderSpec.length ? `ORDER BY ${e.orderSpec.map((o) => s(o)).join(', ')}` : '', e.frame ?? ''].filter(Boolean).join(' ')})`;
    case 'GroupingAnalytics':
      return `${e.type === 'GroupingSets' ? 'GROUPING SETS' : e.type.toUpperCase()}(${e.groupingSets.map((g) => `(${g.map((x) => s(x)).join(', ')})`).join(', ')})`;
  }
}
