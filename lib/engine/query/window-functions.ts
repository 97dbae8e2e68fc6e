/**
 * Window functions (`f(…) OVER (PARTITION BY … ORDER BY … ROWS|RANGE …)`, `OVER w` of a WINDOW
 * clause) in a batch plan over static tables, as Spark's analyzer resolves them: the ranking
 * functions (row_number, rank, dense_rank, percent_rank, cume_dist, ntile), the offset ones
 * (lag, lead, nth_value), counter_diff (a cumulative counter's increase since the row before),
 * first_value/last_value and every aggregate function over a frame.
 * Spark's ExtractWindowExpressions puts them in Window nodes below the select list, one per
 * distinct partitioning and ordering; ResolveWindowFrame gives the default frame (with ORDER BY
 * RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, without it the whole partition) and the
 * ranking functions' own (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW). Over a stream they
 * stay refused (NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING, expression-builder.ts).
 */
import type { AggregateSpec } from '../operators/aggregate';
import type { Field, Schema } from '../types';
import { fieldOfType, sameType, typeText, typeOfField, type TypeInfo } from './data-types';
import { decimalToDouble } from './decimal';
import { exprToString, type Expr, type SqlPosition } from './expression';
import { lineColumn, type ExpressionBuilder } from './expression-builder';
import { compileExpression, implicitCastExpr, typeOfCompiled, type Evaluator } from './expression-compiler';
import type { LogicalPlan, WindowFrameBound, WindowFrameSpec, WindowFunctionCall } from './logical-plan';
import { isAggregateFunctionName, PERCENTILE_WITHIN_GROUP } from './aggregate-functions';
import { withinGroup } from './aggregate-planner';
import { LIST_AGG_NAMES } from './within-group';
import { expressionSql } from './parser/expression-sql';
import { mapExpression, someExpression } from './parser/expression-tree';
import type { Expression, FrameBound } from './parser/unresolved-plan';
import { SqlValidationError } from './sql-error';
import { canCast, castValue, type ExprType } from './sql-values';
import { compileAggregateCall } from './stateful-planner';
import { OFFSET, RANKING, ROW_FRAMED, WINDOW_ONLY } from './window-function-names';

/** first_value and last_value are Spark's First and Last aggregates. */
const FIRST_LAST = new Set(['first', 'first_value', 'last', 'last_value', 'any_value']);
/** The aggregates Spark evaluates over a whole partition only (INVALID_WINDOW_SPEC_FOR_AGGREGATION_FUNC otherwise). */
const WHOLE_PARTITION = new Set([...PERCENTILE_WITHIN_GROUP, 'median']);

type WindowExpression = Extract<Expression, { kind: 'UnresolvedWindowExpression' }>;

/** Spark's error for `sum(rank() OVER …)`, a window function inside an aggregate's (or a window function's) arguments. */
export const windowInsideAggregate = (pos: Expression['pos']) =>
  new SqlValidationError('It is not allowed to use a window function inside an aggregate function. Please use the inner window function in a sub-query.', lineColumn(pos), 'window function', '_LEGACY_ERROR_TEMP_1031');

/** Whether an expression holds a window expression (`f(…) OVER …`). */
export const hasWindowExpression = (e: Expression): boolean => someExpression(e, (x) => x.kind === 'UnresolvedWindowExpression');

const mismatch = (sub: string, message: string, pos: SqlPosition | undefined, fix: string) =>
  new SqlValidationError(`[DATATYPE_MISMATCH.${sub}] Cannot resolve the window frame due to data type mismatch: ${message}. ${fix}`, pos, 'window frame', `DATATYPE_MISMATCH.${sub}`);

/** A literal frame bound's value: a number (a DECIMAL's as a double), or an interval's (its micros or months) with its kind. */
function boundValue(e: Expr, pos: SqlPosition | undefined): { value: number; type: string } {
  const lit = e.kind === 'unary' && e.op === '-' && e.arg.kind === 'literal' ? e.arg : e.kind === 'literal' ? e : undefined;
  if (!lit || lit.kind !== 'literal' || lit.value === null) {
    throw mismatch('SPECIFIED_WINDOW_FRAME_WITHOUT_FOLDABLE', `Window frame bound ${exprToString(e)} is not a literal`, pos, 'Write the bound as a literal: 2 PRECEDING, INTERVAL 1 DAY FOLLOWING');
  }
  const sign = lit === e ? 1 : -1;
  const v = lit.value;
  const n = typeof v === 'bigint' ? (lit.type === 'decimal' && lit.decimal ? decimalToDouble(v, lit.decimal.scale) : Number(v)) : Number(v);
  return { value: sign * n, type: lit.type === 'decimal' ? 'double' : String(lit.type) };
}

/**
 * Spark's WindowFrameCoercion of a RANGE frame's string bound beside one numeric ORDER BY key:
 * the text cast to the key's type ('inf' a FLOAT's infinity, 'NaN' its NaN). Text the cast
 * cannot read fails as Spark's ANSI cast does; beside any other key the bound is left as written.
 */
function stringBound(text: string, key: Field, pos: SqlPosition | undefined): { value: number; type: string } | undefined {
  if (key.type !== 'long' && key.type !== 'double' && key.type !== 'decimal') return undefined;
  const decimal = key.type === 'decimal' ? { precision: key.precision!, scale: key.scale! } : undefined;
  const cast = castValue(text, 'string', key.type, undefined, decimal);
  if (cast === null) {
    throw new SqlValidationError(`[CAST_INVALID_INPUT] The value '${text}' of the type "STRING" cannot be cast to "${typeText(key)}" because it is malformed. Write the window frame's bound as a number of the ORDER BY's type`, pos, 'window frame', 'CAST_INVALID_INPUT');
  }
  return { value: decimal ? decimalToDouble(cast as bigint, decimal.scale) : Number(cast), type: key.type === 'long' ? 'long' : 'double' };
}

/**
 * A window expression's frame, resolved as Spark's ResolveWindowFrame and the frame's checks
 * resolve it: the default where none is written, the ranking and offset functions' own, and
 * Spark's DATATYPE_MISMATCH errors for a frame that cannot run.
 */
function resolveFrame(e: WindowExpression, fn: string, orderTypes: readonly Field[], builder: ExpressionBuilder): WindowFrameSpec {
  const written = e.frameSpec;
  const pos = written ? lineColumn(written.pos) : lineColumn(e.pos);
  const own: WindowFrameSpec = { frameType: 'Rows', lower: 'UnboundedPreceding', upper: 'CurrentRow' };
  // counter_diff is an AggregateWindowFunction: Spark's CheckAnalysis asks its window for an order.
  if (fn === 'counter_diff' && e.orderSpec.length === 0) {
    throw new SqlValidationError(`[WINDOW_FUNCTION_FRAME_NOT_ORDERED] Window function ${fn}() requires an ordered window: add ORDER BY to its window`, lineColumn(e.pos), 'window function', 'WINDOW_FUNCTION_FRAME_NOT_ORDERED');
  }
  if (RANKING.has(fn) || OFFSET.has(fn)) {
    if (e.orderSpec.length === 0) {
      throw new SqlValidationError(
        `Window function ${fn}() requires window to be ordered, please add ORDER BY clause. For example SELECT ${fn}(value_expr) OVER (PARTITION BY window_partition ORDER BY window_ordering) from table`,
        lineColumn(e.pos), 'window function', '_LEGACY_ERROR_TEMP_1037');
    }
  }
  if (!written) {
    if (ROW_FRAMED.has(fn)) return own;
    return e.orderSpec.length ? { frameType: 'Range', lower: 'UnboundedPreceding', upper: 'CurrentRow' } : { frameType: 'Rows', lower: 'UnboundedPreceding', upper: 'UnboundedFollowing' };
  }
  type Written = 'UnboundedPreceding' | 'CurrentRow' | 'UnboundedFollowing' | { value: number; type: string };
  const bound = (b: FrameBound, location: string): Written => {
    if (b.kind !== 'Preceding' && b.kind !== 'Following') return b.kind;
    const built = builder.build(b.value);
    const v = written.frameType === 'Range' && built.kind === 'literal' && built.type === 'string' && orderTypes.length === 1 && typeof built.value === 'string'
      ? stringBound(built.value, orderTypes[0], pos) ?? boundValue(built, pos)
      : boundValue(built, pos);
    if (written.frameType === 'Rows' && (v.type !== 'long' || !Number.isInteger(v.value) || Math.abs(v.value) > 2147483647)) {
      throw mismatch('SPECIFIED_WINDOW_FRAME_UNACCEPTED_TYPE', `The data type of the ${location} bound ${expressionSql(b.value)} does not match the expected data type "INT"`, pos, 'A ROWS frame counts rows: write an INT literal');
    }
    return { value: b.kind === 'Preceding' ? -v.value : v.value, type: v.type };
  };
  const lower = bound(written.lower, 'lower');
  const upper = bound(written.upper, 'upper');
  if (lower === 'UnboundedFollowing' || upper === 'UnboundedPreceding') {
    const text = (b: Written) => (typeof b === 'object' ? `${Math.abs(b.value)} ${b.value < 0 ? 'PRECEDING' : 'FOLLOWING'}` : b.replace(/([a-z])([A-Z])/g, '$1 $2').toUpperCase());
    throw mismatch('SPECIFIED_WINDOW_FRAME_INVALID_BOUND', `Window frame upper bound ${text(upper)} does not follow the lower bound ${text(lower)}`, pos, 'Write the lower bound first: BETWEEN UNBOUNDED PRECEDING AND … or BETWEEN … AND UNBOUNDED FOLLOWING');
  }
  const at = (b: Written) => (b === 'UnboundedPreceding' ? -Infinity : b === 'UnboundedFollowing' ? Infinity : b === 'CurrentRow' ? 0 : b.value);
  if (typeof lower === 'object' && typeof upper === 'object' && at(lower) > at(upper)) {
    throw mismatch('SPECIFIED_WINDOW_FRAME_WRONG_COMPARISON', 'The lower bound of a window frame must be less than or equal to the upper bound', pos, 'Swap the bounds');
  }
  const values = [lower, upper].filter((b): b is { value: number; type: string } => typeof b === 'object');
  if (written.frameType === 'Range' && values.length) {
    if (orderTypes.length === 0) throw mismatch('RANGE_FRAME_WITHOUT_ORDER', 'A range window frame cannot be used in an unordered window specification', pos, 'Add ORDER BY to the window, or use a ROWS frame');
    if (orderTypes.length > 1) throw mismatch('RANGE_FRAME_MULTI_ORDER', 'A range window frame with value boundaries cannot be used in a window specification with multiple order by expressions', pos, 'Order the window by one expression, or use a ROWS frame');
    const key = orderTypes[0].type;
    // Spark's WindowFrameCoercion casts a value bound to the ORDER BY's type where Cast.canCast
    // takes it there (an integral one to BINARY too, ANSI off): beside a STRING, BINARY or
    // BOOLEAN key the bound is then of that type, which no SpecifiedWindowFrame takes.
    if (key === 'string' || key === 'binary' || key === 'boolean') {
      for (const [location, b] of [['lower', lower], ['upper', upper]] as const) {
        if (typeof b === 'object' && (canCast(b.type as ExprType, key) || (key === 'binary' && b.type === 'long'))) {
          throw mismatch('SPECIFIED_WINDOW_FRAME_UNACCEPTED_TYPE', `The data type of the ${location} bound "${typeText(typeOfField(orderTypes[0]))}" does not match the expected data type "(NUMERIC OR INTERVAL DAY TO SECOND OR INTERVAL YEAR TO MONTH OR INTERVAL)"`, pos,
            'A RANGE offset needs a numeric, DATE or TIMESTAMP ORDER BY: order by a number, or use a ROWS frame');
        }
      }
    }
    for (const v of values) {
      const ok = key === 'long' || key === 'double' || key === 'decimal' ? v.type === 'long' || v.type === 'double'
        : key === 'date' ? (v.type === 'long' && Number.isInteger(v.value)) || v.type === 'year_month_interval'
          : key === 'timestamp' && (v.type === 'day_time_interval' || v.type === 'year_month_interval');
      if (!ok) {
        throw mismatch('RANGE_FRAME_INVALID_TYPE', `The data type "${typeText(typeOfField(orderTypes[0]))}" used in the order specification does not match the data type "${v.type === 'long' ? 'INT' : v.type.toUpperCase()}" which is used in the range frame`, pos,
          'A RANGE offset is a number for a numeric ORDER BY, days (an INT) or an INTERVAL YEAR TO MONTH for a DATE, an INTERVAL for a TIMESTAMP');
      }
    }
  }
  // RANGE offsets in the key's units: a timestamp's milliseconds, from an interval's microseconds.
  // An INTERVAL YEAR TO MONTH's months are added to the key as calendar months.
  const resolved = (b: Written): WindowFrameBound => (typeof b !== 'object' ? b : { offset: b.type === 'day_time_interval' ? b.value / 1000 : b.value, ...(b.type === 'year_month_interval' ? { months: true as const } : {}) });
  const frame: WindowFrameSpec = { frameType: written.frameType, lower: resolved(lower), upper: resolved(upper) };
  // CumeDist's frame is RANGE, not RowNumber's ROWS: equal keys have the same value.
  const required = fn === 'cume_dist' ? 'Range' : 'Rows';
  if (ROW_FRAMED.has(fn) && !(frame.frameType === required && frame.lower === 'UnboundedPreceding' && frame.upper === 'CurrentRow')) {
    throw new SqlValidationError(`Window Frame ${e.frame} must match the required frame ${required.toUpperCase()} BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW of ${fn}(). Leave the frame out`, pos, 'window frame', '_LEGACY_ERROR_TEMP_1036');
  }
  return frame;
}

/** A frame as Spark writes it (SpecifiedWindowFrame.sql). */
function frameSql(f: WindowFrameSpec): string {
  const b = (x: WindowFrameBound) => (x === 'UnboundedPreceding' ? 'UNBOUNDED PRECEDING' : x === 'UnboundedFollowing' ? 'UNBOUNDED FOLLOWING' : x === 'CurrentRow' ? 'CURRENT ROW' : `${Math.abs(x.offset)} ${x.offset < 0 ? 'PRECEDING' : 'FOLLOWING'}`);
  return `${f.frameType.toUpperCase()} BETWEEN ${b(f.lower)} AND ${b(f.upper)}`;
}

/** One Window node being built: its specification's key, partitioning, ordering and functions. */
interface WindowGroup {
  key: string;
  partitionSpec: Expr[];
  orderSpec: { expr: Expr; ascending: boolean; nullsFirst: boolean }[];
  functions: WindowFunctionCall[];
}

/** The column a window expression's value is read from, above its Window node. */
export const WINDOW_COLUMN_PREFIX = '__window_expression';

/**
 * Spark's ExtractWindowExpressions over a select list: each window expression computed by a
 * Window node over `child` (one per distinct PARTITION BY and ORDER BY, in the order first
 * written), and read in the items as that node's column. An item that is just a window
 * expression keeps its name (its written text, or its alias).
 */
export function extractWindowExpressions(items: readonly Expression[], child: LogicalPlan, schema: Schema, builder: ExpressionBuilder, next: () => number): { items: Expression[]; plan: LogicalPlan } {
  const groups: WindowGroup[] = [];
  const extract = (e: WindowExpression): Expression => {
    const f = e.child;
    if (e.windowName !== undefined) throw builder.nonTimeWindow(e);
    if (f.kind !== 'UnresolvedFunction') {
      throw new SqlValidationError(`[UNSUPPORTED_EXPR_FOR_WINDOW] Expression "${expressionSql(f)}" not supported within a window function. Apply OVER to a window or aggregate function`, lineColumn(e.pos), 'window function', 'UNSUPPORTED_EXPR_FOR_WINDOW');
    }
    const fn = f.nameParts.join('.').toLowerCase();
    // percentile_cont(p) WITHIN GROUP (ORDER BY x) is PercentileCont(x, p, reverse), as in GROUP
    // BY; Spark checks a call's WITHIN GROUP as it resolves the function, before its window.
    const within = withinGroup(f);
    if (!WINDOW_ONLY.has(fn) && !isAggregateFunctionName(fn)) {
      // Spark resolves the call before it checks the window: a function it has no such name
      // for (range(1, 100) OVER (), range being a table-valued function) is UNRESOLVED_ROUTINE.
      compileExpression(builder.build(f), schema);
      throw new SqlValidationError(`[UNSUPPORTED_EXPR_FOR_WINDOW] Expression "${expressionSql(f)}" not supported within a window function. Apply OVER to a window function (row_number, rank, lag, …) or an aggregate`, lineColumn(e.pos), 'window function', 'UNSUPPORTED_EXPR_FOR_WINDOW');
    }
    if (f.isDistinct) {
      throw new SqlValidationError(`[DISTINCT_WINDOW_FUNCTION_UNSUPPORTED] Distinct window functions are not supported: ${expressionSql(e)}. Aggregate the distinct values in a subquery and join them`, lineColumn(e.pos), 'window function', 'DISTINCT_WINDOW_FUNCTION_UNSUPPORTED');
    }
    if (f.arguments.some(hasWindowExpression)) throw windowInsideAggregate(f.pos);
    if (f.filter) throw new SqlValidationError('window aggregate function with filter predicate is not supported yet. Filter the rows in a subquery, or aggregate a CASE WHEN … END', lineColumn(e.pos), 'window function', '_LEGACY_ERROR_TEMP_1030');
    const partitionSpec = e.partitionSpec.map((p) => builder.build(p));
    const orderSpec = e.orderSpec.map((o) => ({ expr: builder.build(o.child), ascending: o.direction === 'Ascending', nullsFirst: o.nullOrdering === 'NullsFirst' }));
    const orderTypes = orderSpec.map((o) => fieldOfType('k', typeOfCompiled(compileExpression(o.expr, schema))));
    const frame = resolveFrame(e, fn, orderTypes, builder);
    // Spark's CheckAnalysis: PercentileCont, PercentileDisc and Median over a window read the
    // whole partition, unordered (ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), and
    // so does a listagg ordered WITHIN GROUP.
    if ((WHOLE_PARTITION.has(fn) || (LIST_AGG_NAMES.includes(fn) && f.orderingWithinGroup)) && (orderSpec.length > 0 || !(frame.frameType === 'Rows' && frame.lower === 'UnboundedPreceding' && frame.upper === 'UnboundedFollowing'))) {
      throw new SqlValidationError(`[INVALID_WINDOW_SPEC_FOR_AGGREGATION_FUNC] Cannot specify ORDER BY or a window frame for "${expressionSql(f)}". Leave the window only its PARTITION BY`, lineColumn(e.pos), 'window function', 'INVALID_WINDOW_SPEC_FOR_AGGREGATION_FUNC');
    }
    const star = f.arguments.length === 1 && f.arguments[0].kind === 'UnresolvedStar';
    const args = star ? [{ kind: 'literal', value: '*', type: 'string' } as Expr]
      : within ? [...within.args.map((a) => builder.build(a)), ...(within.reverse === undefined ? [] : [{ kind: 'literal', value: within.reverse, type: 'boolean' } as Expr])]
        : f.arguments.map((a) => builder.build(a));
    if (f.ignoreNulls && FIRST_LAST.has(fn)) args.push({ kind: 'literal', value: true, type: 'boolean' });
    const key = JSON.stringify([partitionSpec.map(exprToString), orderSpec.map((o) => [exprToString(o.expr), o.ascending, o.nullsFirst])]);
    let group = groups.find((g) => g.key === key);
    if (!group) groups.push((group = { key, partitionSpec, orderSpec, functions: [] }));
    const name = `${WINDOW_COLUMN_PREFIX}${next()}`;
    const call: WindowFunctionCall = { name, fn: FIRST_LAST.has(fn) ? fn.replace('_value', '') : fn, args, ...(f.ignoreNulls ? { ignoreNulls: true as const } : {}), frame, sql: expressionSql(e) };
    compileWindowFunction(call, schema, lineColumn(e.pos));
    group.functions.push(call);
    return { kind: 'UnresolvedAttribute', nameParts: [name], exact: true, pos: e.pos };
  };
  const rewritten = items.map((item): Expression => {
    if (item.kind === 'UnresolvedWindowExpression') return { kind: 'Alias', child: extract(item), name: expressionSql(item), pos: item.pos };
    return mapExpression(item, (x) => (x.kind === 'UnresolvedWindowExpression' ? extract(x) : undefined));
  });
  let plan = child;
  for (const g of groups) plan = { kind: 'Window', functions: g.functions, partitionSpec: g.partitionSpec, orderSpec: g.orderSpec, child: plan };
  return { items: rewritten, plan };
}

/** A window function compiled against the Window's input: what WindowExec computes, and its output column. */
export interface CompiledWindowFunction {
  name: string;
  field: Field;
  fn: string;
  frame: WindowFrameSpec;
  /** lag, lead, nth_value: the value read of another row. */
  input?: Evaluator;
  /** lag and lead: the row's distance, signed (lag's negative); ntile: the buckets; nth_value: n. */
  offset?: number;
  /** lag and lead: the value where there is no such row. */
  default?: Evaluator;
  ignoreNulls?: boolean;
  aggregate?: AggregateSpec;
  /** counter_diff: the start time read of each row, and the text of a counter and a start time in its errors. */
  startTime?: Evaluator;
  counterText?: (v: unknown) => string;
  startTimeText?: (v: unknown) => string;
  /** counter_diff: a counter less the one before, in the counter's type (a DECIMAL not widened: counters are never negative). */
  subtract?: (a: unknown, b: unknown) => unknown;
}

const INT = { type: 'long' as const, integral: 32 as const };

/** A literal INT argument of a window function (lag's offset, ntile's buckets, nth_value's n). */
function intArgument(f: WindowFunctionCall, i: number, fallback: number | undefined, pos: SqlPosition | undefined): number {
  const a = f.args[i];
  if (a === undefined && fallback !== undefined) return fallback;
  const v = a?.kind === 'literal' ? a.value : a?.kind === 'unary' && a.op === '-' && a.arg.kind === 'literal' ? -Number(a.arg.value) : undefined;
  if (typeof v !== 'number' && typeof v !== 'bigint') {
    throw new SqlValidationError(`[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] ${f.sql}: argument ${i + 1} of ${f.fn}() must be an INT literal`, pos, f.fn, 'DATATYPE_MISMATCH.NON_FOLDABLE_INPUT');
  }
  return Number(v);
}

/** counter_diff's current counter less the previous one, in its type: a DECIMAL's unscaled values, a FLOAT rounded to 32 bits. */
function counterSubtract(t: TypeInfo): (a: unknown, b: unknown) => unknown {
  if (t.type === 'double') return t.float32 ? (a, b) => Math.fround((a as number) - (b as number)) : (a, b) => (a as number) - (b as number);
  return (a, b) => (typeof a === 'bigint' || typeof b === 'bigint' ? BigInt(a as bigint) - BigInt(b as bigint) : (a as number) - (b as number));
}

/** Compiles a window function over the Window's input `schema` (its output column typed as Spark types it). */
export function compileWindowFunction(f: WindowFunctionCall, schema: Schema, pos?: SqlPosition): CompiledWindowFunction {
  const base = { name: f.name, fn: f.fn, frame: f.frame };
  const arity = (min: number, max: number) => {
    if (f.args.length < min || f.args.length > max) {
      throw new SqlValidationError(`[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The \`${f.fn}\` requires ${min === max ? min : `${min} to ${max}`} parameters but the actual number is ${f.args.length}.`, pos, f.fn, 'WRONG_NUM_ARGS.WITHOUT_SUGGESTION');
    }
  };
  switch (f.fn) {
    case 'row_number': case 'rank': case 'dense_rank':
      arity(0, 0);
      return { ...base, field: fieldOfType(f.name, INT, false) };
    case 'percent_rank': case 'cume_dist':
      arity(0, 0);
      return { ...base, field: fieldOfType(f.name, { type: 'double' }, false) };
    case 'ntile': {
      arity(1, 1);
      const n = intArgument(f, 0, undefined, pos);
      if (n <= 0) throw new SqlValidationError(`[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] ${f.sql}: the buckets of ntile() must be positive, got ${n}`, pos, f.fn, 'DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE');
      return { ...base, field: fieldOfType(f.name, INT), offset: n };
    }
    case 'lag': case 'lead': {
      arity(1, 3);
      const input = compileExpression(f.args[0], schema);
      const n = intArgument(f, 1, 1, pos);
      // The default is cast to the input's type (Spark's ImplicitCastInputTypes: lag(price, 1, 0) of a DECIMAL is a DECIMAL 0).
      const type = typeOfCompiled(input);
      const written = f.args[2] && compileExpression(f.args[2], schema);
      const dflt = written && (written.type === 'null' || sameType(typeOfCompiled(written), type) ? written : compileExpression(implicitCastExpr(f.args[2], type), schema));
      return { ...base, field: fieldOfType(f.name, type), input: input.eval, offset: f.fn === 'lag' ? -n : n, ...(dflt ? { default: dflt.eval } : {}), ...(f.ignoreNulls ? { ignoreNulls: true } : {}) };
    }
    case 'nth_value': {
      arity(2, 2);
      const input = compileExpression(f.args[0], schema);
      const n = intArgument(f, 1, undefined, pos);
      if (n <= 0) throw new SqlValidationError(`[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] ${f.sql}: the offset of nth_value() must be positive, got ${n}`, pos, f.fn, 'DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE');
      return { ...base, field: fieldOfType(f.name, typeOfCompiled(input)), input: input.eval, offset: n, ...(f.ignoreNulls ? { ignoreNulls: true } : {}) };
    }
    case 'counter_diff': {
      if (f.args.length === 0) {
        throw new SqlValidationError('[REQUIRED_PARAMETER_NOT_FOUND] Cannot invoke function `counter_diff` because the parameter named `value` is required, but the function call did not supply a value. Please supply the counter (either positionally at index 0 or by name)', pos, f.fn, 'REQUIRED_PARAMETER_NOT_FOUND');
      }
      arity(1, 2);
      // Spark's ExpectsInputTypes: a NUMERIC counter, a TIMESTAMP or TIMESTAMP_NTZ start time,
      // no cast; an untyped NULL is a DOUBLE counter, a TIMESTAMP start time.
      const unexpected = (i: number, type: TypeInfo, required: string) => new SqlValidationError(
        `[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve "${f.sql}" due to data type mismatch: The ${i === 0 ? 'first' : 'second'} parameter requires the ${required} type, however "${exprToString(f.args[i])}" has the type "${typeText(type)}"`,
        pos, f.fn, 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
      const counter = compileExpression(f.args[0], schema);
      const written = typeOfCompiled(counter);
      const type: TypeInfo = written.type === 'null' ? { type: 'double' } : written;
      if (type.type !== 'long' && type.type !== 'double' && type.type !== 'decimal') throw unexpected(0, type, '"NUMERIC"');
      const start = f.args[1] && compileExpression(f.args[1], schema);
      const startType: TypeInfo | undefined = start && (start.type === 'null' ? { type: 'timestamp' } : typeOfCompiled(start));
      if (startType && startType.type !== 'timestamp') throw unexpected(1, startType, '("TIMESTAMP" or "TIMESTAMP_NTZ")');
      const text = (t: TypeInfo) => (v: unknown) => String(castValue(v, t.type as ExprType, 'string', t.decimal));
      return {
        ...base, field: fieldOfType(f.name, type), input: counter.eval, counterText: text(type), subtract: counterSubtract(type),
        ...(start && startType ? { startTime: start.eval, startTimeText: text(startType) } : {}),
      };
    }
    default: {
      const aggregate = compileAggregateCall(f.name, { kind: 'call', name: f.fn, args: f.args }, schema);
      const { fn } = aggregate;
      return { ...base, aggregate, field: { name: f.name, type: fn.resultType, ...fn.resultDecimal, ...fn.resultShape } };
    }
  }
}

/** A Window's output: its child's columns, then its functions'. */
export function windowOutput(node: Extract<LogicalPlan, { kind: 'Window' }>, childSchema: Schema): Schema {
  return [...childSchema, ...node.functions.map((f) => compileWindowFunction(f, childSchema).field)];
}

/** How explain shows a Window node (Spark's: `Window [<functions>], [<partitioning>], [<ordering>]`). */
export function describeWindowNode(node: Extract<LogicalPlan, { kind: 'Window' }>): string {
  const fns = node.functions.map((f) => `${f.fn}(${f.args.map(exprToString).join(', ')}) ${frameSql(f.frame)} AS ${f.name}`);
  const order = node.orderSpec.map((o) => `${exprToString(o.expr)} ${o.ascending ? 'ASC' : 'DESC'} NULLS ${o.nullsFirst ? 'FIRST' : 'LAST'}`);
  return `Window [${fns.join(', ')}], [${node.partitionSpec.map(exprToString).join(', ')}], [${order.join(', ')}]`;
}
