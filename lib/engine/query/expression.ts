/**
 * The safe expression AST that SQL compiles to. The parser's unresolved expressions
 * (parser/unresolved-plan.ts) are resolved into this small closed set of node kinds
 * (expression-builder.ts), typed in the resolved plan (resolved-plan.ts), and compiled to
 * closures by physical planning (expression-compiler.ts). Nothing the user typed is ever
 * evaluated as code.
 */
import type { ColumnType, Field } from '../types';
import { simpleTypeString, typeText, type TypeInfo } from './data-types';
import { formatDate } from './date';
import { formatDecimal, type DecimalType } from './decimal';
import { formatInterval, intervalTypeText, type IntervalFields, type IntervalKind } from './interval-utils';
import { INTEGRAL_NAMES, type IntegralBits } from './long';
import { formatTimestamp } from './timestamp-micros';
import type { ScalarSubquery } from './logical-plan';

/**
 * A type a literal or a CAST can have: a `decimal` carries its DecimalType beside it;
 * `calendar_interval` is Spark's CalendarIntervalType (`interval`, calendar-interval.ts).
 */
export type SqlType = ColumnType | 'decimal' | 'date' | IntervalKind | 'calendar_interval' | 'variant';

/** 1-based position in the SQL text. */
export interface SqlPosition {
  line: number;
  column: number;
}

export type BinaryOp = '+' | '-' | '*' | '/' | '%' | '=' | '<>' | '<' | '<=' | '>' | '>=' | 'AND' | 'OR' | '||';

interface Base {
  pos?: SqlPosition;
  /**
   * The expression's resolved type over its node's input, set by the analysis (resolved-plan.ts)
   * on each expression a plan node holds; unset before it, and on what the optimizer makes.
   */
  dataType?: TypeInfo;
}

export type Expr = Base &
  (
    /** A `decimal` literal's value is its unscaled bigint (Spark reads `1.8` as DECIMAL(2,1)). */
    /**
     * `bigint`: written as a BIGINT (an L suffix, or an integer past INT's range), which Spark's
     * INT-only arguments refuse (date_add's days), where Weir's one integral type would take it.
     */
    /** `interval`: an interval literal's unit range (`INTERVAL '1 02' DAY TO HOUR`). */
    /**
     * `integral`: an INT (`1`), SMALLINT (`1S`) or TINYINT (`1Y`) literal's width; `float32`: a
     * FLOAT (`1.5F`); `ntz`: a TIMESTAMP_NTZ (`TIMESTAMP_NTZ '2020-01-02 03:04:05'`).
     */
    | { kind: 'literal'; value: unknown; type: SqlType | 'null'; decimal?: DecimalType; bigint?: true; interval?: IntervalFields; integral?: IntegralBits; float32?: true; ntz?: true }
    | { kind: 'column'; name: string }
    /** Field `field` of a struct (`window.start`, `parsed.id`). */
    | { kind: 'field'; arg: Expr; field: string }
    | { kind: 'unary'; op: '-' | 'NOT'; arg: Expr }
    | { kind: 'binary'; op: BinaryOp; left: Expr; right: Expr }
    | { kind: 'isNull'; arg: Expr; negated: boolean }
    | { kind: 'in'; arg: Expr; list: Expr[]; negated: boolean }
    | { kind: 'between'; arg: Expr; low: Expr; high: Expr; negated: boolean }
    | { kind: 'like'; arg: Expr; pattern: Expr; negated: boolean; caseInsensitive: boolean; escape?: string }
    | { kind: 'case'; operand?: Expr; branches: { when: Expr; then: Expr }[]; otherwise?: Expr }
    /** `decimal`: DECIMAL(p,s) when `to` is `decimal`. */
    /**
     * `integral`: a cast to INT (32), SMALLINT (16) or TINYINT (8) bits: a value of that type,
     * as Spark's cast gives it (NULL for text out of range, wrapped otherwise). `float32`: a cast
     * to FLOAT (REAL), rounded to single precision. `ntz`: a cast to TIMESTAMP_NTZ.
     */
    /** `target`: an ARRAY, MAP or STRUCT type's full Field (`to` is then its kind). */
    /**
     * `implicit`: a coercion the analysis wrote (resolved-plan.ts, Spark's TypeCoercion), not a
     * CAST the query wrote: a name made of the expression does not show it (Spark names a column
     * before it coerces), the explain does (`explainExprToString`).
     */
    | { kind: 'cast'; arg: Expr; to: SqlType | 'array' | 'map' | 'struct'; decimal?: DecimalType; integral?: IntegralBits; float32?: true; ntz?: true; interval?: IntervalFields; target?: Field; implicit?: true; try?: true; failOnError?: true }
    /**
     * `subscript`: written `a[i]` (the call is get(a, i)), and shown so. `operator`: written
     * `a << b` (the call is shiftleft(a, b)), and shown `(a << b)`, as Spark's FUNC_ALIAS.
     * `variantPath`: written `v:a.b` (the call is variant_get(v, '$.a.b'), Spark's
     * SemiStructuredExtract), whose `v` must be a VARIANT.
     */
    | { kind: 'call'; name: string; args: Expr[]; subscript?: boolean; operator?: string; variantPath?: true }
    /**
     * Spark's LambdaFunction `(x, i) -> body`: only an argument of a higher-order function
     * (higher-order-functions.ts), which binds its parameters. Names in `body` that are its
     * parameters were resolved by the builder into `lambdaVariable`s.
     */
    | { kind: 'lambda'; params: string[]; body: Expr }
    /** Spark's NamedLambdaVariable: the parameter `name` of the innermost enclosing lambda that has it. */
    | { kind: 'lambdaVariable'; name: string }
    /**
     * Spark's ScalarSubquery over static tables: its one value, see ScalarSubquery. `outer`
     * (Spark's outerAttrs, its children): a correlated one's outer values, the expressions over
     * this node's row that its plan's `outerReference`s read by position; its value is its plan's
     * for those values (correlated-scalar-subquery.ts).
     */
    | { kind: 'scalarSubquery'; subquery: ScalarSubquery; outer?: Expr[] }
    /**
     * Spark's OuterReference: in a correlated subquery's plan, the outer query's value at
     * `index` of the subquery's `outer`, named `name` as written, of type `type`; `level`: how
     * deep the subquery is (1 for one in a query that is no subquery).
     */
    | { kind: 'outerReference'; index: number; name: string; type: TypeInfo; level: number }
  );

/** SQL-ish text of an expression: used for default output column names and `explain`. */
/** The type a CAST names, in Spark's DDL (`BIGINT`, `INT`, `DECIMAL(10,2)`). */
export function castTypeText(e: Extract<Expr, { kind: 'cast' }>): string {
  if (e.decimal) return `DECIMAL(${e.decimal.precision},${e.decimal.scale})`;
  if (e.integral) return INTEGRAL_NAMES[e.integral];
  if (e.float32) return 'FLOAT';
  if (e.ntz) return 'TIMESTAMP_NTZ';
  if (e.target) return typeText(e.target);
  if (e.to === 'day_time_interval' || e.to === 'year_month_interval') return intervalTypeText(e.to, e.interval);
  return e.to === 'long' ? 'BIGINT' : e.to === 'calendar_interval' ? 'INTERVAL' : e.to.toUpperCase();
}

const OPERATOR_CALLS: Record<string, string> = { '&': '&', '|': '|', '^': '^', div: 'div' };

/**
 * Spark's hidden file metadata column: a name no column has reads as a call of this name, which
 * prints as the column (query/misc-functions.ts).
 */
export const METADATA_COLUMN = '_metadata';

export function exprToString(e: Expr): string {
  return sqlText(e, false);
}

/**
 * The text of `e` in a plan's explain: as exprToString, with the implicit casts the analysis wrote
 * shown as Spark's explain shows a Cast, `cast(a as bigint)`, and `a || b` as the Concat Spark's
 * analysis makes of it, `concat(cast(i as string), s)`.
 */
export function explainExprToString(e: Expr): string {
  return sqlText(e, true);
}

function sqlText(e: Expr, explain: boolean): string {
  const text = (x: Expr) => sqlText(x, explain);
  switch (e.kind) {
    case 'literal':
      if (e.value === null) return 'NULL';
      if (e.type === 'string') return `'${String(e.value).replace(/'/g, "''")}'`;
      // As Spark's Literal.sql: the session zone's (UTC) text, `TIMESTAMP_NTZ` for one without a zone.
      if (e.type === 'timestamp') return `TIMESTAMP${e.ntz ? '_NTZ' : ''} '${formatTimestamp(e.value as number)}'`;
      if (e.type === 'date') return `DATE '${formatDate(e.value as number)}'`;
      if (e.type === 'decimal' && e.decimal) return formatDecimal(e.value as bigint, e.decimal.scale);
      if ((e.type === 'day_time_interval' || e.type === 'year_month_interval') && e.interval) return formatInterval(e.type, e.value, e.interval);
      return String(e.value);
    case 'column':
      return e.name;
    case 'field':
      return `${text(e.arg)}.${e.field}`;
    case 'unary':
      return e.op === 'NOT' ? `(NOT ${text(e.arg)})` : `(- ${text(e.arg)})`;
    case 'binary':
      if (explain && e.op === '||') return `concat(${text(e.left)}, ${text(e.right)})`;
      return `(${text(e.left)} ${e.op} ${text(e.right)})`;
    case 'isNull':
      return `(${text(e.arg)} IS ${e.negated ? 'NOT ' : ''}NULL)`;
    case 'in':
      return `(${text(e.arg)} ${e.negated ? 'NOT ' : ''}IN (${e.list.map(text).join(', ')}))`;
    case 'between':
      return `(${text(e.arg)} ${e.negated ? 'NOT ' : ''}BETWEEN ${text(e.low)} AND ${text(e.high)})`;
    case 'like':
      return `(${text(e.arg)} ${e.negated ? 'NOT ' : ''}${e.caseInsensitive ? 'ILIKE' : 'LIKE'} ${text(e.pattern)}${e.escape !== undefined ? ` ESCAPE '${e.escape.replace(/'/g, "''")}'` : ''})`;
    case 'case': {
      const parts = ['CASE'];
      if (e.operand) parts.push(text(e.operand));
      for (const b of e.branches) parts.push(`WHEN ${text(b.when)} THEN ${text(b.then)}`);
      if (e.otherwise) parts.push(`ELSE ${text(e.otherwise)}`);
      parts.push('END');
      return parts.join(' ');
    }
    case 'cast':
      // Spark's Cast prints its type's simpleString (`array<bigint>`, `map<string,int>`, `struct<x:double>`).
      if (e.implicit) return explain ? `cast(${text(e.arg)} as ${e.target ? simpleTypeString(e.target) : castTypeText(e).toLowerCase()})` : text(e.arg);
      return `${e.try ? 'TRY_CAST' : 'CAST'}(${text(e.arg)} AS ${castTypeText(e)})`;
    case 'call':
      if (e.subscript) return `${text(e.args[0])}[${text(e.args[1])}]`;
      if (e.operator && e.args.length === 2) return `(${text(e.args[0])} ${e.operator} ${text(e.args[1])})`;
      if (e.name === METADATA_COLUMN && e.args.length === 0) return METADATA_COLUMN;
      // The operators the builder makes calls of are shown as Spark shows them: `(a & b)`, `~a`.
      if (e.name === '~' && e.args.length === 1) return `~${text(e.args[0])}`;
      if (e.name === 'positive' && e.args.length === 1) return `(+ ${text(e.args[0])})`;
      if (Object.hasOwn(OPERATOR_CALLS, e.name) && e.args.length === 2) return `(${text(e.args[0])} ${OPERATOR_CALLS[e.name]} ${text(e.args[1])})`;
      return `${e.name}(${e.args.map(text).join(', ')})`;
    // Spark 3.1's name for a lambda (later versions hide the variables' names, which would make
    // `(a, b) -> a - b` and `(a, b) -> b - a` one name, and so one aggregate or grouping key).
    case 'lambda':
      return `lambdafunction(${[text(e.body), ...e.params].join(', ')})`;
    case 'lambdaVariable':
      return e.name;
    // Spark names the column `scalarsubquery(<outer values>)` and explains the expression
    // `scalar-subquery#<id> [<outer values>]`.
    case 'scalarSubquery': {
      const outer = (e.outer ?? []).map(text).join(explain ? ' && ' : ', ');
      return explain ? `scalar-subquery#${e.subquery.id} [${outer}]` : `scalarsubquery(${outer})`;
    }
    case 'outerReference':
      return explain ? `outer(${e.name})` : e.name;
  }
}

/** The parts of a conjunction `a AND b AND …`, in order (an expression that is no AND: itself). */
export function conjuncts(e: Expr): Expr[] {
  return e.kind === 'binary' && e.op === 'AND' ? [...conjuncts(e.left), ...conjuncts(e.right)] : [e];
}

/** `a AND b AND …` of one or more expressions. */
export function conjunction(es: Expr[]): Expr {
  // An AND of typed conditions is a typed BOOLEAN, as the analysis would type it: what the
  // optimizer joins keeps the plan typed.
  return es.reduce((l, r) => ({ kind: 'binary', op: 'AND', left: l, right: r, ...(l.dataType && r.dataType ? { dataType: { type: 'boolean' } } : {}) }));
}

/** An expression's direct subexpressions, in the order they are written. */
export function exprChildren(e: Expr): Expr[] {
  switch (e.kind) {
    case 'column': case 'literal': case 'lambdaVariable': case 'outerReference':
      return [];
    case 'scalarSubquery':
      return e.outer ?? [];
    case 'unary': case 'isNull': case 'cast': case 'field':
      return [e.arg];
    case 'binary':
      return [e.left, e.right];
    case 'in':
      return [e.arg, ...e.list];
    case 'between':
      return [e.arg, e.low, e.high];
    case 'like':
      return [e.arg, e.pattern];
    case 'case':
      return [...(e.operand ? [e.operand] : []), ...e.branches.flatMap((b) => [b.when, b.then]), ...(e.otherwise ? [e.otherwise] : [])];
    case 'call':
      return e.args;
    case 'lambda':
      return [e.body];
  }
}

/**
 * Catalyst's mapChildren for an expression: a copy of `e` whose direct subexpressions are `f` of each (`e` itself
 * when `f` changes none of them). The node's own fields, `dataType` included, are kept.
 */
export function mapExprChildren(e: Expr, f: (child: Expr) => Expr): Expr {
  const kids = exprChildren(e);
  const mapped = kids.map(f);
  if (mapped.every((m, i) => m === kids[i])) return e;
  let i = 0;
  const next = () => mapped[i++];
  switch (e.kind) {
    case 'column': case 'literal': case 'lambdaVariable': case 'outerReference':
      return e;
    case 'scalarSubquery':
      return { ...e, outer: e.outer!.map(next) };
    case 'unary': case 'isNull': case 'cast': case 'field':
      return { ...e, arg: next() };
    case 'binary':
      return { ...e, left: next(), right: next() };
    case 'in':
      return { ...e, arg: next(), list: e.list.map(next) };
    case 'between':
      return { ...e, arg: next(), low: next(), high: next() };
    case 'like':
      return { ...e, arg: next(), pattern: next() };
    case 'case':
      return { ...e, ...(e.operand ? { operand: next() } : {}), branches: e.branches.map(() => ({ when: next(), then: next() })), ...(e.otherwise ? { otherwise: next() } : {}) };
    case 'call':
      return { ...e, args: e.args.map(next) };
    case 'lambda':
      return { ...e, body: next() };
  }
}

/** The operators Spark's Canonicalize orders the operands of (orderCommutative): Add, Multiply, And, Or, EqualTo. */
const COMMUTATIVE: ReadonlySet<BinaryOp> = new Set<BinaryOp>(['+', '*', 'AND', 'OR', '=']);

/**
 * Spark's Canonicalize, by which semanticEquals compares two expressions (a select item with a
 * grouping expression, two grouping expressions): the operands of a commutative operator in the
 * order of their text, a chain of one associative operator flattened first, so `b + a` and
 * `(c + a) + b` read as `a + b` and `(a + b) + c`. Any other expression is itself, its
 * subexpressions canonicalized.
 */
export function canonicalized(e: Expr): Expr {
  if (e.kind !== 'binary' || !COMMUTATIVE.has(e.op)) return mapExprChildren(e, canonicalized);
  const operands: Expr[] = [];
  const flatten = (x: Expr): void => {
    if (x.kind === 'binary' && x.op === e.op && e.op !== '=') {
      flatten(x.left);
      flatten(x.right);
    } else operands.push(canonicalized(x));
  };
  flatten(e.left);
  flatten(e.right);
  const ordered = operands.map((x) => ({ x, text: exprToString(x) })).sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0)).map((o) => o.x);
  return ordered.slice(1).reduce((left: Expr, right) => ({ ...e, left, right }), ordered[0]);
}

/** Every column name an expression reads (a lambda's body may read the row's columns too; its own variables are not columns). */
export function referencedColumns(e: Expr, out = new Set<string>()): Set<string> {
  if (e.kind === 'column') out.add(e.name);
  for (const c of exprChildren(e)) referencedColumns(c, out);
  return out;
}

/** The name struct() gives its argument's field (Spark's CreateStruct): a column's or field's name, a lambda variable's, else `col<i+1>`. */
export function structFieldName(arg: Expr, i: number): string {
  return arg.kind === 'column' ? arg.name.split('.').pop()! : arg.kind === 'field' ? arg.field : arg.kind === 'lambdaVariable' ? arg.name : `col${i + 1}`;
}
