/**
 * GROUP BY CUBE, ROLLUP and GROUPING SETS (Spark's ResolveGroupingAnalytics): the grouping sets a
 * GROUP BY selects, its distinct grouping expressions, and grouping()/grouping_id() over the
 * Expand's spark_grouping_id. The Aggregate above the Expand groups by the Expand's grouping
 * columns and spark_grouping_id (aggregate-planner.ts), so each set's groups are keyed apart.
 */
import { exprToString } from './expression';
import { lineColumn, type ExpressionBuilder } from './expression-builder';
import { expressionSql } from './parser/expression-sql';
import type { Expression, Position } from './parser/unresolved-plan';
import { SqlValidationError } from './sql-error';
import type { Schema } from '../types';

type Analytics = Extract<Expression, { kind: 'GroupingAnalytics' }>;

/** Spark's GroupingID limit: the id is a BIGINT, a bit per grouping expression. */
const MAX_GROUPING_EXPRESSIONS = 64;
/** Weir's: the sets one GROUP BY may select (a CUBE of 10 elements is 1,024). */
const MAX_GROUPING_SETS = 1024;

/**
 * Spark's cubeExprs: every subset of the elements, largest first (CUBE(a, b) is (a, b), (a), (b), ());
 * an element may be a group written `(a, b)`.
 */
function cube(elements: readonly (readonly Expression[])[]): Expression[][] {
  if (elements.length === 0) return [[]];
  const [x, ...xs] = elements;
  const rest = cube(xs);
  return [...rest.map((s) => [...x, ...s]), ...rest];
}

/** Spark's rollupExprs: the prefixes of the elements, longest first (ROLLUP(a, b) is (a, b), (a), ()). */
const rollup = (elements: readonly (readonly Expression[])[]): Expression[][] =>
  Array.from({ length: elements.length + 1 }, (_, i) => elements.slice(0, elements.length - i).flat());

const setsOf = (a: Analytics): Expression[][] =>
  a.type === 'Cube' ? cube(a.groupingSets) : a.type === 'Rollup' ? rollup(a.groupingSets) : a.groupingSets.map((s) => [...s]);

export interface GroupingSets {
  /** The distinct grouping expressions, in the order written (the grouping id's bits, first the highest). */
  expressions: Expression[];
  /** Each selected grouping set, as indexes into `expressions`. */
  sets: number[][];
}

/**
 * The grouping sets of a GROUP BY with CUBE, ROLLUP or GROUPING SETS among its items (Spark's
 * GroupingAnalytics.unapply): a plain item is in every set, and the sets of several analytics
 * items are their cartesian product (`GROUP BY a, CUBE(b, c)`). Undefined without one.
 */
export function groupingSetsOf(items: readonly Expression[], text: (e: Expression) => string): GroupingSets | undefined {
  if (!items.some((i) => i.kind === 'GroupingAnalytics')) return undefined;
  for (const i of items) {
    if (i.kind === 'GroupingAnalytics' && i.type !== 'GroupingSets' && i.groupingSets.some((e) => e.length === 0)) {
      throw new SqlValidationError(`Empty set in ${i.type.toUpperCase()} grouping sets is not supported.`, lineColumn(i.pos), 'GROUP BY', '_LEGACY_ERROR_TEMP_0051');
    }
  }
  const expressions: Expression[] = [];
  const texts: string[] = [];
  const indexOf = (e: Expression): number => {
    const t = text(e);
    let i = texts.indexOf(t);
    if (i < 0) {
      i = texts.push(t) - 1;
      expressions.push(e);
    }
    return i;
  };
  // The expressions in the order written, analytics' elements included, so their bits follow it.
  for (const item of items) {
    if (item.kind === 'GroupingAnalytics') [...(item.groupByExpressions ?? []), ...item.groupingSets.flat()].forEach(indexOf);
    else indexOf(item);
  }
  if (expressions.length > MAX_GROUPING_EXPRESSIONS) {
    throw new SqlValidationError(`[GROUPING_SIZE_LIMIT_EXCEEDED] Grouping sets size cannot be greater than ${MAX_GROUPING_EXPRESSIONS}.`, lineColumn(expressions[0].pos), 'GROUP BY', 'GROUPING_SIZE_LIMIT_EXCEEDED');
  }
  // Counted before any is made: CUBE of k elements is 2^k sets, and every row is copied once per set.
  const count = items.reduce((n, i) => n * (i.kind !== 'GroupingAnalytics' ? 1 : i.type === 'Cube' ? 2 ** i.groupingSets.length : i.type === 'Rollup' ? i.groupingSets.length + 1 : i.groupingSets.length), 1);
  if (count > MAX_GROUPING_SETS) {
    throw new SqlValidationError(
      `This GROUP BY has ${count} grouping sets; Weir takes at most ${MAX_GROUPING_SETS}, as every row is copied once per set. Group by fewer columns in the CUBE, or list the sets needed in GROUPING SETS`,
      lineColumn(items[0].pos), 'GROUP BY',
    );
  }
  let sets: number[][] = [[]];
  for (const item of items) {
    const choices = item.kind === 'GroupingAnalytics' ? setsOf(item).map((s) => s.map(indexOf)) : [[indexOf(item)]];
    sets = sets.flatMap((a) => choices.map((b) => [...a, ...b]));
  }
  return { expressions, sets: sets.map((s) => [...new Set(s)]) };
}

/** Whether two grouping sets are the same set of expressions (Spark's Expand keys a repeated one apart). */
export function hasDuplicateGroupingSets(sets: readonly number[][]): boolean {
  const keys = sets.map((s) => [...s].sort((a, b) => a - b).join(','));
  return new Set(keys).size !== keys.length;
}

const isCall = (e: Expression, name: string): e is Extract<Expression, { kind: 'UnresolvedFunction' }> =>
  e.kind === 'UnresolvedFunction' && e.nameParts.length === 1 && e.nameParts[0].toLowerCase() === name;

/** Whether `e` is a grouping(…) or grouping_id(…) call. */
export const isGroupingCall = (e: Expression): boolean => isCall(e, 'grouping') || isCall(e, 'grouping_id');

/** Hive's virtual column grouping__id (Spark's VirtualColumn.hiveGroupingIdName), the column name Spark gives it. */
export const HIVE_GROUPING_ID = 'grouping__id';

/**
 * `grouping__id` as grouping_id() (Spark's ResolveReferences resolves the name to GroupingID(Nil)
 * when no input column has it): undefined for any other expression.
 */
export function hiveGroupingId(e: Expression, input: Schema): Extract<Expression, { kind: 'UnresolvedFunction' }> | undefined {
  if (e.kind !== 'UnresolvedAttribute' || e.nameParts.length !== 1 || e.nameParts[0].toLowerCase() !== HIVE_GROUPING_ID) return undefined;
  if (input.some((f) => f.name.toLowerCase() === HIVE_GROUPING_ID)) return undefined;
  return { kind: 'UnresolvedFunction', nameParts: ['grouping_id'], arguments: [], isDistinct: false, pos: e.pos };
}

/** Spark's column name of a grouping()/grouping_id() select item: `grouping(k)`, `grouping_id()`. */
export const groupingCallName = (e: Expression): string => expressionSql(e).replace(/^[A-Za-z_]+/, (n) => n.toLowerCase());

/**
 * grouping(e) and grouping_id(…) of a GROUP BY with grouping sets, over its spark_grouping_id
 * column `gid` (Spark's ResolveGroupingAnalytics): grouping(e) is bit n-1-i of the id as a
 * TINYINT (1 where the row's set leaves e out), grouping_id() the id itself, its arguments, when
 * given, all the grouping expressions in order. `grouping` is the GROUP BY's; undefined: a
 * GROUP BY without grouping sets, where Spark refuses both.
 */
export function groupingCall(e: Expression, grouping: { sets: GroupingSets; text: (e: Expression) => string; gid: Expression } | undefined, builder: ExpressionBuilder): Expression {
  if (!isGroupingCall(e) || e.kind !== 'UnresolvedFunction') return e;
  const pos: Position = e.pos;
  const name = e.nameParts[0].toLowerCase();
  if (!grouping) {
    throw new SqlValidationError('[UNSUPPORTED_GROUPING_EXPRESSION] grouping()/grouping_id() can only be used with GroupingSets/Cube/Rollup.', lineColumn(pos), name, 'UNSUPPORTED_GROUPING_EXPRESSION');
  }
  const { sets, text, gid } = grouping;
  const all = sets.expressions.map(text);
  const n = all.length;
  if (name === 'grouping_id') {
    const args = e.arguments.map(text);
    if (args.length > 0 && args.join('\u0000') !== all.join('\u0000')) {
      throw new SqlValidationError(
        `[GROUPING_ID_COLUMN_MISMATCH] Columns of grouping_id (${args.join(',')}) does not match grouping columns (${all.join(',')}).`,
        lineColumn(pos), name, 'GROUPING_ID_COLUMN_MISMATCH',
      );
    }
    return gid;
  }
  if (e.arguments.length !== 1) throw new SqlValidationError(`grouping() takes one grouping expression, got ${e.arguments.length}`, lineColumn(pos), name);
  const i = all.indexOf(text(e.arguments[0]));
  if (i < 0) {
    throw new SqlValidationError(
      `[GROUPING_COLUMN_MISMATCH] Column of grouping (${exprToString(builder.build(e.arguments[0]))}) can't be found in grouping columns ${all.join(',')}.`,
      lineColumn(pos), name, 'GROUPING_COLUMN_MISMATCH',
    );
  }
  const int = (v: number): Expression => ({ kind: 'Literal', value: BigInt(v), dataType: { kind: 'integer' }, pos });
  const shifted: Expression = { kind: 'UnresolvedFunction', nameParts: ['shiftright'], arguments: [gid, int(n - 1 - i)], isDistinct: false, pos };
  return { kind: 'Cast', child: { kind: 'BinaryOperator', op: 'BitwiseAnd', left: shifted, right: int(1), pos }, dataType: { kind: 'byte' }, evalMode: 'LEGACY', pos };
}
