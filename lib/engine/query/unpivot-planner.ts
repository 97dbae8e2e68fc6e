/**
 * UNPIVOT (Spark 3.4's Unpivot, parser/ast-builder.ts's withUnpivot) planned over its relation,
 * whose columns are known here, as Spark's analyzer resolves it (ResolveUnpivot, with
 * TypeCoercion's UnpivotCoercion and CheckAnalysis's UNPIVOT_* errors):
 *
 * - the ids are the relation's columns that no value column reads, in the relation's order;
 * - each value column's values widen to their least common type (findWiderTypeWithoutStringPromotion:
 *   an INT beside a BIGINT is a BIGINT, an INT beside a STRING is UNPIVOT_VALUE_DATA_TYPE_MISMATCH),
 *   each value cast to it;
 * - each row of the relation becomes one row per IN entry: the ids, the entry's name (its alias,
 *   else its column's name, a set's names joined by `_`), then its values.
 *
 * Spark runs it as an Expand, stateless on a stream; Weir as what that Expand computes, a Generate
 * of stack(n, name1, v1…, name2, v2…, …) under a Project of the ids, the name and the values, and
 * for EXCLUDE NULLS (the default) a Filter of `coalesce(values…) IS NOT NULL` above it.
 */
import type { Expr, SqlPosition } from './expression';
import { exprToString, referencedColumns } from './expression';
import { expressionType, implicitCastExpr, widerTypeWithoutStringPromotion } from './expression-compiler';
import type { ExpressionBuilder } from './expression-builder';
import { lineColumn } from './expression-builder';
import { sameType, typeText, type TypeInfo } from './data-types';
import type { LogicalPlan, NamedExpr } from './logical-plan';
import { IntegerType, StringType } from './parser/data-type';
import type { Expression, LogicalPlan as UnresolvedPlan } from './parser/unresolved-plan';
import { SqlValidationError } from './sql-error';
import type { Schema } from '../types';

type Unpivot = Extract<UnresolvedPlan, { kind: 'Unpivot' }>;

/** The relation UNPIVOT reads, and what plans over its columns (query-planner.ts's FROM item). */
export interface UnpivotInput {
  plan: LogicalPlan;
  schema: Schema;
  builder: (schema: Schema) => ExpressionBuilder;
  /** The plan resolved, with its output columns. */
  resolved: (plan: LogicalPlan) => { plan: LogicalPlan; output: Schema };
}

/** The name Spark gives a value column (Catalyst's NamedExpression.name): a column's, a struct field's. */
function valueName(e: Expr, builder: ExpressionBuilder): string {
  if (e.kind === 'column') return builder.outputName(e.name);
  if (e.kind === 'field') return e.field;
  return exprToString(e);
}

/** Spark's UNPIVOT_VALUE_DATA_TYPE_MISMATCH: each type with (up to three of) the values of it, the types in SQL order. */
function typeMismatch(values: { name: string; type: TypeInfo }[], pos: SqlPosition | undefined): SqlValidationError {
  const byType = new Map<string, string[]>();
  for (const v of values) {
    const t = `"${typeText(v.type)}"`;
    byType.set(t, [...(byType.get(t) ?? []), `\`${v.name.replace(/`/g, '``')}\``]);
  }
  const types = [...byType].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([t, names]) => {
    const sorted = names.sort();
    return `${t} (${(sorted.length > 3 ? [...sorted.slice(0, 3), '...'] : sorted).join(', ')})`;
  });
  return new SqlValidationError(
    `Unpivot value columns must share a least common type, some types do not: [${types.join(', ')}]. Cast the values to one type in a subquery before UNPIVOT`,
    pos, 'UNPIVOT', 'UNPIVOT_VALUE_DATA_TYPE_MISMATCH');
}

/** The plan of `u` over `input`, and its output columns: the ids, the name column, the value columns. */
export function planUnpivot(u: Unpivot, input: UnpivotInput): { plan: LogicalPlan; schema: Schema } {
  const pos = lineColumn(u.pos);
  const builder = input.builder(input.schema);
  const width = u.valueColumnNames.length;
  const values = u.values.map((set) => set.map((v) => builder.build(v)));
  if (values.some((set) => set.length !== width)) {
    throw new SqlValidationError(
      `All unpivot value columns must have the same size as there are value column names (${width}). Give each IN entry ${width} column${width === 1 ? '' : 's'}`,
      pos, 'UNPIVOT', 'UNPIVOT_VALUE_SIZE_MISMATCH');
  }
  const types = values.map((set) => set.map((e) => expressionType(e, input.schema)));
  const widened = u.valueColumnNames.map((_, i) => widerTypeWithoutStringPromotion(types.map((t) => t[i])));
  if (widened.some((t) => t === undefined)) {
    // Spark names a set of several values by its struct: `struct(a, b)`.
    const named = values.map((set, k) => (width === 1
      ? { name: valueName(set[0], builder), type: types[k][0] }
      : { name: `struct(${set.map((e) => valueName(e, builder)).join(', ')})`, type: { type: 'struct' as const, fields: set.map((e, i) => ({ ...types[k][i], name: valueName(e, builder) })) } }));
    throw typeMismatch(named as { name: string; type: TypeInfo }[], pos);
  }
  const read = new Set<string>();
  values.flat().forEach((e) => referencedColumns(e, read));
  const ids = input.schema.filter((f) => !read.has(f.name));
  const taken = new Set(ids.map((f) => builder.outputName(f.name).toLowerCase()));
  for (const name of [u.variableColumnName, ...u.valueColumnNames]) {
    if (taken.has(name.toLowerCase())) {
      throw new SqlValidationError(`UNPIVOT outputs a column ${name}, and its relation has a column ${name} too (not one it unpivots): name the column another way, or rename that column in a subquery`, pos, 'UNPIVOT');
    }
    taken.add(name.toLowerCase());
  }

  const literal = (value: bigint | string): Expr => builder.build({ kind: 'Literal', value, dataType: typeof value === 'string' ? StringType : IntegerType, pos: u.pos } as Expression);
  const args: Expr[] = [literal(BigInt(values.length))];
  values.forEach((set, k) => {
    args.push(literal(u.aliases[k] ?? set.map((e) => valueName(e, builder)).join('_')));
    set.forEach((e, i) => args.push(sameType(types[k][i], widened[i]!) ? e : implicitCastExpr(e, widened[i]!)));
  });
  // Generated under names no column has, then named by the Project (a value column may be named as a column it unpivots).
  const all = new Set(input.schema.map((f) => f.name.toLowerCase()));
  const hidden = (n: string) => {
    let name = `__unpivot_${n}`;
    for (let i = 1; all.has(name.toLowerCase()); i++) name = `__unpivot_${n}_${i}`;
    return name;
  };
  const output = [hidden('name'), ...u.valueColumnNames.map((_, i) => hidden(`value${i}`))];
  const generate: LogicalPlan = { kind: 'Generate', generator: { kind: 'call', name: 'stack', args, pos }, output, child: input.plan };
  const list: NamedExpr[] = [
    ...ids.map((f) => ({ expr: { kind: 'column', name: f.name } as Expr, name: builder.outputName(f.name) })),
    ...[u.variableColumnName, ...u.valueColumnNames].map((name, i) => ({ expr: { kind: 'column', name: output[i] } as Expr, name })),
  ];
  let { plan, output: schema } = input.resolved({ kind: 'Project', list, child: generate });
  if (!u.includeNulls) {
    const condition = input.builder(schema).build({
      kind: 'IsNotNull', pos: u.pos,
      child: { kind: 'UnresolvedFunction', nameParts: ['coalesce'], isDistinct: false, pos: u.pos, arguments: u.valueColumnNames.map((n): Expression => ({ kind: 'UnresolvedAttribute', nameParts: [n], pos: u.pos })) },
    });
    ({ plan, output: schema } = input.resolved({ kind: 'Filter', condition, child: plan }));
  }
  return { plan, schema };
}
