/**
 * A job's SQL compiled for execution: the logical plan, its output schema, the physical
 * operators (closures) in order, and `explain` text. Everything here runs at validation as well
 * as at start, so every SQL error surfaces before a single batch runs.
 */
import type { Schema } from '../types';
import { FilterExec } from '../operators/filter-exec';
import type { PhysicalOperator } from '../operators/physical-operator';
import { ProjectExec } from '../operators/project-exec';
import { compileExpression } from './expression-compiler';
import { explainPlan, isStateful, type LogicalPlan, type StreamingRelation } from './logical-plan';
import { buildLogicalPlan } from './query-planner';
import { SqlValidationError } from './sql-error';

export interface CompiledStreamingQuery {
  plan: LogicalPlan;
  outputSchema: Schema;
  operators: PhysicalOperator[];
  stateful: boolean;
  explain: string;
}

export function compileStreamingQuery(sql: string, relation: StreamingRelation): CompiledStreamingQuery {
  const plan = buildLogicalPlan(sql, relation);
  const operators: PhysicalOperator[] = [];
  const outputSchema = planPhysical(plan, operators);
  return { plan, outputSchema, operators, stateful: isStateful(plan), explain: explainPlan(plan) };
}

/** Appends the operators for `plan` (children first) and returns its output schema. */
function planPhysical(plan: LogicalPlan, ops: PhysicalOperator[]): Schema {
  switch (plan.kind) {
    case 'StreamingRelation':
      return plan.schema;
    case 'Filter': {
      const schema = planPhysical(plan.child, ops);
      const c = compileExpression(plan.condition, schema);
      if (c.type !== 'boolean' && c.type !== 'null') {
        throw new SqlValidationError(`WHERE needs a boolean condition, got ${c.type}`, plan.condition.pos, 'WHERE');
      }
      ops.push(new FilterExec(c.eval, schema));
      return schema;
    }
    case 'Project': {
      const schema = planPhysical(plan.child, ops);
      const compiled = plan.list.map((n) => compileExpression(n.expr, schema));
      const out: Schema = plan.list.map((n, i) => ({ name: n.name, type: compiled[i].type === 'null' ? 'string' : compiled[i].type, nullable: true }));
      ops.push(new ProjectExec(compiled.map((c) => c.eval), out));
      return out;
    }
    default:
      throw new SqlValidationError(`${plan.kind} is not supported yet in streaming queries`, 'pos' in plan ? plan.pos : undefined, plan.kind);
  }
}
