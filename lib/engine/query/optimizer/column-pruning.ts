/**
 * Spark's ColumnPruning: from the top, the columns each operator reads; the source is told which
 * it must materialize (`StreamingRelation.requiredColumns`: a JSON line with 7 fields and a query
 * that reads 3 yields rows of 3), a join carries only the stream and static columns used above it
 * (`Join.streamColumns`, `StaticRelation.columns`). The event-time column always stays: the
 * watermark reads it from every input row.
 *
 * A pruned column is not parsed, so a value of the wrong type in a column the query never reads
 * no longer makes its line a bad record (Spark's JSON and CSV readers with a pruned schema do
 * the same).
 */
import { exprToString, referencedColumns, type Expr } from '../expression';
import type { LogicalPlan } from '../logical-plan';
import { outputSchema } from '../resolved-plan';
import { streamRelationOf, streamSide, type Node, type OptimizerRuleApplication } from './plan-walk';

/** Lower-cased column names; `null` means every column (nothing above narrows the output). */
type Needed = Set<string> | null;

function refsOf(es: Expr[], into = new Set<string>()): Set<string> {
  for (const e of es) for (const c of referencedColumns(e)) into.add(c.toLowerCase());
  return into;
}

function plus(needed: Needed, es: Expr[]): Needed {
  return needed === null ? null : refsOf(es, new Set(needed));
}

export function pruneColumns(plan: LogicalPlan, needed: Needed, applied: OptimizerRuleApplication[]): LogicalPlan {
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
    case 'Offset':
      return { ...plan, child: pruneColumns(plan.child, needed, applied) };
    case 'Expand': {
      // The child's columns pass through beside the grouping columns: those read above, and the grouping expressions'.
      const own = new Set(plan.output.map((o) => o.toLowerCase()));
      const above = needed === null ? null : new Set([...needed].filter((c) => !own.has(c)));
      return { ...plan, child: pruneColumns(plan.child, plus(above, plan.groupBy), applied) };
    }
    case 'Window': {
      // The child's columns pass through beside the functions': those read above, and the specification's and arguments'.
      const own = new Set(plan.functions.map((f) => f.name.toLowerCase()));
      const above = needed === null ? null : new Set([...needed].filter((c) => !own.has(c)));
      return { ...plan, child: pruneColumns(plan.child, plus(above, [...plan.partitionSpec, ...plan.orderSpec.map((o) => o.expr), ...plan.functions.flatMap((f) => f.args)]), applied) };
    }
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
      // The stream side's output: the stream's columns, or a join's or subquery's over it.
      const sideOutput = side.kind === 'StreamingRelation' ? rel.schema : outputSchema(side);
      const streamColumns = sideOutput.map((f) => f.name).filter((c) => needed.has(c.toLowerCase()) || c === rel.eventTime);
      const droppedStatic = stat.columns.filter((c) => !staticColumns.includes(c));
      const droppedStream = sideOutput.length - streamColumns.length;
      if (droppedStatic.length || droppedStream) {
        applied.push({
          rule: 'ColumnPruning',
          detail: `Join ${plan.joinType} emits ${[...streamColumns, ...staticColumns].join(', ')}` + (droppedStatic.length ? ` (static ${droppedStatic.join(', ')} not read)` : ''),
        });
      }
      // The keys and the ON's other conjuncts read the stream's row.
      const belowJoin = plus(new Set([...needed, ...stat.keys.flatMap((k) => (k.streamExpr ? [] : [k.stream.toLowerCase()]))]), [
        ...stat.keys.flatMap((k) => (k.streamExpr ? [k.streamExpr] : [])),
        ...(plan.otherCondition ? [plan.otherCondition] : []),
      ]);
      const prunedStat: Node<'StaticRelation'> = { ...stat, columns: staticColumns };
      const j: Node<'Join'> = { ...rebuild(pruneColumns(side, belowJoin, applied)), streamColumns };
      return j.left.kind === 'StaticRelation' ? { ...j, left: prunedStat } : { ...j, right: prunedStat };
    }
  }
}
