/**
 * The columns a logical plan outputs (Spark's LogicalPlan.output): names, types, nullability and
 * the watermark metadata, computed from the logical plan alone. A subquery's, CTE's or LATERAL
 * VIEW's columns come from here, not from planning it physically. Each node's columns are typed
 * by the code the physical planner builds its operator's schema with (projectOutput,
 * generatorFields, unionOutput here; aggregateOutput, streamStaticJoinOutput in
 * stateful-planner.ts; streamJoinOutput in stream-join-planner.ts), so the two cannot disagree;
 * plan-output.differential.test.ts checks it node by node.
 *
 * It refuses what typing refuses (an unknown column, a UNION of types that do not widen); the
 * rest of validation (a WHERE that is not boolean, a join without equality) is the physical
 * planner's, which still runs over the whole query.
 */
import type { Field, Schema } from '../types';
import type { SqlPosition } from './expression';
import { compileExpression, resolveColumn, widenSetOperationColumn, type CompiledExpr, type Evaluator } from './expression-compiler';
import { fieldOfType, sameType, typeText, type TypeInfo } from './data-types';
import { generatorOutput } from './generators';
import { children, isStreamStreamJoin, relationOutput, type LogicalPlan, type NamedExpr, type StreamingRelation } from './logical-plan';
import { SqlValidationError } from './sql-error';
import { aggregateOutput, staticRelationOutput, streamStaticJoinOutput, timeWindowOf, withDerivedEventTime, type WatermarkSpec } from './stateful-planner';
import { streamJoinOutput } from './stream-join-planner';
import { WINDOW_COLUMN } from './time-windowing';
import type { TimeWindowSpec } from '../operators/window';

/** A Project's output: each named expression as compiled over the child's columns. */
export function projectOutput(list: readonly NamedExpr[], childSchema: Schema, compiled: readonly CompiledExpr[]): Schema {
  return list.map((n, i) => {
    // A window column passed through keeps its type, so sinks render it as {start, end}.
    // It keeps its watermark too (Spark's window column carries its time column's metadata).
    const w = n.expr.kind === 'column' ? resolveColumn(childSchema, n.expr.name) : undefined;
    if (w?.type !== 'window') return fieldOfType(n.name, compiled[i]);
    return { name: n.name, type: 'window', nullable: true, fields: compiled[i].fields, ...(w.ntz ? { ntz: true as const } : {}), ...(w.watermarkDelayMs !== undefined ? { watermarkDelayMs: w.watermarkDelayMs } : {}) };
  });
}

type GenerateNode = Extract<LogicalPlan, { kind: 'Generate' }>;

/**
 * What a Generate's generator outputs over `schema`: the window containing a row's time
 * (time-windowing.ts), or explode's element or entry columns; with the compiled argument.
 */
export function generatorFields(g: GenerateNode['generator'], schema: Schema): { arg: CompiledExpr; window?: TimeWindowSpec; fields: Schema } {
  const arg = compileExpression(g.args[0], schema);
  const window = timeWindowOf(g, schema);
  if (window) {
    const field: Field = { name: WINDOW_COLUMN, type: 'window', nullable: false, ...(arg.watermarkDelayMs !== undefined ? { watermarkDelayMs: arg.watermarkDelayMs } : {}) };
    return { arg, window, fields: [field] };
  }
  const fields = generatorOutput(g.name, arg);
  if (typeof fields === 'string') throw new SqlValidationError(fields, g.pos, g.name);
  return { arg, fields };
}

/** A Generate's output: the child's columns it carries (ColumnPruning narrows them), then the generator's, named by `output`. */
export function generateOutput(node: GenerateNode, childSchema: Schema, generated: Schema): { carried: Schema; output: Schema } {
  const carried = node.carried ? childSchema.filter((f) => node.carried!.includes(f.name.toLowerCase())) : childSchema;
  return { carried, output: [...carried, ...generated.map((f, i) => ({ ...f, name: node.output[i] }))] };
}

/**
 * UNION ALL's output: each column widened to one type for every branch (Spark's
 * WidenSetOperationTypes), named as the first branch's. `widened[i]`, for a column some branch
 * must convert, says the type and how each branch reads its value as that type.
 */
export function unionOutput(branches: readonly Schema[], pos: SqlPosition | undefined): { output: Schema; widened: ({ type: TypeInfo; read: Evaluator[] } | undefined)[] } {
  const [first, ...rest] = branches;
  for (const b of rest) {
    if (b.length !== first.length) {
      throw new SqlValidationError(`UNION ALL can only be performed on inputs with the same number of columns, but the first has ${first.length} and another ${b.length}`, pos, 'UNION');
    }
  }
  const widened: ({ type: TypeInfo; read: Evaluator[] } | undefined)[] = [];
  const output: Schema = first.map((f, i) => {
    const column = branches.map((b) => b[i]);
    if (column.every((g) => sameType(g, f))) {
      widened.push(undefined);
      return { ...f };
    }
    const w = widenSetOperationColumn(column);
    const other = column.find((g) => !sameType(g, f))!;
    if (!w) throw new SqlValidationError(`UNION ALL column ${i + 1} (${f.name}) is ${typeText(f)} in the first SELECT and ${typeText(other)} in another, which do not widen to one type; CAST one of them`, pos, 'UNION');
    widened.push(w);
    return fieldOfType(f.name, w.type);
  });
  return { output, widened };
}

/** The stream side a stream-static join reads. */
export function streamSideOf(node: Extract<LogicalPlan, { kind: 'Join' }>): LogicalPlan {
  return node.left.kind === 'StaticRelation' ? node.right : node.left;
}

/**
 * The watermark the plan's stateful operators see, as the physical planner's StatefulPlanner
 * takes it: the first source with an event time; with a derived one (a column the SQL's
 * projection defines, not a source column), the innermost Project defining it marks it.
 */
interface WatermarkContext {
  watermark?: WatermarkSpec;
  derivedEventTime?: string;
  /** Whether a Project planned before (children first, left before right) has marked it. */
  placed: boolean;
}

function watermarkContext(plan: LogicalPlan): WatermarkContext {
  const r = firstRelation(plan, (n) => n.eventTime !== undefined);
  if (r?.eventTime === undefined) return { placed: false };
  const et = r.eventTime;
  return { watermark: { eventTime: et, delayMs: r.watermarkDelayMs ?? 0 }, ...(r.schema.some((f) => f.name === et) ? {} : { derivedEventTime: et }), placed: false };
}

function firstRelation(plan: LogicalPlan, p: (r: StreamingRelation) => boolean): StreamingRelation | undefined {
  if (plan.kind === 'StreamingRelation') return p(plan) ? plan : undefined;
  for (const c of children(plan)) {
    const r = firstRelation(c, p);
    if (r) return r;
  }
  return undefined;
}

/** Spark's LogicalPlan.output: the columns `plan` outputs. It does not change `plan`. */
export function outputSchema(plan: LogicalPlan): Schema {
  return output(plan, watermarkContext(plan));
}

function output(plan: LogicalPlan, ctx: WatermarkContext): Schema {
  switch (plan.kind) {
    case 'StreamingRelation':
      return relationOutput(plan);
    case 'StaticRelation':
      return staticRelationOutput(plan);
    case 'Filter': case 'Sort': case 'Limit': case 'Deduplicate':
      return output(plan.child, ctx);
    case 'Project': {
      const schema = output(plan.child, ctx);
      const out = projectOutput(plan.list, schema, plan.list.map((n) => compileExpression(n.expr, schema)));
      if (ctx.derivedEventTime === undefined || ctx.placed) return out;
      const marked = withDerivedEventTime(out, ctx.derivedEventTime, ctx.watermark!.delayMs);
      if (!marked) return out;
      ctx.placed = true;
      return marked;
    }
    case 'Generate': {
      const schema = output(plan.child, ctx);
      return generateOutput(plan, schema, generatorFields(plan.generator, schema).fields).output;
    }
    case 'Aggregate':
      return aggregateOutput(plan, output(plan.child, ctx), ctx.watermark);
    case 'Join':
      if (isStreamStreamJoin(plan)) return streamJoinOutput(plan, output(plan.left, ctx), output(plan.right, ctx));
      return streamStaticJoinOutput(plan, output(streamSideOf(plan), ctx));
    case 'Union': {
      // Each branch that defines a derived event-time column marks its own.
      const before = ctx.placed;
      let placed = before;
      const branches = plan.branches.map((b) => {
        ctx.placed = before;
        const schema = output(b, ctx);
        placed ||= ctx.placed;
        return schema;
      });
      ctx.placed = placed;
      return unionOutput(branches, plan.pos).output;
    }
    default:
      return assertNever(plan);
  }
}

function assertNever(plan: never): never {
  throw new Error(`Internal: no output for ${(plan as LogicalPlan).kind}`);
}
