/**
 * Spark's ConstantFolding (with PruneFilters and BooleanSimplification for a literal operand): a
 * subexpression of number and boolean literals, operators and constant-time numeric calls
 * becomes its value (numbers and booleans only: a folded string literal would be coerced against
 * a timestamp column where the expression it replaced was not; and only what is provably cheap,
 * see CHEAP_NUMERIC_CALLS), and `WHERE true` disappears.
 */
import { compileExpression, typeOfCompiled } from '../expression-compiler';
import { exprToString, mapExprChildren, type Expr } from '../expression';
import type { LogicalPlan, NamedExpr } from '../logical-plan';
import type { OptimizerRuleApplication } from './plan-walk';

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
    // Its value is known only once the run has evaluated it (a correlated one's, for each outer row).
    case 'scalarSubquery':
    case 'outerReference':
      return false;
  }
}

/** The expression with every foldable numeric or boolean subexpression replaced by its value. */
function foldExpr(e: Expr): Expr {
  if (e.kind === 'literal' || e.kind === 'column' || e.kind === 'lambdaVariable' || e.kind === 'scalarSubquery' || e.kind === 'outerReference') return e;
  if (foldable(e)) {
    try {
      const c = compileExpression(e, []);
      if (c.type === 'long' || c.type === 'double' || c.type === 'boolean') {
        const value = c.eval({}, { batchTimestampMs: 0 });
        if (value === null || typeof value === 'number' || typeof value === 'boolean') {
          // A NULL keeps its type (Spark's Literal(null, LongType)): an untyped one would change
          // the type of what reads it (array(CAST(NULL AS BIGINT)) is an array of BIGINT).
          const dataType = typeOfCompiled(c);
          return { kind: 'literal', value, type: c.type, ...(c.integral ? { integral: c.integral } : {}), ...(c.float32 ? { float32: true as const } : {}), ...(c.ntz ? { ntz: true as const } : {}), pos: e.pos, dataType };
        }
      }
    } catch {
      // A type error or a value error stays where it was, to be reported as before.
    }
  }
  // window() keeps its literal durations as written (the planner reads them as strings).
  if (e.kind === 'call' && e.name.toLowerCase() === 'window') return e;
  const folded = mapExprChildren(e, foldExpr);
  return folded.kind === 'binary' ? simplifyLogic(folded) : folded;
}

/**
 * Spark's BooleanSimplification for a literal operand, exact in three-valued logic:
 * x AND true = x, x AND false = false, x OR false = x, x OR true = true (NULL included).
 */
function simplifyLogic(e: Extract<Expr, { kind: 'binary' }>): Expr {
  if (e.op !== 'AND' && e.op !== 'OR') return e;
  const isLit = (x: Expr, v: boolean) => x.kind === 'literal' && x.value === v;
  const absorbing = e.op === 'AND' ? false : true;
  if (isLit(e.left, absorbing) || isLit(e.right, absorbing)) return { kind: 'literal', value: absorbing, type: 'boolean', pos: e.pos, dataType: { type: 'boolean' } };
  if (isLit(e.left, !absorbing)) return e.right;
  if (isLit(e.right, !absorbing)) return e.left;
  return e;
}

export function foldConstants(plan: LogicalPlan, applied: OptimizerRuleApplication[]): LogicalPlan {
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
    case 'Expand':
    case 'Generate':
    case 'Window':
    case 'Sort':
    case 'Limit':
    case 'Offset':
      return { ...plan, child: foldConstants(plan.child, applied) };
  }
}
