/**
 * Weir's unresolved logical plan: what the Spark SQL front end (ast-builder.ts) makes of a
 * query before any name is resolved, modelled on Catalyst's unresolved plan and named as
 * Catalyst names its nodes (UnresolvedRelation, Project, Aggregate, UnresolvedAttribute,
 * UnresolvedFunction, …), so that Spark's analyzer rules can be followed one for one.
 *
 * Every node carries `pos`: offsets into the user's text (`start` inclusive, `end` exclusive,
 * UTF-16 units as JavaScript indexes strings) and the 1-based line and column of its start,
 * so that every later error can point at the text it is about. Nodes are plain immutable data,
 * discriminated on `kind`.
 *
 * The planner reads this plan (query-planner.ts); expression-builder.ts turns its expressions
 * into Weir's Expr. Unknown names are resolved there, not here.
 */
import type { DataType } from './data-type';

export interface Position {
  readonly start: number;
  readonly end: number;
  readonly line: number;
  readonly column: number;
}

/** A decimal's exact value: `unscaled × 10^-scale`. */
export interface DecimalValue { readonly unscaled: bigint; readonly scale: number }

/**
 * A literal's value, by its data type: NULL `null`; BOOLEAN `boolean`; TINYINT…BIGINT `bigint`
 * (exact to 64 bits); FLOAT and DOUBLE `number`; DECIMAL `DecimalValue`; STRING `string`;
 * BINARY `Uint8Array`; DATE days since 1970-01-01 (`number`); TIMESTAMP and TIMESTAMP_NTZ the
 * literal's text (`string`: its zone rules are the analyzer's); a year-month interval its months
 * (`number`); a day-time interval its microseconds (`bigint`).
 */
type LiteralValue = null | boolean | bigint | number | string | DecimalValue | Uint8Array;

interface Node { readonly pos: Position }

interface UnresolvedAttribute extends Node {
  readonly kind: 'UnresolvedAttribute';
  readonly nameParts: readonly string[];
  /**
   * Made by the planner for a column of the row it names exactly (an aggregation's key or
   * aggregate read above it), never written: read as that column, not resolved through the
   * join's names, where a written name of its text could be ambiguous.
   */
  readonly exact?: true;
}
interface UnresolvedStar extends Node {
  readonly kind: 'UnresolvedStar';
  readonly target?: readonly string[];
  /** `* EXCEPT (a, b.c)`: the names (a column, a field of one) left out, as Spark's UnresolvedStarExcept. */
  readonly except?: readonly (readonly string[])[];
  /** The pipe operator `|> SET a = e`: column a's value replaced by e, in its place (Spark's UnresolvedStarExceptOrReplace). */
  readonly replace?: { readonly name: string; readonly expr: Expression };
}
export interface Literal extends Node { readonly kind: 'Literal'; readonly value: LiteralValue; readonly dataType: DataType }
export interface UnresolvedFunction extends Node {
  readonly kind: 'UnresolvedFunction';
  readonly nameParts: readonly string[];
  readonly arguments: readonly Expression[];
  readonly isDistinct: boolean;
  readonly filter?: Expression;
  readonly ignoreNulls?: boolean;
  /** `WITHIN GROUP (ORDER BY …)` after the call (the analyzer refuses it after a function that takes none). */
  readonly orderingWithinGroup?: readonly SortOrder[];
}
interface Cast extends Node { readonly kind: 'Cast'; readonly child: Expression; readonly dataType: DataType; readonly evalMode: 'LEGACY' | 'TRY' }
interface Alias extends Node { readonly kind: 'Alias'; readonly child: Expression; readonly name: string }
/** `expr AS (a, b)`: a generator's several output names. */
interface MultiAlias extends Node { readonly kind: 'MultiAlias'; readonly child: Expression; readonly names: readonly string[] }

/** Catalyst's binary expressions, by class name. `a <> b` is `Not(EqualTo(a, b))`, as Catalyst builds it. */
export type BinaryOp =
  | 'Add' | 'Subtract' | 'Multiply' | 'Divide' | 'Remainder' | 'IntegralDivide' | 'Concat'
  | 'BitwiseAnd' | 'BitwiseOr' | 'BitwiseXor' | 'ShiftLeft' | 'ShiftRight' | 'ShiftRightUnsigned'
  | 'EqualTo' | 'EqualNullSafe' | 'LessThan' | 'LessThanOrEqual' | 'GreaterThan' | 'GreaterThanOrEqual'
  | 'And' | 'Or';
interface BinaryOperator extends Node { readonly kind: 'BinaryOperator'; readonly op: BinaryOp; readonly left: Expression; readonly right: Expression }
interface UnaryMinus extends Node { readonly kind: 'UnaryMinus'; readonly child: Expression }
interface UnaryPositive extends Node { readonly kind: 'UnaryPositive'; readonly child: Expression }
interface BitwiseNot extends Node { readonly kind: 'BitwiseNot'; readonly child: Expression }
interface Not extends Node { readonly kind: 'Not'; readonly child: Expression }
interface IsNull extends Node { readonly kind: 'IsNull'; readonly child: Expression }
interface IsNotNull extends Node { readonly kind: 'IsNotNull'; readonly child: Expression }
interface In extends Node { readonly kind: 'In'; readonly value: Expression; readonly list: readonly Expression[] }
/** `x IN (SELECT …)`: Catalyst's InSubquery over a ListQuery. */
interface InSubquery extends Node { readonly kind: 'InSubquery'; readonly values: readonly Expression[]; readonly query: LogicalPlan }
interface Exists extends Node { readonly kind: 'Exists'; readonly plan: LogicalPlan }
interface ScalarSubquery extends Node { readonly kind: 'ScalarSubquery'; readonly plan: LogicalPlan }
interface Between extends Node { readonly kind: 'Between'; readonly value: Expression; readonly lower: Expression; readonly upper: Expression }
/** LIKE (`caseInsensitive` false) and ILIKE; `escapeChar` is `\` unless ESCAPE names another. */
interface Like extends Node { readonly kind: 'Like'; readonly left: Expression; readonly right: Expression; readonly escapeChar: string; readonly caseInsensitive: boolean }
interface RLike extends Node { readonly kind: 'RLike'; readonly left: Expression; readonly right: Expression }
interface CaseWhen extends Node {
  readonly kind: 'CaseWhen';
  readonly branches: readonly (readonly [Expression, Expression])[];
  readonly elseValue?: Expression;
}
/** `arr[0]`, `m['k']`, and `expr.field` where `expr` is not a name (Catalyst's UnresolvedExtractValue). */
interface UnresolvedExtractValue extends Node { readonly kind: 'UnresolvedExtractValue'; readonly child: Expression; readonly extraction: Expression }
/**
 * Spark 4's variant path `v:a.b[0]`: `field` is the JSON path it reads (`$.a.b[0]`), which the
 * analyzer makes variant_get(child, field) of a VARIANT child, and refuses on any other
 * (COLUMN_IS_NOT_VARIANT_TYPE), as Spark's ExtractSemiStructuredFields.
 */
interface SemiStructuredExtract extends Node { readonly kind: 'SemiStructuredExtract'; readonly child: Expression; readonly field: string }
interface UnresolvedNamedLambdaVariable extends Node { readonly kind: 'UnresolvedNamedLambdaVariable'; readonly nameParts: readonly string[] }
/** `name => value`, a function's argument given by its parameter's name (Spark 3.5's NamedArgumentExpression). */
interface NamedArgumentExpression extends Node { readonly kind: 'NamedArgumentExpression'; readonly key: string; readonly value: Expression }
interface LambdaFunction extends Node { readonly kind: 'LambdaFunction'; readonly function: Expression; readonly arguments: readonly UnresolvedNamedLambdaVariable[] }
export interface SortOrder extends Node {
  readonly kind: 'SortOrder';
  readonly child: Expression;
  readonly direction: 'Ascending' | 'Descending';
  readonly nullOrdering: 'NullsFirst' | 'NullsLast';
}
/**
 * A window frame's bound (Spark's SpecifiedWindowFrame bounds): UNBOUNDED PRECEDING or FOLLOWING,
 * CURRENT ROW, or `<value> PRECEDING|FOLLOWING` (a literal: a row count, or a RANGE offset).
 */
export type FrameBound =
  | { readonly kind: 'UnboundedPreceding' | 'UnboundedFollowing' | 'CurrentRow' }
  | { readonly kind: 'Preceding' | 'Following'; readonly value: Expression };
/** `ROWS|RANGE BETWEEN <lower> AND <upper>` (`ROWS <bound>` alone: BETWEEN <bound> AND CURRENT ROW). */
export interface WindowFrame {
  readonly frameType: 'Rows' | 'Range';
  readonly lower: FrameBound;
  readonly upper: FrameBound;
  readonly pos: Position;
}
/**
 * `f(…) OVER (…)`: a window function, run in a batch plan over static tables (Spark's Window),
 * refused over a stream with Spark's streaming error.
 */
interface UnresolvedWindowExpression extends Node {
  readonly kind: 'UnresolvedWindowExpression';
  readonly child: Expression;
  readonly partitionSpec: readonly Expression[];
  readonly orderSpec: readonly SortOrder[];
  /** The frame as written (`ROWS BETWEEN …`). */
  readonly frame?: string;
  /** The frame as parsed; unset where none is written (Spark's default frame). */
  readonly frameSpec?: WindowFrame;
  /** `OVER w`: the name of a WINDOW clause's window, until the AST builder puts its definition here. */
  readonly windowName?: string;
  /** A WINDOW clause's definition put in place of its name: its text, `(PARTITION BY …)`, as written. */
  readonly definition?: string;
}
/** GROUP BY CUBE(…), ROLLUP(…), GROUPING SETS(…): each grouping set as a list of expressions. */
interface GroupingAnalytics extends Node {
  readonly kind: 'GroupingAnalytics';
  readonly type: 'Cube' | 'Rollup' | 'GroupingSets';
  readonly groupingSets: readonly (readonly Expression[])[];
  /**
   * Hive's `GROUP BY a, b, c GROUPING SETS ((a), (b))`: the grouping expressions written before
   * the sets (a column in none of the sets is always NULL).
   */
  readonly groupByExpressions?: readonly Expression[];
}

export type Expression =
  | UnresolvedAttribute | UnresolvedStar | Literal | UnresolvedFunction | Cast | Alias | MultiAlias
  | BinaryOperator | UnaryMinus | UnaryPositive | BitwiseNot | Not | IsNull | IsNotNull | In | InSubquery
  | Exists | ScalarSubquery | Between | Like | RLike | CaseWhen | UnresolvedExtractValue | SemiStructuredExtract
  | UnresolvedNamedLambdaVariable | LambdaFunction | SortOrder | UnresolvedWindowExpression | GroupingAnalytics
  | NamedArgumentExpression;

/**
 * The relation an inline table's rows are selected from (ast-builder.ts's inlineTable): one row
 * without columns, the static table VALUES_TABLE (stream-static-join.ts). No query can write the
 * name.
 */
export const VALUES_RELATION = '\u0000VALUES';

export type JoinType = 'Inner' | 'Cross' | 'LeftOuter' | 'RightOuter' | 'FullOuter' | 'LeftSemi' | 'LeftAnti';

interface UnresolvedRelation extends Node { readonly kind: 'UnresolvedRelation'; readonly multipartIdentifier: readonly string[] }
interface OneRowRelation extends Node { readonly kind: 'OneRowRelation' }
export interface SubqueryAlias extends Node { readonly kind: 'SubqueryAlias'; readonly alias: string; readonly child: LogicalPlan }
/** `(SELECT …) AS t(a, b)`: the child's columns renamed. */
interface UnresolvedSubqueryColumnAliases extends Node { readonly kind: 'UnresolvedSubqueryColumnAliases'; readonly outputColumnNames: readonly string[]; readonly child: LogicalPlan }
interface Project extends Node { readonly kind: 'Project'; readonly projectList: readonly Expression[]; readonly child: LogicalPlan }
interface Filter extends Node { readonly kind: 'Filter'; readonly condition: Expression; readonly child: LogicalPlan }
/** HAVING, before the analyzer decides which aggregate it filters. */
interface UnresolvedHaving extends Node { readonly kind: 'UnresolvedHaving'; readonly havingCondition: Expression; readonly child: LogicalPlan }
interface Aggregate extends Node {
  readonly kind: 'Aggregate';
  readonly groupingExpressions: readonly Expression[];
  readonly aggregateExpressions: readonly Expression[];
  readonly child: LogicalPlan;
}
interface Join extends Node {
  readonly kind: 'Join';
  readonly left: LogicalPlan;
  readonly right: LogicalPlan;
  readonly joinType: JoinType;
  readonly condition?: Expression;
  /** JOIN … USING (a, b) (Catalyst's UsingJoin). */
  readonly usingColumns?: readonly string[];
  readonly natural?: boolean;
  /**
   * A LEFT ANTI join that `x NOT IN (SELECT c …)` was rewritten to (Spark's null-aware anti join):
   * a NULL among the c, or a NULL x beside any c, makes NOT IN NULL, which keeps no row.
   */
  readonly nullAware?: boolean;
  /** A semi or anti join that `(x, y) IN (SELECT a, b …)` was rewritten to: its key pairs are the IN's value and column pairs. */
  readonly inSubquery?: boolean;
}
interface Union extends Node {
  readonly kind: 'Union';
  readonly children: readonly LogicalPlan[];
  /**
   * Set on the UNION ALL an inline table is written as (ast-builder.ts): its columns' names (the
   * alias list's, else col1, col2, …), by which its types are checked as Spark's
   * ResolveInlineTables checks them.
   */
  readonly inlineTable?: { readonly names: readonly string[] };
}
interface Intersect extends Node { readonly kind: 'Intersect'; readonly left: LogicalPlan; readonly right: LogicalPlan; readonly isAll: boolean }
interface Except extends Node { readonly kind: 'Except'; readonly left: LogicalPlan; readonly right: LogicalPlan; readonly isAll: boolean }
interface Distinct extends Node { readonly kind: 'Distinct'; readonly child: LogicalPlan }
/** WITH: each CTE as a SubqueryAlias, in order (each may read the earlier ones). */
interface UnresolvedWith extends Node { readonly kind: 'UnresolvedWith'; readonly child: LogicalPlan; readonly cteRelations: readonly SubqueryAlias[] }
/**
 * LATERAL VIEW [OUTER] gen(…) qualifier AS c1, c2; with `tableFunction`, a call in FROM (`range(3)
 * AS t(x)`, `explode(array(1, 2))`, Spark's UnresolvedTableValuedFunction) over the VALUES row.
 */
interface Generate extends Node {
  readonly kind: 'Generate';
  readonly generator: UnresolvedFunction;
  readonly outer: boolean;
  readonly qualifier?: string;
  readonly generatorOutput: readonly string[];
  readonly child: LogicalPlan;
  readonly tableFunction?: true;
}
/**
 * UNPIVOT (Spark 3.4's Unpivot): each row of `child` becomes one row per entry of `values`, the
 * entry's name (its alias, else its column's name, a set's joined by `_`) in `variableColumnName`
 * and its columns in `valueColumnNames`; the child's other columns kept before them. Without
 * `includeNulls` (EXCLUDE NULLS, the default) a row whose values are all NULL is dropped: Spark's
 * AstBuilder writes a Filter above it, which the planner adds (here it would read as a WHERE).
 */
interface Unpivot extends Node {
  readonly kind: 'Unpivot';
  readonly includeNulls: boolean;
  readonly values: readonly (readonly Expression[])[];
  readonly aliases: readonly (string | undefined)[];
  readonly variableColumnName: string;
  readonly valueColumnNames: readonly string[];
  readonly child: LogicalPlan;
}
/**
 * PIVOT: the aggregates of each pivot value, grouped by the child's columns the pivot column and
 * the aggregates do not read (Spark's ResolvePivot); `pivotValues` may be Aliases.
 */
interface Pivot extends Node {
  readonly kind: 'Pivot';
  readonly aggregates: readonly Expression[];
  readonly pivotColumn: Expression;
  readonly pivotValues: readonly Expression[];
  readonly child: LogicalPlan;
}
/** DISTRIBUTE BY (and CLUSTER BY's distribution): Spark's RepartitionByExpression. */
interface RepartitionByExpression extends Node { readonly kind: 'RepartitionByExpression'; readonly partitionExpressions: readonly Expression[]; readonly child: LogicalPlan }
/** ORDER BY (`global`) or SORT BY. */
interface Sort extends Node { readonly kind: 'Sort'; readonly order: readonly SortOrder[]; readonly global: boolean; readonly child: LogicalPlan }
interface Limit extends Node { readonly kind: 'Limit'; readonly limitExpr: Expression; readonly child: LogicalPlan }
interface Offset extends Node { readonly kind: 'Offset'; readonly offsetExpr: Expression; readonly child: LogicalPlan }

export type LogicalPlan =
  | UnresolvedRelation | OneRowRelation | SubqueryAlias | UnresolvedSubqueryColumnAliases | Project | Filter
  | UnresolvedHaving | Aggregate | Join | Union | Intersect | Except | Distinct | UnresolvedWith | Generate
  | Sort | Limit | Offset | Unpivot | Pivot | RepartitionByExpression;

/** `a AND b AND …` of one or more conditions, each AND at its left operand's position. */
export function conjunctionOf(es: readonly Expression[]): Expression {
  return es.reduce((l, r): Expression => ({ kind: 'BinaryOperator', op: 'And', left: l, right: r, pos: l.pos }));
}

/** The parts of a conjunction `a AND b AND …`, in order (Spark's splitConjunctivePredicates). */
export function splitConjunctivePredicates(e: Expression): Expression[] {
  return e.kind === 'BinaryOperator' && e.op === 'And' ? [...splitConjunctivePredicates(e.left), ...splitConjunctivePredicates(e.right)] : [e];
}
