/**
 * The analysis of a logical plan (Spark's Analyzer with its CheckAnalysis, for what Weir's
 * builder leaves to it): `resolvePlan` returns a new plan, its input unchanged, in which every
 * expression a node holds carries its resolved type (`dataType`, the compiler's type of it over
 * the node's input columns, computed once here), and refuses a plan that does not type-check,
 * with the errors the physical planner used to raise: a WHERE or HAVING that is not boolean, a
 * join of two streams without an equality or with keys whose types do not compare, a session
 * window misused, a dedup key that is no column, a derived event time no Project defines. A
 * join's key pair of two types is read as their common type, its casts written into the plan.
 *
 * `outputSchema` (Spark's LogicalPlan.output) is the same walk: the columns each node outputs,
 * read from the expressions' types where they carry them (a resolved plan: nothing is compiled
 * again for a Project), compiled where they do not (a subquery typed while its query is built).
 * The streaming checker (streaming-checker.ts), the optimizer and the physical planner read the resolved
 * plan; only physical planning compiles expressions into closures.
 */
import { isDeepStrictEqual } from 'node:util';
import { ValidationError } from '../errors';
import type { Schema } from '../types';
import { sameType, simpleTypeString, typeOfField, typeText, type TypeInfo } from './data-types';
import { exprChildren, exprToString, mapExprChildren, type Expr } from './expression';
import { compileExpression, expressionType, implicitCastExpr, joinKeyType, resolveColumn, type ImplicitCasts } from './expression-compiler';
import { firstStreamingRelation, isStreamStreamJoin, relationOutput, staticName, staticSchema, type LogicalPlan, type NamedExpr } from './logical-plan';
import { expandOutput, generateOutput, generatorFields, projectOutput, streamSideOf, unionOutput } from './plan-output';
import { checkSessionWindow, isSessionWindow } from './session-window-planner';
import { isWindowStruct } from './time-windowing';
import { SqlValidationError } from './sql-error';
import { windowOutput } from './window-functions';
import { aggregateOutput, isCountStar, staticRelationOutput, streamStaticJoinOutput, withDerivedEventTime, type WatermarkSpec } from './stateful-planner';
import { equalityOperands, readStreamJoin, streamJoinOutput } from './stream-join-planner';

/** A plan with its expressions typed, and the columns it outputs. */
export interface Resolved {
  plan: LogicalPlan;
  output: Schema;
}

/**
 * The watermark the plan's stateful operators see, as the physical planner's StatefulPlanner
 * takes it: the first source with an event time; with a derived one (a column the SQL's
 * projection defines, not a source column), the innermost Project defining it marks it.
 */
interface WatermarkContext {
  watermark?: WatermarkSpec;
  derivedEventTime?: string;
  /** Whether a Project resolved before (children first, left before right) has marked it. */
  placed: boolean;
}

function watermarkContext(plan: LogicalPlan): WatermarkContext {
  const r = firstStreamingRelation(plan, (n) => n.eventTime !== undefined);
  if (r?.eventTime === undefined) return { placed: false };
  const et = r.eventTime;
  return { watermark: { eventTime: et, delayMs: r.watermarkDelayMs ?? 0 }, ...(r.schema.some((f) => f.name === et) ? {} : { derivedEventTime: et }), placed: false };
}

/**
 * The plan with every expression typed, checked as Spark's analysis checks it, and its output
 * columns. A derived source.eventTime must be a column some Project of the whole query defines.
 */
export function resolvePlan(plan: LogicalPlan): Resolved {
  const ctx = watermarkContext(plan);
  const resolved = resolve(plan, ctx);
  if (ctx.derivedEventTime !== undefined && !ctx.placed) {
    throw new ValidationError(
      `source.eventTime "${ctx.derivedEventTime}" is neither a column of source.schema nor a column the SQL's projection defines; ` +
        `name a source timestamp column, or select the event time in a subquery, e.g. SELECT o.ts AS ${ctx.derivedEventTime} FROM (SELECT from_json(...) AS o FROM src)`,
      { path: 'source.eventTime' },
    );
  }
  return resolved;
}

/**
 * A part of a query (a subquery, a CTE) resolved as resolvePlan resolves the whole, but for the
 * check that needs the whole query (the Project defining a derived event time may be above it).
 */
export function resolveSubquery(plan: LogicalPlan): Resolved {
  return resolve(plan, watermarkContext(plan));
}

/** Spark's LogicalPlan.output: the columns `plan` outputs. It does not change `plan`. */
export function outputSchema(plan: LogicalPlan): Schema {
  return resolveSubquery(plan).output;
}

/**
 * `e` with itself and each of its subexpressions carrying its type over `schema` (Spark's resolved
 * expression tree), found by the compiler's analysis of it, which builds no evaluator
 * (compiled-expr.ts); `e` when it carries its type already. A copy: the input plan's expressions
 * are never changed.
 */
function typedTree(e: Expr, schema: Schema): Expr {
  if (e.dataType) return e;
  const types = new Map<Expr, TypeInfo>();
  const casts: ImplicitCasts = new Map();
  compileExpression(e, schema, types, casts);
  return withTypes(e, types, casts);
}

/**
 * A copy of `e` whose nodes carry the types recorded for them, and with each implicit cast the
 * compilation applied written above the operand it converts (Spark's TypeCoercion rules write
 * theirs so: `cast(a as bigint) + b`). A constant a function reads as written (named_struct's
 * field names, from_avro's options map) is typed on its own; a node the compiler replaced before
 * compiling keeps none.
 */
function withTypes(e: Expr, types: Map<Expr, TypeInfo>, casts: ImplicitCasts): Expr {
  const type = types.get(e) ?? constantType(e);
  const operandCasts = casts.get(e);
  const withChildren = mapExprChildren(e, (c) => {
    const t = withTypes(c, types, casts);
    const to = operandCasts?.get(c);
    return to ? implicitCastExpr(t, to) : t;
  });
  return type === undefined ? withChildren : typed(withChildren, type);
}

/** A subexpression that reads no column and no lambda variable: its type on its own. */
function constantType(e: Expr): TypeInfo | undefined {
  if (!isConstant(e)) return undefined;
  try {
    return expressionType(e, []);
  } catch {
    // Not an expression on its own (count(*)'s star): it stays untyped, as its function reads it.
    return undefined;
  }
}

const isConstant = (e: Expr): boolean => e.kind !== 'column' && e.kind !== 'lambdaVariable' && e.kind !== 'lambda' && exprChildren(e).every(isConstant);

/**
 * `e` with each subexpression the compilation of its aggregation did not reach typed on its own
 * over `schema`: a session window's gap, which its operator compiles apart.
 */
function withMissingTypes(e: Expr, schema: Schema): Expr {
  if (!e.dataType && e.kind !== 'lambda') return typedTree(e, schema);
  return mapExprChildren(e, (c) => withMissingTypes(c, schema));
}

/** `e` carrying `type` at its top (a copy: the input plan's expressions are never changed). */
const typed = <E extends Expr>(e: E, type: TypeInfo): E => (e.dataType === type ? e : { ...e, dataType: type });

/** A condition (WHERE, HAVING, a join's ON) must be a boolean (or NULL, which filters out every row). */
function condition(e: Expr, schema: Schema, clause: 'WHERE' | 'ON'): Expr {
  const t = typedTree(e, schema);
  const type = t.dataType!.type;
  if (type !== 'boolean' && type !== 'null') {
    const [text, typeName] = [exprToString(e), typeText(t.dataType!)];
    throw clause === 'WHERE'
      ? new SqlValidationError(`Cannot resolve "${text}" due to data type mismatch: Filter expression "${text}" of type "${typeName}" is not a boolean. WHERE needs a boolean condition, such as ${text} IS NOT NULL`, e.pos, clause, 'DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN')
      : new SqlValidationError(`The join condition \`${text}\` has the invalid type "${typeName}", expected "BOOLEAN".`, e.pos, clause, 'JOIN_CONDITION_IS_NOT_BOOLEAN_TYPE');
  }
  return t;
}

function resolve(plan: LogicalPlan, ctx: WatermarkContext): Resolved {
  switch (plan.kind) {
    case 'StreamingRelation':
      return { plan, output: relationOutput(plan) };
    case 'StaticRelation':
      return { plan, output: staticRelationOutput(plan) };
    case 'Filter': {
      const child = resolve(plan.child, ctx);
      return { plan: { ...plan, child: child.plan, condition: condition(plan.condition, child.output, 'WHERE') }, output: child.output };
    }
    case 'Limit':
    case 'Offset': {
      const child = resolve(plan.child, ctx);
      return { plan: { ...plan, child: child.plan }, output: child.output };
    }
    case 'Sort': {
      // ORDER BY names output columns (aggregate-planner.ts): each key is typed as that column.
      const child = resolve(plan.child, ctx);
      const order = plan.order.map((o) => {
        const f = resolveColumn(child.output, o.expr.kind === 'column' ? o.expr.name : exprToString(o.expr));
        return f ? { ...o, expr: typed(o.expr, typeOfField(f)) } : o;
      });
      return { plan: { ...plan, order, child: child.plan }, output: child.output };
    }
    case 'Deduplicate': {
      const child = resolve(plan.child, ctx);
      // dedup runs on the source's rows, before the SQL defines a derived event-time column.
      if (ctx.derivedEventTime !== undefined && plan.withinWatermark) {
        throw new ValidationError(`dedup.withinWatermark needs source.eventTime to be a source column; "${ctx.derivedEventTime}" is one the SQL derives`, { path: 'dedup.withinWatermark' });
      }
      for (const k of plan.keys) {
        if (!resolveColumn(child.output, k)) throw new ValidationError(`dedup key "${k}" is not a column of the source; columns: ${child.output.map((c) => c.name).join(', ')}`, { path: 'dedup.keys' });
      }
      return { plan: { ...plan, child: child.plan }, output: child.output };
    }
    case 'Project': {
      const child = resolve(plan.child, ctx);
      const list: NamedExpr[] = plan.list.map((n) => {
        const expr = typedTree(n.expr, child.output);
        return expr === n.expr ? n : { ...n, expr };
      });
      const out = projectOutput(plan.list, child.output, list.map((n) => n.expr.dataType!));
      const resolved: LogicalPlan = { ...plan, list, child: child.plan };
      if (ctx.derivedEventTime === undefined || ctx.placed) return { plan: resolved, output: out };
      const marked = withDerivedEventTime(out, ctx.derivedEventTime, ctx.watermark!.delayMs);
      if (!marked) return { plan: resolved, output: out };
      ctx.placed = true;
      return { plan: resolved, output: marked };
    }
    case 'Generate': {
      const child = resolve(plan.child, ctx);
      const g = plan.generator;
      // The generator's argument carries its type; the generator itself is typed by its output columns.
      // (A time window's durations are typed too: they are literals the planner reads as written.)
      const generator = { ...g, args: g.args.map((a) => typedTree(a, child.output)) };
      const fields = generatorFields(generator, child.output).fields;
      return { plan: { ...plan, generator, child: child.plan }, output: generateOutput(plan, child.output, fields).output };
    }
    case 'Expand': {
      const child = resolve(plan.child, ctx);
      const groupBy = plan.groupBy.map((e) => typedTree(e, child.output));
      return { plan: { ...plan, groupBy, child: child.plan }, output: expandOutput(plan, child.output, groupBy.map((e) => e.dataType!)) };
    }
    case 'Window': {
      const child = resolve(plan.child, ctx);
      const node = {
        ...plan, child: child.plan,
        partitionSpec: plan.partitionSpec.map((e) => typedTree(e, child.output)),
        orderSpec: plan.orderSpec.map((o) => ({ ...o, expr: typedTree(o.expr, child.output) })),
        functions: plan.functions.map((f) => ({ ...f, args: f.args.map((a) => (a.kind === 'literal' && a.value === '*' ? a : typedTree(a, child.output))) })),
      };
      return { plan: node, output: windowOutput(plan, child.output) };
    }
    case 'Aggregate': {
      const child = resolve(plan.child, ctx);
      const node = { ...plan, groupBy: plan.groupBy.map((e) => windowOverWindow(e, child.output)) };
      const types = new Map<Expr, TypeInfo>();
      const casts: ImplicitCasts = new Map();
      const output = aggregateOutput(node, child.output, ctx.watermark, types, casts);
      if (node.groupBy.some(isSessionWindow)) checkSessionWindow(node, child.output);
      // Each key and aggregate is typed as the column the aggregation outputs for it; below them,
      // their subexpressions (a window's event time, an aggregate's arguments) as the one
      // compilation of the aggregation's columns typed them over its input.
      const groupBy = node.groupBy.map((e, i) => withMissingTypes(typed(withTypes(e, types, casts), typeOfField(output[i])), child.output));
      const aggregates = node.aggregates.map((a, i) => ({ ...a, expr: typed(isCountStar(a.expr) ? a.expr : mapExprChildren(a.expr, (x) => withTypes(x, types, casts)), typeOfField(output[node.groupBy.length + i])) }));
      return { plan: { ...node, groupBy, aggregates, child: child.plan }, output };
    }
    case 'Join': {
      if (isStreamStreamJoin(plan)) {
        const left = resolve(plan.left, ctx);
        const right = resolve(plan.right, ctx);
        const cond = plan.condition && condition(plan.condition, [...left.output, ...right.output], 'ON');
        const resolved = { ...plan, left: left.plan, right: right.plan, ...(cond ? { condition: cond } : {}) };
        return { plan: withStreamJoinKeysCoerced(resolved), output: streamJoinOutput(plan, left.output, right.output) };
      }
      const side = streamSideOf(plan);
      const stream = resolve(side, ctx);
      const stat = plan.left === side ? plan.right : plan.left;
      const other = plan.otherCondition && stat.kind === 'StaticRelation' ? { otherCondition: condition(plan.otherCondition, [...stream.output, ...staticSchema(stat)], 'ON') } : {};
      const resolved = { ...(plan.left === side ? { ...plan, left: stream.plan } : { ...plan, right: stream.plan }), ...other };
      return { plan: withStaticJoinKeysCoerced(resolved, stream.output), output: streamStaticJoinOutput(plan, stream.output) };
    }
    case 'Union': {
      // Each branch that defines a derived event-time column marks its own.
      const before = ctx.placed;
      let placed = before;
      const branches = plan.branches.map((b) => {
        ctx.placed = before;
        const r = resolve(b, ctx);
        placed ||= ctx.placed;
        return r;
      });
      ctx.placed = placed;
      const { output, widened } = unionOutput(branches.map((b) => b.output), plan.pos);
      const widenedBranches = branches.map((b) => withWidening(b, widened.map((w) => w?.type)));
      // The casts must leave the union's columns as they were (a widened column keeps no
      // watermark, nor a never-NULL one its nullability): else unionOutput widens at run time.
      const same = isDeepStrictEqual(unionOutput(widenedBranches.map((b) => b.output), plan.pos).output, output);
      return { plan: { ...plan, branches: (same ? widenedBranches : branches).map((b) => b.plan) }, output };
    }
    default:
      return assertNever(plan);
  }
}

/**
 * Spark's WidenSetOperationTypes: a UNION branch with a column of a narrower type than the one
 * the column widens to (`types`, by position) gets a Project casting it (`Project [cast(a as
 * bigint) AS a, b]`), so that each branch outputs the union's types. A branch is left as it is
 * (unionOutput widens it at run time) where a Cast would not give the values that widening gives
 * (between interval types, which a Cast truncates to its fields) or where two of its columns
 * have one name (a Project reads a column by its name).
 */
function withWidening(branch: Resolved, types: readonly (TypeInfo | undefined)[]): Resolved {
  const { plan, output } = branch;
  const to = output.map((f, i) => { const t = types[i]; return t && !sameType(f, t) ? t : undefined; });
  if (to.every((t) => t === undefined)) return branch;
  const names = new Set(output.map((f) => f.name.toLowerCase()));
  if (names.size < output.length || to.some((t) => t && (t.type === 'day_time_interval' || t.type === 'year_month_interval'))) return branch;
  const list: NamedExpr[] = output.map((f, i) => {
    const column: Expr = { kind: 'column', name: f.name, dataType: typeOfField(f) };
    const t = to[i];
    return { name: f.name, expr: t ? implicitCastExpr(column, t) : column };
  });
  return { plan: { kind: 'Project', list, child: plan }, output: projectOutput(list, output, list.map((n) => n.expr.dataType!)) };
}

/**
 * Spark's TimeWindowing over a window column: `window(w, '10 seconds')` of a window struct w (an
 * aggregation's window below) groups by `window(window_time(w), …)`, the time that stands for w.
 */
function windowOverWindow(e: Expr, schema: Schema): Expr {
  if (e.kind !== 'call' || e.name !== 'window' || e.args.length === 0 || !isWindowStruct(expressionType(e.args[0], schema))) return e;
  const [w, ...rest] = e.args;
  return { ...e, args: [{ kind: 'call', name: 'window_time', args: [w], ...(w.pos ? { pos: w.pos } : {}) }, ...rest] };
}

/**
 * Spark's stream-stream join needs an equality of a left and a right expression; keys of two types
 * are read as the common type (joinKeyType), each side's cast written into the condition as
 * Spark's analysis writes it (`cast(c.id as bigint) = i.id`), so that the operator compares,
 * hashes, shuffles and stores both sides' keys as that one type.
 */
function withStreamJoinKeysCoerced(node: Extract<LogicalPlan, { kind: 'Join' }>): Extract<LogicalPlan, { kind: 'Join' }> {
  const r = readStreamJoin(node);
  if (r.keys.length === 0) {
    throw new SqlValidationError('Stream-stream join without equality predicate is not supported: the ON condition needs <left column> = <right column>', node.pos, 'ON');
  }
  const cast = new Map<Expr, Expr>();
  for (const k of r.keys) {
    const t = joinKeyType(k.left.dataType!, k.right.dataType!, [exprToString(k.left), exprToString(k.right)], node.pos);
    for (const x of [k.left, k.right]) if (!sameType(x.dataType!, t)) cast.set(x, implicitCastExpr(x, t));
  }
  if (cast.size === 0) return node;
  // The key pairs are operands of the condition's top-level equalities (readStreamJoin's conjuncts).
  const rewrite = (e: Expr): Expr =>
    e.kind === 'binary' && e.op === 'AND' ? mapExprChildren(e, rewrite)
      : equalityOperands(e) ? mapExprChildren(e, (x) => cast.get(x) ?? x)
        : e;
  return { ...node, condition: rewrite(node.condition!) };
}

/**
 * Spark's InSubquery type check, of a join that an IN subquery was rewritten to: each value and
 * the subquery's column beside it must compare (a common type), else the query is refused with
 * all the pairs that do not (DATATYPE_MISMATCH.IN_SUBQUERY_DATA_TYPE_MISMATCH), before any one
 * pair's comparison would be refused alone.
 */
function checkInSubqueryTypes(node: Extract<LogicalPlan, { kind: 'Join' }>, stat: Extract<LogicalPlan, { kind: 'StaticRelation' }>, streamOutput: Schema): void {
  const pairs = stat.keys.map((k) => {
    const sf = k.streamExpr ? undefined : resolveColumn(streamOutput, k.stream);
    const tf = k.staticExpr ? undefined : staticSchema(stat).find((f) => f.name === k.static);
    const st = k.streamExpr ? typedTree(k.streamExpr, streamOutput).dataType : sf && typeOfField(sf);
    const tt = k.staticExpr ? typedTree(k.staticExpr, staticSchema(stat)).dataType : tf && typeOfField(tf);
    return { k, st, tt };
  });
  const compares = (a: TypeInfo, b: TypeInfo, names: readonly [string, string]) => {
    try {
      joinKeyType(a, b, names, node.pos);
      return true;
    } catch {
      return false;
    }
  };
  const known = pairs.filter((p): p is typeof p & { st: TypeInfo; tt: TypeInfo } => p.st !== undefined && p.tt !== undefined);
  const mismatched = known.filter((p) => !compares(p.st, p.tt, [p.k.stream, p.k.static]));
  if (mismatched.length === 0) return;
  // The subquery's columns are named for the join (__in_value_<i>): shown by their place.
  const text = (p: (typeof known)[number]) => `(${p.k.stream}:${simpleTypeString(p.st)}, column ${known.indexOf(p) + 1} of the subquery:${simpleTypeString(p.tt)})`;
  throw new SqlValidationError(
    'Cannot resolve the IN subquery due to data type mismatch: The data type of one or more elements in the left hand side of an IN subquery is not compatible with the data type of the output of the subquery. ' +
      `Mismatched columns: [${mismatched.map(text).join(', ')}], left side: [${known.map((p) => simpleTypeString(p.st)).join(', ')}], right side: [${known.map((p) => simpleTypeString(p.tt)).join(', ')}]. CAST a value or the subquery's column so that each pair compares`,
    node.pos, 'IN', 'DATATYPE_MISMATCH.IN_SUBQUERY_DATA_TYPE_MISMATCH');
}

/**
 * A stream-static join's key pairs read as their common type (joinKeyType), as a stream-stream
 * join's: each key that needs it carries that type (the operator casts both sides' values to it
 * before it hashes and looks them up), and the condition shows the casts.
 */
function withStaticJoinKeysCoerced(node: Extract<LogicalPlan, { kind: 'Join' }>, streamOutput: Schema): Extract<LogicalPlan, { kind: 'Join' }> {
  const stat = node.left.kind === 'StaticRelation' ? node.left : node.right;
  if (stat.kind !== 'StaticRelation') return node;
  const streamName = firstStreamingRelation(node)?.sourceName ?? 'stream';
  if (node.inSubquery) checkInSubqueryTypes(node, stat, streamOutput);
  // Each pair with its two sides' types, found once: a column's, or an expression's typed.
  const pairs = stat.keys.map((k) => {
    const streamExpr = k.streamExpr && typedTree(k.streamExpr, streamOutput);
    const staticExpr = k.staticExpr && typedTree(k.staticExpr, staticSchema(stat));
    const sf = streamExpr ? undefined : resolveColumn(streamOutput, k.stream);
    const tf = staticExpr ? undefined : staticSchema(stat).find((f) => f.name === k.static);
    const st = streamExpr?.dataType ?? (sf && typeOfField(sf));
    const tt = staticExpr?.dataType ?? (tf && typeOfField(tf));
    if (!st || !tt) return { key: k };
    const names = [`${streamName}.${k.stream}`, `${staticName(stat)}.${k.static}`] as const;
    const type = joinKeyType(st, tt, names, node.pos);
    const exprs = { ...(streamExpr ? { streamExpr } : {}), ...(staticExpr ? { staticExpr } : {}) };
    const key = sameType(st, type) && sameType(tt, type) ? (streamExpr || staticExpr ? { ...k, ...exprs } : k) : { ...k, ...exprs, type };
    return { key, st, tt };
  });
  const keys = pairs.map((p) => p.key);
  if (keys.every((k, i) => k === stat.keys[i])) return node;
  const operand = (e: Expr | undefined, name: string, f: TypeInfo, t: TypeInfo | undefined): Expr => {
    const c: Expr = e ?? { kind: 'column', name, dataType: f, ...(node.pos ? { pos: node.pos } : {}) };
    return t && !sameType(f, t) ? implicitCastExpr(c, t) : c;
  };
  const condition = pairs
    .map(({ key: k, st, tt }): Expr => {
      const left = operand(k.streamExpr, k.stream, st!, k.type);
      const right = operand(k.staticExpr, k.stream === k.static && !k.staticExpr ? `${staticName(stat)}.${k.static}` : k.static, tt!, k.type);
      const at = node.pos ? { pos: node.pos } : {};
      return k.nullSafe ? { kind: 'call', name: 'equal_null', args: [left, right], dataType: { type: 'boolean' }, ...at } : { kind: 'binary', op: '=', dataType: { type: 'boolean' }, ...at, left, right };
    })
    .concat(node.otherCondition ? [node.otherCondition] : [])
    .reduce((x, y) => ({ kind: 'binary', op: 'AND', left: x, right: y, dataType: { type: 'boolean' } }));
  const typedStat = { ...stat, keys };
  return { ...node, condition, ...(node.left === stat ? { left: typedStat } : { right: typedStat }) };
}

function assertNever(plan: never): never {
  throw new Error(`Internal: no output for ${(plan as LogicalPlan).kind}`);
}
