/**
 * The columns each kind of logical node outputs (Spark's LogicalPlan.output), from its input's
 * columns and its expressions' types: the code the physical planner builds its operator's schema
 * with too (projectOutput, generatorFields, unionOutput here; aggregateOutput,
 * streamStaticJoinOutput in stateful-planner.ts; streamJoinOutput in stream-join-planner.ts), so
 * the analysis (resolved-plan.ts's outputSchema) and the physical plan cannot disagree;
 * plan-output.differential.test.ts checks it node by node.
 */
import type { Field, Schema } from '../types';
import type { SqlPosition } from './expression';
import { expressionType, resolveColumn, widenSetOperationColumn, type Evaluator } from './expression-compiler';
import { fieldOfType, sameType, typeText, type TypeInfo } from './data-types';
import { generatorOutput } from './generators';
import { GROUPING_POS_COLUMN, type LogicalPlan, type NamedExpr } from './logical-plan';
import { SqlValidationError } from './sql-error';
import { timeWindowOf } from './stateful-planner';
import { WINDOW_COLUMN } from './time-windowing';
import type { TimeWindowSpec } from '../operators/window';

/** A Project's output: each named expression, of its type over the child's columns. */
export function projectOutput(list: readonly NamedExpr[], childSchema: Schema, types: readonly TypeInfo[]): Schema {
  return list.map((n, i) => {
    // A window column passed through keeps its type, so sinks render it as {start, end}.
    // It keeps its watermark too (Spark's window column carries its time column's metadata).
    const w = n.expr.kind === 'column' ? resolveColumn(childSchema, n.expr.name) : undefined;
    if (w?.type !== 'window') return fieldOfType(n.name, types[i]);
    return { name: n.name, type: 'window', nullable: true, fields: types[i].fields, ...(w.ntz ? { ntz: true as const } : {}), ...(w.watermarkDelayMs !== undefined ? { watermarkDelayMs: w.watermarkDelayMs } : {}) };
  });
}

/**
 * An Expand's output: the child's columns, then each grouping expression's column, nullable (NULL
 * in the rows of a set that leaves it out), keeping the watermark of an event time or a window
 * (Spark's Expand output keeps the attribute's metadata), then spark_grouping_id, a BIGINT, and
 * _gen_grouping_pos, an INT, when the node has it.
 */
export function expandOutput(node: Extract<LogicalPlan, { kind: 'Expand' }>, childSchema: Schema, types: readonly TypeInfo[] = node.groupBy.map((e) => expressionType(e, childSchema))): Schema {
  const keys = projectOutput(node.groupBy.map((expr, i) => ({ expr, name: node.output[i] })), childSchema, types).map((f) => ({ ...f, nullable: true }));
  const extra: Schema = node.output.slice(node.groupBy.length).map((name) => (name === GROUPING_POS_COLUMN ? { name, type: 'long', integral: 32, nullable: false } : { name, type: 'long', nullable: false }));
  return [...childSchema, ...keys, ...extra];
}

type GenerateNode = Extract<LogicalPlan, { kind: 'Generate' }>;

/**
 * What a Generate's generator outputs over `schema`: the window containing a row's time
 * (time-windowing.ts), or explode's element or entry columns. `args`: its arguments' types
 * (the ones they carry, or compiled, when not given).
 */
export function generatorFields(g: GenerateNode['generator'], schema: Schema, args: readonly TypeInfo[] = g.args.map((a) => expressionType(a, schema))): { window?: TimeWindowSpec; fields: Schema } {
  const window = timeWindowOf(g, schema);
  if (window) {
    // TimeWindow's start and end are of its time column's type: TIMESTAMP_NTZ of a TIMESTAMP_NTZ.
    const field: Field = { name: WINDOW_COLUMN, type: 'window', nullable: false, ...(args[0].ntz ? { ntz: true as const } : {}), ...(args[0].watermarkDelayMs !== undefined ? { watermarkDelayMs: args[0].watermarkDelayMs } : {}) };
    return { window, fields: [field] };
  }
  const fields = generatorOutput(g.name, g.args, args);
  if (!Array.isArray(fields)) throw new SqlValidationError(fields.message, g.pos, g.name, fields.errorClass);
  return { fields };
}

/** A Generate's output: the child's columns it carries (ColumnPruning narrows them), then the generator's, named by `output`. */
export function generateOutput(node: GenerateNode, childSchema: Schema, generated: Schema): { carried: Schema; output: Schema } {
  const carried = node.carried ? childSchema.filter((f) => node.carried!.includes(f.name.toLowerCase())) : childSchema;
  return { carried, output: [...carried, ...generated.map((f, i) => ({ ...f, name: node.output[i] }))] };
}

/** Spark's ordinalNumber (CheckAnalysis): first, second, third, then 4th, 5th, … */
const ordinalNumber = (i: number) => ['first', 'second', 'third'][i] ?? `${i + 1}th`;

/**
 * Spark's INCOMPATIBLE_COLUMN_TYPE of a set operation (CheckAnalysis): the `column`th column
 * (from 0) of its `table`th input (from 0, the first's never) is of a type that does not widen
 * to the first input's.
 */
export function incompatibleColumnType(operator: string, column: number, table: number, type: Field, first: Field, pos: SqlPosition | undefined): SqlValidationError {
  return new SqlValidationError(
    // Spark's template ends `<hint>.`, its hint empty here; Weir's sentence on what to do follows.
    `[INCOMPATIBLE_COLUMN_TYPE] ${operator} can only be performed on tables with compatible column types. The ${ordinalNumber(column)} column of the ${ordinalNumber(table)} table is "${typeText(type)}" type which is not compatible with "${typeText(first)}" at the same column of the first table.. CAST one of the two to the other's type.`,
    pos, operator, 'INCOMPATIBLE_COLUMN_TYPE');
}

/**
 * Spark's NUM_COLUMNS_MISMATCH of a set operation (CheckAnalysis): its `input`th input (from 0,
 * the first's never) has `count` columns where the first has `first`.
 */
export function numColumnsMismatch(operator: string, first: number, input: number, count: number, pos: SqlPosition | undefined): SqlValidationError {
  return new SqlValidationError(
    `[NUM_COLUMNS_MISMATCH] ${operator} can only be performed on inputs with the same number of columns, but the first input has ${first} columns and the ${ordinalNumber(input)} input has ${count} columns. Select as many columns in each query (NULL AS <name> for one a query lacks).`,
    pos, operator, 'NUM_COLUMNS_MISMATCH');
}

/**
 * UNION ALL's output: each column widened to one type for every branch (Spark's
 * WidenSetOperationTypes), named as the first branch's. `widened[i]`, for a column some branch
 * must convert, says the type and how each branch reads its value as that type (the analysis
 * writes that as a Project of casts above the branch where it can: resolved-plan.ts).
 */
export function unionOutput(branches: readonly Schema[], pos: SqlPosition | undefined): { output: Schema; widened: ({ type: TypeInfo; read: Evaluator[] } | undefined)[] } {
  const [first, ...rest] = branches;
  rest.forEach((b, i) => {
    if (b.length !== first.length) throw numColumnsMismatch('UNION', first.length, i + 1, b.length, pos);
  });
  const widened: ({ type: TypeInfo; read: Evaluator[] } | undefined)[] = [];
  const output: Schema = first.map((f, i) => {
    const column = branches.map((b) => b[i]);
    // A NULL column (VOID) is a STRING of no type of its own: beside any other it widens.
    if (column.every((g) => sameType(g, f) && g.void === f.void)) {
      widened.push(undefined);
      return { ...f };
    }
    const w = widenSetOperationColumn(column);
    const other = column.findIndex((g) => !sameType(g, f));
    // Spark's Union node (UNION and UNION ALL alike) names itself UNION in the error.
    if (!w) throw incompatibleColumnType('UNION', i, other, column[other], f, pos);
    widened.push(w);
    return fieldOfType(f.name, w.type);
  });
  return { output, widened };
}

/** The stream side a stream-static join reads. */
export function streamSideOf(node: Extract<LogicalPlan, { kind: 'Join' }>): LogicalPlan {
  return node.left.kind === 'StaticRelation' ? node.right : node.left;
}

/** The static side a stream-static join looks up. */
export function staticSideOf(node: Extract<LogicalPlan, { kind: 'Join' }>): Extract<LogicalPlan, { kind: 'StaticRelation' }> {
  return (node.left.kind === 'StaticRelation' ? node.left : node.right) as Extract<LogicalPlan, { kind: 'StaticRelation' }>;
}
