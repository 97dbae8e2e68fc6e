/**
 * The logical optimizer (Spark's Catalyst Optimizer, the rules a streaming query needs), between
 * analysis and physical planning. Every rule rewrites a plan into one that gives the same rows
 * on every batch; the property test (optimizer.property.test.ts) and the DuckDB differential
 * tests hold each rule to that.
 *
 * Rules, in the order they run, one per file in optimizer/ and named as Spark names them:
 * ConstantFolding (with PruneFilters), PushDownPredicates (with CombineFilters),
 * InferFiltersFromConstraints (then PushDownPredicates again, for what it inferred), ColumnPruning;
 * then PushedFilters (scanFilterOf: the condition a source may apply as it reads; read by
 * compileStreamingQuery, the plan is not rewritten). Each file says what its rule does.
 */
import type { LogicalPlan } from './logical-plan';
import { foldConstants } from './optimizer/constant-folding';
import { pushDownPredicates } from './optimizer/push-down-predicates';
import { inferFiltersFromConstraints } from './optimizer/infer-filters-from-constraints';
import { pruneColumns } from './optimizer/column-pruning';
import type { OptimizerRuleApplication } from './optimizer/plan-walk';

export type { OptimizerRuleApplication } from './optimizer/plan-walk';
export { scanFilterOf, sourceReads, watermarkConditionOf, type SourceRead } from './optimizer/pushed-filters';

export interface OptimizedPlan {
  plan: LogicalPlan;
  applied: OptimizerRuleApplication[];
}

export function optimizePlan(plan: LogicalPlan): OptimizedPlan {
  const applied: OptimizerRuleApplication[] = [];
  let p = foldConstants(plan, applied);
  p = pushDownPredicates(p, applied);
  const inferred = applied.length;
  p = inferFiltersFromConstraints(p, applied);
  if (applied.length > inferred) p = pushDownPredicates(p, applied);
  p = pruneColumns(p, null, applied);
  return { plan: p, applied };
}
