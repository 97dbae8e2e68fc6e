/**
 * PIVOT (parser/ast-builder.ts's withPivot) planned over its relation, whose columns are known
 * here, as Spark's analyzer rule ResolvePivot plans it: an aggregation grouped by the relation's
 * columns that neither the pivot column nor the aggregates read, with one output column per pivot
 * value and aggregate (named by the value, or by `<value>_<aggregate>` for several aggregates).
 * ResolvePivot has two plans, and which one it takes decides what Spark does on a stream:
 *
 * - every aggregate of a type its PivotFirst stores (BOOLEAN, the integers, FLOAT, DOUBLE,
 *   DECIMAL: sum, count, avg, min and max of numbers): two aggregations, the first grouped by the
 *   columns and the pivot column, the second by the columns only, taking each value's aggregate
 *   from the first (PivotFirst: here `first(if(pivot <=> value, agg, NULL), true)`, the same
 *   value). On a stream that is a chain of two streaming aggregations, which the streaming
 *   checker holds to Spark's rules: refused in Update and Complete mode, run in Append;
 * - otherwise (a STRING, an array, …) one aggregation, each aggregate function's arguments read
 *   as `if(pivot <=> value, arg, NULL)` (first and last then ignore NULLs), a streaming
 *   aggregation like any other.
 *
 * Refused as Spark refuses: a column outside an aggregate (_LEGACY_ERROR_TEMP_1006), a pivot
 * value that reads a column (NON_LITERAL_PIVOT_VALUES) or does not cast to the pivot column's type
 * (PIVOT_VALUE_DATA_TYPE_MISMATCH), a pivot column of a map (INCOMPARABLE_PIVOT_COLUMN).
 */
import type { Expr, SqlPosition } from './expression';
import { exprToString, referencedColumns } from './expression';
import { canCastType, compileExpression, expressionType, implicitCastExpr } from './expression-compiler';
import { lineColumn } from './expression-builder';
import { isOrderable, typeOfField, typeText, type TypeInfo } from './data-types';
import { isAggregateFunctionName } from './aggregate-functions';
import { columnOutsideAggregate } from './aggregate-planner';
import type { LogicalPlan } from './logical-plan';
import { BooleanType, NullType } from './parser/data-type';
import { parseDataType } from './parser/data-type-parser';
import { expressionSql } from './parser/expression-sql';
import { mapExpression, someExpression } from './parser/expression-tree';
import type { Expression, LogicalPlan as UnresolvedPlan, Position } from './parser/unresolved-plan';
import { castValue } from './sql-values';
import { notSupportedYet, SqlValidationError } from './sql-error';
import type { Schema } from '../types';
import type { UnpivotInput } from './unpivot-planner';

type Pivot = Extract<UnresolvedPlan, { kind: 'Pivot' }>;

/** The relation PIVOT reads, what plans over its columns, as UNPIVOT's, and how to aggregate it. */
export interface PivotInput extends UnpivotInput {
  /** A streaming aggregation of `items` grouped by `grouping` over `plan` (aggregate-planner.ts). */
  aggregate: (items: Expression[], grouping: Expression[], plan: LogicalPlan, schema: Schema) => LogicalPlan;
}

/** The types ResolvePivot's PivotFirst stores, for which it plans two aggregations. */
const pivotFirstType = (t: TypeInfo) => t.type === 'boolean' || t.type === 'long' || t.type === 'double' || t.type === 'decimal';

const call = (name: string, args: Expression[], pos: Position): Expression => ({ kind: 'UnresolvedFunction', nameParts: [name], arguments: args, isDistinct: false, pos });
const column = (name: string, pos: Position): Expression => ({ kind: 'UnresolvedAttribute', nameParts: [name], exact: true, pos });

export function planPivot(u: Pivot, input: PivotInput): { plan: LogicalPlan; schema: Schema } {
  const pos = lineColumn(u.pos);
  const builder = input.builder(input.schema);
  const pivotExpr = builder.build(u.pivotColumn);
  const pivotType = expressionType(pivotExpr, input.schema);
  if (!isOrderable(pivotType)) {
    throw new SqlValidationError(`Invalid pivot column \`${expressionSql(u.pivotColumn)}\`. Pivot columns must be comparable. Pivot on a column of another type`, pos, 'PIVOT', 'INCOMPARABLE_PIVOT_COLUMN');
  }
  for (const a of u.aggregates) {
    const outside = columnOutsideAggregate(a.kind === 'Alias' ? a.child : a);
    if (outside) {
      throw new SqlValidationError(`Aggregate expression required for pivot, but '${expressionSql(outside)}' did not appear in any aggregate function. Aggregate it (first(x), max(x))`, lineColumn(outside.pos), 'PIVOT', '_LEGACY_ERROR_TEMP_1006');
    }
  }
  // Each value as the pivot column's type (Spark's Cast(value, pivotColumn.dataType)), and the name it gives its columns.
  const pivotDataType = parseDataType(typeText(pivotType));
  const values = u.pivotValues.map((v) => {
    const e = v.kind === 'Alias' ? v.child : v;
    const built = builder.build(e);
    // Resolved first (Spark's ResolveReferences, before ResolvePivot checks the values are
    // literals): a name that is no column is UNRESOLVED_COLUMN, not NON_LITERAL_PIVOT_VALUES.
    const type = expressionType(built, input.schema);
    const read = new Set<string>();
    referencedColumns(built, read);
    if (read.size > 0) throw new SqlValidationError(`Literal expressions required for pivot values, found "${expressionSql(e)}". Write the value as a literal`, lineColumn(e.pos), 'PIVOT', 'NON_LITERAL_PIVOT_VALUES');
    if (!canCastType(type, pivotType)) {
      throw new SqlValidationError(
        `Invalid pivot value '${expressionSql(e)}': value data type ${typeText(type)} does not match pivot column data type ${typeText(pivotType)}. Write a value of the column's type`,
        lineColumn(e.pos), 'PIVOT', 'PIVOT_VALUE_DATA_TYPE_MISMATCH');
    }
    return { cast: { kind: 'Cast', child: e, dataType: pivotDataType, evalMode: 'LEGACY', pos: e.pos } as Expression, name: v.kind === 'Alias' ? v.name : valueName(built, e.pos) };
  });

  // The grouping columns: the relation's columns the pivot column and the aggregates do not read.
  const read = new Set<string>();
  referencedColumns(pivotExpr, read);
  for (const a of u.aggregates) {
    someExpression(a, (x) => {
      if (x.kind === 'UnresolvedAttribute') {
        // A lambda's variable is no column: not read here.
        try {
          referencedColumns(builder.build(x), read);
        } catch {
          // not a column of the relation
        }
      }
      return false;
    });
  }
  // Names match ignoring case, as Spark resolves them (FOR Course reads the column course).
  const readNames = new Set([...read].map((n) => n.toLowerCase()));
  const groupBy = input.schema.filter((f) => !readNames.has(f.name.toLowerCase())).map((f) => column(f.name, u.pos));

  // The first aggregation (ResolvePivot's firstAgg): its aggregates' types choose the plan, its names name the columns.
  const PIVOT_COL = '__pivot_col';
  const first = input.resolved(input.aggregate([...groupBy, { kind: 'Alias', child: u.pivotColumn, name: PIVOT_COL, pos: u.pivotColumn.pos }, ...u.aggregates], [...groupBy, u.pivotColumn], input.plan, input.schema));
  const aggregateColumns = first.output.slice(groupBy.length + 1);
  const outputName = (value: string, j: number) => (u.aggregates.length === 1 ? value : `${value}_${aggregateColumns[j].name}`);
  const matches = (v: { cast: Expression }, pivot: Expression): Expression => ({ kind: 'BinaryOperator', op: 'EqualNullSafe', left: pivot, right: v.cast, pos: u.pos });
  const nullLiteral: Expression = { kind: 'Literal', value: null, dataType: NullType, pos: u.pos };
  let plan: LogicalPlan;
  if (aggregateColumns.map(typeOfField).every(pivotFirstType)) {
    const items = values.flatMap((v) => aggregateColumns.map((a, j): Expression => ({
      kind: 'Alias', name: outputName(v.name, j), pos: u.pos,
      child: call('first', [call('if', [matches(v, column(PIVOT_COL, u.pos)), column(a.name, u.pos), nullLiteral], u.pos), { kind: 'Literal', value: true, dataType: BooleanType, pos: u.pos }], u.pos),
    })));
    plan = input.aggregate([...groupBy, ...items], groupBy, first.plan, first.output);
  } else {
    const items = values.flatMap((v) => u.aggregates.map((a, j): Expression => {
      const ifMatches = (e: Expression) => call('if', [matches(v, u.pivotColumn), e, nullLiteral], e.pos);
      const filtered = mapExpression(a.kind === 'Alias' ? a.child : a, (x) => {
        if (x.kind !== 'UnresolvedFunction' || x.nameParts.length !== 1 || !isAggregateFunctionName(x.nameParts[0])) return undefined;
        const name = x.nameParts[0].toLowerCase();
        // Spark: first and last then ignore NULLs; approx_percentile's accuracy and percentage stay literals.
        if (['first', 'first_value', 'last', 'last_value', 'any_value'].includes(name)) return { ...x, arguments: [ifMatches(x.arguments[0]), { kind: 'Literal', value: true, dataType: BooleanType, pos: x.pos }], ignoreNulls: undefined };
        if (name === 'approx_percentile' || name === 'percentile_approx') return { ...x, arguments: [ifMatches(x.arguments[0]), ...x.arguments.slice(1)] };
        return { ...x, arguments: x.arguments.map(ifMatches) };
      });
      return { kind: 'Alias', child: filtered, name: outputName(v.name, j), pos: u.pos };
    }));
    plan = input.aggregate([...groupBy, ...items], groupBy, input.plan, input.schema);
  }
  const { plan: resolved, output } = input.resolved(plan);
  return { plan: resolved, schema: output };
}

/** The name a pivot value gives its columns: the value as a STRING (Spark's Cast(value, StringType)), "null" for NULL. */
function valueName(e: Expr, pos: Position): string {
  if (e.kind === 'literal') {
    if (e.value === null || e.value === undefined) return 'null';
    const text = e.type === 'null' ? null : castValue(e.value, e.type, 'string', e.decimal);
    return text === null ? 'null' : String(text);
  }
  // A struct, array or map of literals (`('dotNET', 2012)`, `array(1, 1)`): its text as CAST
  // writes it, `{dotNET, 2012}`. Only such a value is evaluated: validation runs in the API's
  // event loop, where any other expression (repeat, regexp_replace, …) could hold it busy.
  const name = () => {
    try {
      return compileExpression(implicitCastExpr(e, { type: 'string' }), []).eval({}, { batchTimestampMs: 0 });
    } catch {
      return undefined;
    }
  };
  const text = isConstructorOfLiterals(e) ? name() : undefined;
  if (text === undefined) throw notSupportedYet(`A pivot value that is not a literal (${exprToString(e)}) without an alias`, lineColumn(pos) as SqlPosition, 'name its columns: IN (… AS name)');
  return text === null ? 'null' : String(text);
}

/** Literals, and struct, named_struct, array and map calls of them: a value built by its text alone. */
function isConstructorOfLiterals(e: Expr): boolean {
  if (e.kind === 'literal') return true;
  return e.kind === 'call' && CONSTRUCTORS.has(e.name) && e.args.every(isConstructorOfLiterals);
}

const CONSTRUCTORS: ReadonlySet<string> = new Set(['struct', 'named_struct', 'array', 'map']);
