/**
 * A job's SQL compiled for execution: the logical plan, its output schema, the physical
 * operators (closures) in order, and `explain` text. Everything here runs at validation as well
 * as at start, so every SQL error surfaces before a single batch runs.
 */
import type { OutputMode, Schema } from '../types';
import type { StatefulOperatorDescriptor } from '../state/state-schema-compatibility-checker';
import { analyzeStreamingPlan, type AnalyzerWarning } from './analyzer';
import { StatefulPlanner, withDeduplication } from './stateful-planner';
import type { StaticTableSpec } from '../operators/stream-static-join';
import { FilterExec } from '../operators/filter-exec';
import type { PhysicalOperator } from '../operators/physical-operator';
import { ProjectExec } from '../operators/project-exec';
import { compileExpression, resolveColumn } from './expression-compiler';
import { children, isStateful, type LogicalPlan, type StreamingRelation } from './logical-plan';
import { buildLogicalPlan } from './query-planner';
import { SqlValidationError } from './sql-error';

export interface CompiledStreamingQuery {
  plan: LogicalPlan;
  outputSchema: Schema;
  operators: PhysicalOperator[];
  stateful: boolean;
  explain: string;
  /** Analyzer warnings (unbounded state). */
  warnings: AnalyzerWarning[];
  /** What the restart-compatibility check records for each stateful operator. */
  statefulOperators: StatefulOperatorDescriptor[];
}

export interface CompileOptions {
  /** The job's output mode: the analyzer checks Spark's legality rules against it (default append). */
  outputMode?: OutputMode;
  /** The job's `dedup` option: a Deduplicate right above the source. */
  dedup?: { keys: string[]; withinWatermark?: boolean };
  /** The job's `staticTables`, joinable with the stream. */
  staticTables?: StaticTableSpec[];
}

export function compileStreamingQuery(sql: string, relation: StreamingRelation, opts: CompileOptions = {}): CompiledStreamingQuery {
  const outputMode = opts.outputMode ?? 'append';
  const plan = withDeduplication(buildLogicalPlan(sql, relation, opts.staticTables), opts.dedup);
  // Columns and types first: an unknown column or a type error is the query's own fault in every
  // output mode, and the mode's legality is only worth judging on a query that analyses.
  const operators: PhysicalOperator[] = [];
  const stateful = new StatefulPlanner(outputMode, relation);
  const outputSchema = planPhysical(plan, operators, stateful);
  const analysis = analyzeStreamingPlan(plan, outputMode);
  return {
    plan,
    outputSchema,
    operators,
    stateful: isStateful(plan) || stateful.descriptors.length > 0,
    explain: analysis.explain,
    warnings: analysis.warnings,
    statefulOperators: stateful.descriptors,
  };
}

/** Appends the operators for `plan` (children first) and returns its output schema. */
function planPhysical(plan: LogicalPlan, ops: PhysicalOperator[], stateful: StatefulPlanner): Schema {
  switch (plan.kind) {
    case 'StreamingRelation':
      return plan.schema;
    case 'Filter': {
      const schema = planPhysical(plan.child, ops, stateful);
      const c = compileExpression(plan.condition, schema);
      if (c.type !== 'boolean' && c.type !== 'null') {
        throw new SqlValidationError(`WHERE needs a boolean condition, got ${c.type}`, plan.condition.pos, 'WHERE');
      }
      ops.push(new FilterExec(c.eval, schema));
      return schema;
    }
    case 'Project': {
      const schema = planPhysical(plan.child, ops, stateful);
      const compiled = plan.list.map((n) => compileExpression(n.expr, schema));
      // A window column passed through keeps its type, so sinks render it as {start, end}.
      const passesWindow = (e: (typeof plan.list)[number]['expr']) => e.kind === 'column' && resolveColumn(schema, e.name)?.type === 'window';
      const out: Schema = plan.list.map((n, i) => ({ name: n.name, type: passesWindow(n.expr) ? 'window' : compiled[i].type === 'null' ? 'string' : compiled[i].type, nullable: true }));
      ops.push(new ProjectExec(compiled.map((c) => c.eval), out));
      return out;
    }
    // Every member listed, so that a new one is a lint error until it is handled here.
    case 'Aggregate': case 'Deduplicate': case 'Join': case 'Limit': case 'Sort': case 'StaticRelation':
    default: {
      // Aggregate, Deduplicate, Sort, Limit: stateful-planner.ts.
      // A join reads the stream side; the static side is loaded by the join operator itself.
      const input = plan.kind === 'Join' ? (plan.left.kind === 'StaticRelation' ? plan.right : plan.left) : children(plan)[0];
      const schema = planPhysical(input, ops, stateful);
      const planned = stateful.plan(plan, schema);
      ops.push(planned.op);
      return planned.schema;
    }
  }
}
