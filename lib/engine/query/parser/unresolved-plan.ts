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
 * The planner does not use this yet: today's front end is sql-parser.ts (node-sql-parser's
 * PostgreSQL grammar with lexical patches) and expression-builder.ts. This plan exists so
 * that the analyzer, optimizer and planner can move onto Spark's grammar, with exact
 * positions and Spark's literal and cast types.
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
export type LiteralValue = null | boolean | bigint | number | string | DecimalValue | Uint8Array;

interface Node { readonly pos: Position }

export interface UnresolvedAttribute extends Node { readonly kind: 'UnresolvedAttribute'; readonly nameParts: readonly string[] }
export interface UnresolvedStar extends Node { readonly kind: 'UnresolvedStar'; readonly target?: readonly string[] }
export interface Literal extends Node { readonly kind: 'Literal'; readonly value: LiteralValue; readonly dataType: DataType }
export interface UnresolvedFunction extends Node {
  readonly kind: 'UnresolvedFunction';
  readonly nameParts: readonly string[];
  readonly arguments: readonly Expression[];
  readonly isDistinct: boolean;
  readonly filter?: Expression;
  readonly ignoreNulls?: boolean;
}
export interface Cast extends Node { readonly kind: 'Cast'; readonly child: Expression; readonly dataType: DataType; readonly evalMode: 'LEGACY' | 'TRY' }
export interface Alias extends Node { readonly kind: 'Alias'; readonly child: Expression; readonly name: string }
/** `expr AS (a, b)`: a generator's several output names. */
export interface MultiAlias extends Node { readonly kind: 'MultiAlias'; readonly child: Expression; readonly names: readonly string[] }

/** Catalyst's binary expressions, by class name. `a <> b` is `Not(EqualTo(a, b))`, as Catalyst builds it. */
export type BinaryOp =
  | 'Add' | 'Subtract' | 'Multiply' | 'Divide' | 'Remainder' | 'IntegralDivide' | 'Concat'
  | 'BitwiseAnd' | 'BitwiseOr' | 'BitwiseXor'
  | 'EqualTo' | 'EqualNullSafe' | 'LessThan' | 'LessThanOrEqual' | 'GreaterThan' | 'GreaterThanOrEqual'
  | 'And' | 'Or';
export interface BinaryOperator extends Node { readonly kind: 'BinaryOperator'; readonly op: BinaryOp; readonly left: Expression; readonly right: Expression }
export interface UnaryMinus extends Node { readonly kind: 'UnaryMinus'; readonly child: Expression }
export interface UnaryPositive extends Node { readonly kind: 'UnaryPositive'; readonly child: Expression }
export interface BitwiseNot extends Node { readonly kind: 'BitwiseNot'; readonly child: Expression }
export interface Not extends Node { readonly kind: 'Not'; readonly child: Expression }
export interface IsNull extends Node { readonly kind: 'IsNull'; readonly child: Expression }
export interface IsNotNull extends Node { readonly kind: 'IsNotNull'; readonly child: Expression }
export interface In extends Node { readonly kind: 'In'; readonly value: Expression; readonly list: readonly Expression[] }
/** `x IN (SELECT …)`: Catalyst's InSubquery over a ListQuery. */
export interface InSubquery extends Node { readonly kind: 'InSubquery'; readonly values: readonly Expression[]; readonly query: LogicalPlan }
export interface Exists extends Node { readonly kind: 'Exists'; readonly plan: LogicalPlan }
export interface ScalarSubquery extends Node { readonly kind: 'ScalarSubquery'; readonly plan: LogicalPlan }
export interface Between extends Node { readonly kind: 'Between'; readonly value: Expression; readonly lower: Expression; readonly upper: Expression }
/** LIKE (`caseInsensitive` false) and ILIKE; `escapeChar` is `\` unless ESCAPE names another. */
export interface Like extends Node { readonly kind: 'Like'; readonly left: Expression; readonly right: Expression; readonly escapeChar: string; readonly caseInsensitive: boolean }
export interface RLike extends Node { readonly kind: 'RLike'; readonly left: Expression; readonly right: Expression }
export interface CaseWhen extends Node {
  readonly kind: 'CaseWhen';
  readonly branches: readonly (readonly [Expression, Expression])[];
  readonly elseValue?: Expression;
}
/** `arr[0]`, `m['k']`, and `expr.field` where `expr` is not a name (Catalyst's UnresolvedExtractValue). */
export interface UnresolvedExtractValue extends Node { readonly kind: 'UnresolvedExtractValue'; readonly child: Expression; readonly extraction: Expression }
export interface UnresolvedNamedLambdaVariable extends Node { readonly kind: 'UnresolvedNamedLambdaVariable'; readonly nameParts: readonly string[] }
export interface LambdaFunction extends Node { readonly kind: 'LambdaFunction'; readonly function: Expression; readonly arguments: readonly UnresolvedNamedLambdaVariable[] }
export interface SortOrder extends Node {
  readonly kind: 'SortOrder';
  readonly child: Expression;
  readonly direction: 'Ascending' | 'Descending';
  readonly nullOrdering: 'NullsFirst' | 'NullsLast';
}
/** `f(…) OVER (…)`: kept so that the analyzer can refuse it with Spark's streaming error. */
export interface UnresolvedWindowExpression extends Node {
  readonly kind: 'UnresolvedWindowExpression';
  readonly child: Expression;
  readonly partitionSpec: readonly Expression[];
  readonly orderSpec: readonly SortOrder[];
  /** The frame as written (`ROWS BETWEEN …`), or the name of a WINDOW clause's window. */
  readonly frame?: string;
  readonly windowName?: string;
}
/** GROUP BY CUBE(…), ROLLUP(…), GROUPING SETS(…): each grouping set as a list of expressions. */
export interface GroupingAnalytics extends Node {
  readonly kind: 'GroupingAnalytics';
  readonly type: 'Cube' | 'Rollup' | 'GroupingSets';
  readonly groupingSets: readonly (readonly Expression[])[];
}

export type Expression =
  | UnresolvedAttribute | UnresolvedStar | Literal | UnresolvedFunction | Cast | Alias | MultiAlias
  | BinaryOperator | UnaryMinus | UnaryPositive | BitwiseNot | Not | IsNull | IsNotNull | In | InSubquery
  | Exists | ScalarSubquery | Between | Like | RLike | CaseWhen | UnresolvedExtractValue
  | UnresolvedNamedLambdaVariable | LambdaFunction | SortOrder | UnresolvedWindowExpression | GroupingAnalytics;

export type JoinType = 'Inner' | 'Cross' | 'LeftOuter' | 'RightOuter' | 'FullOuter' | 'LeftSemi' | 'LeftAnti';

export interface UnresolvedRelation extends Node { readonly kind: 'UnresolvedRelation'; readonly multipartIdentifier: readonly string[] }
export interface OneRowRelation extends Node { readonly kind: 'OneRowRelation' }
export interface SubqueryAlias extends Node { readonly kind: 'SubqueryAlias'; readonly alias: string; readonly child: LogicalPlan }
/** `(SELECT …) AS t(a, b)`: the child's columns renamed. */
export interface UnresolvedSubqueryColumnAliases extends Node { readonly kind: 'UnresolvedSubqueryColumnAliases'; readonly outputColumnNames: readonly string[]; readonly child: LogicalPlan }
export interface Project extends Node { readonly kind: 'Project'; readonly projectList: readonly Expression[]; readonly child: LogicalPlan }
export interface Filter extends Node { readonly kind: 'Filter'; readonly condition: Expression; readonly child: LogicalPlan }
/** HAVING, before the analyzer decides which aggregate it filters. */
export interface UnresolvedHaving extends Node { readonly kind: 'UnresolvedHaving'; readonly havingCondition: Expression; readonly child: LogicalPlan }
export interface Aggregate extends Node {
  readonly kind: 'Aggregate';
  readonly groupingExpressions: readonly Expression[];
  readonly aggregateExpressions: readonly Expression[];
  readonly child: LogicalPlan;
}
export interface Join extends Node {
  readonly kind: 'Join';
  readonly left: LogicalPlan;
  readonly right: LogicalPlan;
  readonly joinType: JoinType;
  readonly condition?: Expression;
  /** JOIN … USING (a, b) (Catalyst's UsingJoin). */
  readonly usingColumns?: readonly string[];
  readonly natural?: boolean;
}
export interface Union extends Node { readonly kind: 'Union'; readonly children: readonly LogicalPlan[] }
export interface Intersect extends Node { readonly kind: 'Intersect'; readonly left: LogicalPlan; readonly right: LogicalPlan; readonly isAll: boolean }
export interface Except extends Node { readonly kind: 'Except'; readonly left: LogicalPlan; readonly right: LogicalPlan; readonly isAll: boolean }
export interface Distinct extends Node { readonly kind: 'Distinct'; readonly child: LogicalPlan }
/** WITH: each CTE as a SubqueryAlias, in order (each may read the earlier ones). */
export interface UnresolvedWith extends Node { readonly kind: 'UnresolvedWith'; readonly child: LogicalPlan; readonly cteRelations: readonly SubqueryAlias[] }
/** LATERAL VIEW [OUTER] gen(…) qualifier AS c1, c2. */
export interface Generate extends Node {
  readonly kind: 'Generate';
  readonly generator: UnresolvedFunction;
  readonly outer: boolean;
  readonly qualifier?: string;
  readonly generatorOutput: readonly string[];
  readonly child: LogicalPlan;
}
/** ORDER BY (`global`) or SORT BY. */
export interface Sort extends Node { readonly kind: 'Sort'; readonly order: readonly SortOrder[]; readonly global: boolean; readonly child: LogicalPlan }
export interface Limit extends Node { readonly kind: 'Limit'; readonly limitExpr: Expression; readonly child: LogicalPlan }
export interface Offset extends Node { readonly kind: 'Offset'; readonly offsetExpr: Expression; readonly child: LogicalPlan }

export type LogicalPlan =
  | UnresolvedRelation | OneRowRelation | SubqueryAlias | UnresolvedSubqueryColumnAliases | Project | Filter
  | UnresolvedHaving | Aggregate | Join | Union | Intersect | Except | Distinct | UnresolvedWith | Generate
  | Sort | Limit | Offset;
