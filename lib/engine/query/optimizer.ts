/**
 * The logical optimizer (Spark's Catalyst Optimizer, the rules a streaming query needs), between
 * analysis and physical planning. Every rule rewrites a plan into one that gives the same rows
 * on every batch; the property test (optimizer.property.test.ts) and the DuckDB differential
 * tests hold each rule to that.
 *
 * Rules, in the order they run (Spark's names):
 * - ConstantFolding: a subexpression of number and boolean literals, operators and constant-time
 *   numeric calls becomes its value (numbers and booleans only: a folded string literal would be
 *   coerced against a timestamp column where the expression it replaced was not; and only what is
 *   provably cheap, see CHEAP_NUMERIC_CALLS), and `WHERE true` disappears (PruneFilters).
 * - PushDownPredicates: the conjuncts of a Filter above a stream-static join that read only the
 *   stream's columns move below the join (the stream is always the preserved side, so an outer
 *   join keeps its meaning), so the join looks up and copies only the rows that survive; a Filter
 *   above a Project of plain columns moves below it; adjacent Filters combine (CombineFilters).
 * - ColumnPruning: from the top, the columns each operator reads; the source is told which it
 *   must materialize (`StreamingRelation.requiredColumns`: a JSON line with 7 fields and a query
 *   that reads 3 yields rows of 3), a join carries only the stream and static columns used above
 *   it (`Join.streamColumns`, `StaticRelation.columns`). The event-time column always stays:
 *   the watermark reads it from every input row.
 * - PushedFilters (scanFilterOf, read by compileStreamingQuery; the plan is not rewritten): the
 *   condition the source may apply as it reads.
 *
 * A pruned column is not parsed, so a value of the wrong type in a column the query never reads
 * no longer makes its line a bad record (Spark's JSON and CSV readers with a pruned schema do
 * the same).
 */
import type { Schema } from '../types';
import { compileExpression, resolveColumn } from './expression-compiler';
import { exprToString, referencedColumns, type Expr } from './expression';
import { children, type LogicalPlan, type NamedExpr, type StreamingRelation } from './logical-plan';

export interface OptimizerRuleApplication {
  /** Spark's rule name, e.g. `PushDownPredicates`. */
  rule: string;
  /** What it moved or removed, in the plan's own terms. */
  detail: string;
}

export interface OptimizedPlan {
  plan: LogicalPlan;
  applied: OptimizerRuleApplication[];
}

type Node<K extends LogicalPlan['kind']> = Extract<LogicalPlan, { kind: K }>;

export function optimizePlan(plan: LogicalPlan): OptimizedPlan {
  const applied: OptimizerRuleApplication[] = [];
  let p = foldConstants(plan, applied);
  p = pushDownPredicates(p, applied);
  p = pruneColumns(p, null, applied);
  return { plan: p, applied };
}

// ---------------------------------------------------------------- ConstantFolding

/**
 * The calls folding may evaluate: constant time over numbers and booleans. Folding runs wherever
 * a query is validated or planned (the API's validation, the worker's run start), in processes
 * that other users share, so it evaluates only what is provably cheap. A call that builds or
 * scans a string, array or map (repeat, regexp_replace, split, lpad…) can cost minutes of CPU
 * from a few bytes of SQL; it stays unfolded and is evaluated per batch, in the run's own
 * bounded engine process. A call that reads the batch (current_timestamp…) is not here either.
 */
const CHEAP_NUMERIC_CALLS = new Set([
  'abs', 'negative', 'positive', 'sign', 'signum', 'ceil', 'ceiling', 'floor', 'round', 'bround', 'rint',
  'sqrt', 'cbrt', 'exp', 'expm1', 'ln', 'log', 'log10', 'log2', 'log1p', 'pow', 'power', 'hypot',
  'mod', 'pmod', 'greatest', 'least', 'coalesce', 'nvl', 'ifnull', 'nullif', 'if', 'isnull', 'isnotnull',
  'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'atan2', 'sinh', 'cosh', 'tanh', 'degrees', 'radians', 'pi', 'e',
]);

function foldable(e: Expr): boolean {
  switch (e.kind) {
    // A decimal (a literal or a cast) is left as written: its type (precision and scale) decides
    // the type of the arithmetic above it, and a folded literal has only a value. A string or
    // binary literal is left too: what is done with it costs in proportion to its size.
    case 'literal':
      return e.type !== 'decimal' && e.type !== 'string' && e.type !== 'binary';
    case 'column':
    case 'field':
      return false;
    case 'cast':
      return e.to !== 'decimal' && foldable(e.arg);
    case 'unary':
    case 'isNull':
      return foldable(e.arg);
    case 'binary':
      return foldable(e.left) && foldable(e.right);
    case 'in':
      return foldable(e.arg) && e.list.every(foldable);
    case 'between':
      return foldable(e.arg) && foldable(e.low) && foldable(e.high);
    case 'like':
      return foldable(e.arg) && foldable(e.pattern);
    case 'case':
      return (e.operand === undefined || foldable(e.operand)) && e.branches.every((b) => foldable(b.when) && foldable(b.then)) && (e.otherwise === undefined || foldable(e.otherwise));
    case 'call': {
      return CHEAP_NUMERIC_CALLS.has(e.name.toLowerCase()) && e.args.every(foldable);
    }
    // A lambda's value depends on the elements its function binds: never a constant on its own.
    case 'lambda':
    case 'lambdaVariable':
      return false;
  }
}

/** The expression with every foldable numeric or boolean subexpression replaced by its value. */
function foldExpr(e: Expr): Expr {
  if (e.kind === 'literal' || e.kind === 'column' || e.kind === 'lambdaVariable') return e;
  if (foldable(e)) {
    try {
      const c = compileExpression(e, []);
      if (c.type === 'long' || c.type === 'double' || c.type === 'boolean') {
        const value = c.eval({}, { batchTimestampMs: 0 });
        if (value === null || typeof value === 'number' || typeof value === 'boolean') {
          return value === null ? { kind: 'literal', value: null, type: 'null', pos: e.pos } : { kind: 'literal', value, type: c.type, pos: e.pos };
        }
      }
    } catch {
      // A type error or a value error stays where it was, to be reported as before.
    }
  }
  switch (e.kind) {
    case 'field':
      return { ...e, arg: foldExpr(e.arg) };
    case 'unary':
      return { ...e, arg: foldExpr(e.arg) };
    case 'isNull':
      return { ...e, arg: foldExpr(e.arg) };
    case 'cast':
      return { ...e, arg: foldExpr(e.arg) };
    case 'binary':
      return simplifyLogic({ ...e, left: foldExpr(e.left), right: foldExpr(e.right) });
    case 'in':
      return { ...e, arg: foldExpr(e.arg), list: e.list.map(foldExpr) };
    case 'between':
      return { ...e, arg: foldExpr(e.arg), low: foldExpr(e.low), high: foldExpr(e.high) };
    case 'like':
      return { ...e, arg: foldExpr(e.arg) };
    case 'case':
      return {
        ...e,
        operand: e.operand && foldExpr(e.operand),
        branches: e.branches.map((b) => ({ when: foldExpr(b.when), then: foldExpr(b.then) })),
        otherwise: e.otherwise && foldExpr(e.otherwise),
      };
    case 'call':
      // window() keeps its literal durations as written (the planner reads them as strings).
      return e.name.toLowerCase() === 'window' ? e : { ...e, args: e.args.map(foldExpr) };
    case 'lambda':
      return { ...e, body: foldExpr(e.body) };
  }
}

/**
 * Spark's BooleanSimplification for a literal operand, exact in three-valued logic:
 * x AND true = x, x AND false = false, x OR false = x, x OR true = true (NULL included).
 */
function simplifyLogic(e: Extract<Expr, { kind: 'binary' }>): Expr {
  if (e.op !== 'AND' && e.op !== 'OR') return e;
  const isLit = (x: Expr, v: boolean) => x.kind === 'literal' && x.value === v;
  const absorbing = e.op === 'AND' ? false : true;
  if (isLit(e.left, absorbing) || isLit(e.right, absorbing)) return { kind: 'literal', value: absorbing, type: 'boolean', pos: e.pos };
  if (isLit(e.left, !absorbing)) return e.right;
  if (isLit(e.right, !absorbing)) return e.left;
  return e;
}

function foldConstants(plan: LogicalPlan, applied: OptimizerRuleApplication[]): LogicalPlan {
  const note = (before: Expr, after: Expr) => {
    const a = exprToString(before), b = exprToString(after);
    if (a !== b) applied.push({ rule: 'ConstantFolding', detail: `${a} → ${b}` });
  };
  switch (plan.kind) {
    case 'StreamingRelation':
    case 'StaticRelation':
      return plan;
    case 'Filter': {
      const child = foldConstants(plan.child, applied);
      const condition = foldExpr(plan.condition);
      note(plan.condition, condition);
      if (condition.kind === 'literal' && condition.value === true) {
        applied.push({ rule: 'PruneFilters', detail: `removed Filter ${exprToString(plan.condition)} (always true)` });
        return child;
      }
      return { ...plan, condition, child };
    }
    case 'Project': {
      const list: NamedExpr[] = plan.list.map((n) => {
        const expr = foldExpr(n.expr);
        note(n.expr, expr);
        return { ...n, expr };
      });
      return { ...plan, list, child: foldConstants(plan.child, applied) };
    }
    case 'Join':
      return { ...plan, left: foldConstants(plan.left, applied), right: foldConstants(plan.right, applied) };
    case 'Union':
      return { ...plan, branches: plan.branches.map((b) => foldConstants(b, applied)) };
    case 'Aggregate':
    case 'Deduplicate':
    case 'Generate':
    case 'Sort':
    case 'Limit':
      return { ...plan, child: foldConstants(plan.child, applied) };
  }
}

// ---------------------------------------------------------------- PushDownPredicates

function conjuncts(e: Expr): Expr[] {
  return e.kind === 'binary' && e.op === 'AND' ? [...conjuncts(e.left), ...conjuncts(e.right)] : [e];
}

function and(es: Expr[]): Expr {
  return es.reduce((l, r) => ({ kind: 'binary', op: 'AND', left: l, right: r }));
}

function streamRelationOf(plan: LogicalPlan): StreamingRelation | undefined {
  if (plan.kind === 'StreamingRelation') return plan;
  if (plan.kind === 'StaticRelation') return undefined;
  if (plan.kind === 'Join') return streamRelationOf(plan.left) ?? streamRelationOf(plan.right);
  // Several relations: nothing is pushed across a union as one relation.
  if (plan.kind === 'Union') return undefined;
  return streamRelationOf(plan.child);
}

/** Whether every column `e` reads is a column of `schema` (as the compiler resolves names). */
function readsOnly(e: Expr, schema: Schema): boolean {
  for (const c of referencedColumns(e)) if (!resolveColumn(schema, c)) return false;
  return true;
}

/** The stream side of a stream-static join, and a setter that rebuilds the join around a new one. */
function streamSide(j: Node<'Join'>): { side: LogicalPlan; with: (p: LogicalPlan) => Node<'Join'> } {
  return j.left.kind === 'StaticRelation' ? { side: j.right, with: (p) => ({ ...j, right: p }) } : { side: j.left, with: (p) => ({ ...j, left: p }) };
}

function withFilter(conds: Expr[], child: LogicalPlan): LogicalPlan {
  if (conds.length === 0) return child;
  if (child.kind === 'Filter') return { ...child, condition: and([child.condition, ...conds]) };
  return { kind: 'Filter', condition: and(conds), child };
}

function pushDownPredicates(plan: LogicalPlan, applied: OptimizerRuleApplication[]): LogicalPlan {
  switch (plan.kind) {
    case 'StreamingRelation':
    case 'StaticRelation':
      return plan;
    case 'Join':
      return { ...plan, left: pushDownPredicates(plan.left, applied), right: pushDownPredicates(plan.right, applied) };
    case 'Union':
      return { ...plan, branches: plan.branches.map((b) => pushDownPredicates(b, applied)) };
    case 'Filter': {
      const child = plan.child;
      if (child.kind === 'Filter') {
        applied.push({ rule: 'CombineFilters', detail: `${exprToString(plan.condition)} AND ${exprToString(child.condition)}` });
        return pushDownPredicates({ ...child, condition: and([child.condition, plan.condition]) }, applied);
      }
      if (child.kind === 'Join') {
        const { side, with: rebuild } = streamSide(child);
        const rel = streamRelationOf(side);
        // A static column named like a stream column is only ever a same-named join key, whose
        // joined value is the stream's: a name the stream has means the stream's column.
        const [down, stay] = partition(conjuncts(plan.condition), (c) => rel !== undefined && readsOnly(c, rel.schema));
        if (down.length === 0) return { ...plan, child: pushDownPredicates(child, applied) };
        applied.push({ rule: 'PushDownPredicates', detail: `${down.map(exprToString).join(' AND ')} moved below Join ${child.joinType} (stream side)` });
        const join = pushDownPredicates(rebuild(withFilter(down, side)), applied);
        return stay.length ? { ...plan, condition: and(stay), child: join } : join;
      }
      if (child.kind === 'Project') {
        // Through a projection of plain columns (renames substituted), as Spark's PushPredicateThroughNonJoin.
        const byName = new Map(child.list.map((n) => [n.name.toLowerCase(), n.expr]));
        const refs = [...referencedColumns(plan.condition)];
        if (refs.every((r) => byName.get(r.toLowerCase())?.kind === 'column')) {
          const condition = substitute(plan.condition, (name) => byName.get(name.toLowerCase())!);
          applied.push({ rule: 'PushDownPredicates', detail: `${exprToString(plan.condition)} moved below Project` });
          return { ...child, child: pushDownPredicates({ kind: 'Filter', condition, child: child.child }, applied) };
        }
      }
      return { ...plan, child: pushDownPredicates(child, applied) };
    }
    case 'Project':
    case 'Aggregate':
    case 'Deduplicate':
    case 'Generate':
    case 'Sort':
    case 'Limit':
      return { ...plan, child: pushDownPredicates(plan.child, applied) } as LogicalPlan;
  }
}

function partition<T>(xs: T[], pred: (x: T) => boolean): [T[], T[]] {
  const yes: T[] = [], no: T[] = [];
  for (const x of xs) (pred(x) ? yes : no).push(x);
  return [yes, no];
}

function substitute(e: Expr, col: (name: string) => Expr): Expr {
  switch (e.kind) {
    case 'column':
      return col(e.name);
    case 'literal':
      return e;
    case 'field':
    case 'unary':
    case 'isNull':
    case 'cast':
      return { ...e, arg: substitute(e.arg, col) };
    case 'binary':
      return { ...e, left: substitute(e.left, col), right: substitute(e.right, col) };
    case 'in':
      return { ...e, arg: substitute(e.arg, col), list: e.list.map((x) => substitute(x, col)) };
    case 'between':
      return { ...e, arg: substitute(e.arg, col), low: substitute(e.low, col), high: substitute(e.high, col) };
    case 'like':
      return { ...e, arg: substitute(e.arg, col), pattern: substitute(e.pattern, col) };
    case 'case':
      return {
        ...e,
        operand: e.operand && substitute(e.operand, col),
        branches: e.branches.map((b) => ({ when: substitute(b.when, col), then: substitute(b.then, col) })),
        otherwise: e.otherwise && substitute(e.otherwise, col),
      };
    case 'call':
      return { ...e, args: e.args.map((x) => substitute(x, col)) };
    // Only columns are substituted: a lambda's variables are never the Project's names.
    case 'lambda':
      return { ...e, body: substitute(e.body, col) };
    case 'lambdaVariable':
      return e;
  }
}

// ---------------------------------------------------------------- ColumnPruning

/** Lower-cased column names; `null` means every column (nothing above narrows the output). */
type Needed = Set<string> | null;

function refsOf(es: Expr[], into = new Set<string>()): Set<string> {
  for (const e of es) for (const c of referencedColumns(e)) into.add(c.toLowerCase());
  return into;
}

function plus(needed: Needed, es: Expr[]): Needed {
  return needed === null ? null : refsOf(es, new Set(needed));
}

function pruneColumns(plan: LogicalPlan, needed: Needed, applied: OptimizerRuleApplication[]): LogicalPlan {
  switch (plan.kind) {
    case 'StreamingRelation': {
      if (needed === null) return plan;
      const keep = plan.schema.filter((f) => needed.has(f.name.toLowerCase()) || f.name === plan.eventTime);
      if (keep.length === plan.schema.length) return plan;
      applied.push({ rule: 'ColumnPruning', detail: `source ${plan.sourceName} reads ${keep.length} of ${plan.schema.length} columns: ${keep.map((f) => f.name).join(', ')}` });
      return { ...plan, schema: keep, requiredColumns: keep.map((f) => f.name) };
    }
    case 'StaticRelation':
      return plan;
    case 'Union':
      // Branches line up by position, so each keeps every column it outputs.
      return { ...plan, branches: plan.branches.map((b) => pruneColumns(b, null, applied)) };
    case 'Filter':
      return { ...plan, child: pruneColumns(plan.child, plus(needed, [plan.condition]), applied) };
    case 'Project':
      return { ...plan, child: pruneColumns(plan.child, refsOf(plan.list.map((n) => n.expr)), applied) };
    case 'Aggregate':
      return { ...plan, child: pruneColumns(plan.child, refsOf([...plan.groupBy, ...plan.aggregates.map((a) => a.expr)]), applied) };
    case 'Deduplicate':
      return { ...plan, child: pruneColumns(plan.child, needed === null ? null : new Set([...needed, ...plan.keys.map((k) => k.toLowerCase())]), applied) };
    case 'Sort':
      return { ...plan, child: pruneColumns(plan.child, plus(needed, plan.order.map((o) => o.expr)), applied) };
    case 'Limit':
      return { ...plan, child: pruneColumns(plan.child, needed, applied) };
    case 'Generate': {
      // The child's columns pass through beside the generated ones: those read above, and the generator's.
      const generated = new Set(plan.output.map((o) => o.toLowerCase()));
      const above = needed === null ? null : new Set([...needed].filter((c) => !generated.has(c)));
      const child = pruneColumns(plan.child, plus(above, [plan.generator]), applied);
      if (above === null) return { ...plan, child };
      applied.push({ rule: 'ColumnPruning', detail: `Generate ${exprToString(plan.generator)} copies ${above.size ? [...above].join(', ') : 'no input column'} into each row` });
      return { ...plan, child, carried: [...above] };
    }
    case 'Join': {
      const stat = plan.left.kind === 'StaticRelation' ? plan.left : plan.right.kind === 'StaticRelation' ? plan.right : undefined;
      const { side, with: rebuild } = streamSide(plan);
      const rel = streamRelationOf(side);
      if (!stat || !rel || needed === null) return rebuild(pruneColumns(side, null, applied));
      const staticColumns = stat.columns.filter((c) => needed.has(c.toLowerCase()));
      const streamColumns = rel.schema.map((f) => f.name).filter((c) => needed.has(c.toLowerCase()) || c === rel.eventTime);
      const droppedStatic = stat.columns.filter((c) => !staticColumns.includes(c));
      const droppedStream = rel.schema.length - streamColumns.length;
      if (droppedStatic.length || droppedStream) {
        applied.push({
          rule: 'ColumnPruning',
          detail: `Join ${plan.joinType} emits ${[...streamColumns, ...staticColumns].join(', ')}` + (droppedStatic.length ? ` (static ${droppedStatic.join(', ')} not read)` : ''),
        });
      }
      const belowJoin = new Set([...needed, ...stat.keys.map((k) => k.stream.toLowerCase())]);
      const prunedStat: Node<'StaticRelation'> = { ...stat, columns: staticColumns };
      const j: Node<'Join'> = { ...rebuild(pruneColumns(side, belowJoin, applied)), streamColumns };
      return j.left.kind === 'StaticRelation' ? { ...j, left: prunedStat } : { ...j, right: prunedStat };
    }
  }
}

// ---------------------------------------------------------------- PushedFilters

/**
 * The condition a source may apply while it reads (Spark's PushedFilters; its JSON reader's
 * filter pushdown): that of a Filter right above the plan's only StreamingRelation, when it
 * calls no function (so it is deterministic and reads nothing of the batch, such as
 * current_timestamp). A line the Filter would drop is then never kept in the batch, which is
 * what a batch's memory (and so its GC time) is made of. The Filter stays in the plan: the
 * source only skips rows whose condition is not TRUE, and keeps a row whose condition fails to
 * evaluate, for the Filter to divert as a bad record. With two reads of the stream (a self-union)
 * nothing is pushed: one branch's condition would drop the other's rows.
 */
export function scanFilterOf(plan: LogicalPlan): Expr | undefined {
  let relations = 0;
  let condition: Expr | undefined;
  const walk = (p: LogicalPlan): void => {
    if (p.kind === 'StreamingRelation') relations++;
    if (p.kind === 'Filter' && p.child.kind === 'StreamingRelation' && !callsAFunction(p.condition)) condition = p.condition;
    for (const c of children(p)) walk(c);
  };
  walk(plan);
  return relations === 1 ? condition : undefined;
}

function callsAFunction(e: Expr): boolean {
  switch (e.kind) {
    case 'call':
      return true;
    case 'literal':
    case 'column':
    case 'lambdaVariable':
      return false;
    case 'lambda':
      return callsAFunction(e.body);
    case 'field':
    case 'unary':
    case 'isNull':
    case 'cast':
      return callsAFunction(e.arg);
    case 'binary':
      return callsAFunction(e.left) || callsAFunction(e.right);
    case 'in':
      return callsAFunction(e.arg) || e.list.some(callsAFunction);
    case 'between':
      return callsAFunction(e.arg) || callsAFunction(e.low) || callsAFunction(e.high);
    case 'like':
      return callsAFunction(e.arg) || callsAFunction(e.pattern);
    case 'case':
      return (e.operand !== undefined && callsAFunction(e.operand)) || e.branches.some((b) => callsAFunction(b.when) || callsAFunction(b.then)) || (e.otherwise !== undefined && callsAFunction(e.otherwise));
  }
}
