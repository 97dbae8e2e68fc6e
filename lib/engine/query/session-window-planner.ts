/**
 * Planning of `GROUP BY session_window(ts, gap), key…` (operators/session-window.ts for the
 * semantics): checks the call as Spark's SessionWindow and its streaming planning check it,
 * builds the SessionWindowAggregateExec over the keys and aggregates stateful-planner.ts
 * compiled, and the descriptor the restart-compatibility check stores.
 */
import { AnalysisException, unsupportedOperation } from '../errors';
import type { AggregateSpec, GroupingKey } from '../operators/aggregate';
import { SessionWindowAggregateExec, type GapKind } from '../operators/session-window';
import type { StatefulOperatorDescriptor } from '../state/state-schema-compatibility-checker';
import type { OutputMode, Schema } from '../types';
import { typeText } from './data-types';
import { exprToString, type Expr } from './expression';
import { compileExpression, expressionType } from './expression-compiler';
import type { LogicalPlan } from './logical-plan';
import { SqlValidationError } from './sql-error';

/** Spark's output column of a session window key. */
const SESSION_WINDOW_COLUMN = 'session_window';

export const isSessionWindow = (e: Expr): boolean => e.kind === 'call' && e.name.toLowerCase() === 'session_window';

/** Spark's UnsupportedOperationChecker: a session window is kept until it closes, so it has no Update output. */
export function refuseSessionWindowUpdate(): never {
  throw unsupportedOperation('Update output mode not supported for session window on streaming DataFrames/DataSets');
}

const GAP_KINDS: readonly string[] = ['string', 'day_time_interval', 'year_month_interval', 'calendar_interval', 'null'] satisfies GapKind[];

/**
 * The analysis's check of an Aggregate grouping by session_window(ts, gap), as Spark's
 * SessionWindow and its streaming planning check it (resolved-plan.ts).
 */
export function checkSessionWindow(node: Extract<LogicalPlan, { kind: 'Aggregate' }>, childSchema: Schema): void {
  const call = node.groupBy.find(isSessionWindow)!;
  if (call.kind !== 'call') throw new AnalysisException('Internal: session window key is not a call');
  const text = exprToString(call);
  const [ts, gapExpr] = call.args;
  if (call.args.length !== 2) {
    throw new SqlValidationError(`${text}: use session_window(<timestamp column>, <gap duration>), the gap a string such as '10 minutes', an interval, or an expression giving one per row`, call.pos, 'session_window');
  }
  const tsType = expressionType(ts, childSchema).type;
  if (tsType !== 'timestamp') throw new SqlValidationError(`${text}: session_window() needs a timestamp, got ${tsType}`, call.pos, 'session_window');
  const gap = expressionType(gapExpr, childSchema);
  if (!GAP_KINDS.includes(gap.type)) {
    throw new SqlValidationError(`Gap duration expression used in session window must be CalendarIntervalType, but got ${typeText(gap)}`, call.pos, 'session_window');
  }
  // Spark's planStreamingAggregationForSession: the state is kept per key beside the session.
  if (node.groupBy.length === 1) throw new AnalysisException('Global aggregation with session window in streaming query is not supported.');
}

/** The SessionWindowAggregateExec of an Aggregate the analysis has checked (checkSessionWindow). */
export function planSessionWindow(p: {
  node: Extract<LogicalPlan, { kind: 'Aggregate' }>;
  analysis: { keys: { expr: Expr; session?: true }[]; watermarkKeyIndex?: number };
  childSchema: Schema;
  keys: GroupingKey[];
  aggregates: AggregateSpec[];
  operatorId: number;
  outputMode: OutputMode;
  numPartitions?: number;
}): { exec: SessionWindowAggregateExec; descriptor: StatefulOperatorDescriptor } {
  const sessionIndex = p.analysis.keys.findIndex((k) => k.session);
  const call = p.analysis.keys[sessionIndex].expr as Extract<Expr, { kind: 'call' }>;
  const [ts, gapExpr] = call.args;
  const gap = compileExpression(gapExpr, p.childSchema);
  if (p.outputMode === 'update') refuseSessionWindowUpdate();
  const exec = new SessionWindowAggregateExec({
    operatorId: p.operatorId,
    keys: p.keys,
    sessionIndex,
    gap: gap.eval,
    gapKind: gap.type as GapKind,
    aggregates: p.aggregates,
    outputMode: p.outputMode,
    bounded: p.analysis.watermarkKeyIndex === sessionIndex,
    numPartitions: p.numPartitions,
  });
  const keySchema = exec.outputSchema.slice(0, p.keys.length).filter((_, i) => i !== sessionIndex);
  const descriptor: StatefulOperatorDescriptor = {
    operatorId: p.operatorId,
    operatorName: 'sessionWindowAggregate',
    parts: {
      'grouping keys': p.analysis.keys.map((k) => (k.session ? SESSION_WINDOW_COLUMN : exprToString(k.expr))).join(', '),
      aggregates: p.node.aggregates.map((a) => exprToString(a.expr).replace("('*')", '(*)')).join(', ') || '(none)',
      // The gap may change across a restart (Spark allows it): the kept sessions stay valid.
      'session event time': exprToString(ts),
    },
    keySchema,
    // Per key, its sessions: [start, end) and each row's event time and aggregate inputs.
    valueSchema: [{
      name: 'sessions', type: 'array',
      elementType: { name: 'session', type: 'struct', fields: [{ name: 'start', type: 'timestamp' }, { name: 'end', type: 'timestamp' }, { name: 'rows', type: 'array' }] },
    }],
  };
  return { exec, descriptor };
}
