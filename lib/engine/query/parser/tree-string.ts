/**
 * Catalyst's `treeString` for Weir's unresolved plan: one line per node, children indented
 * under `+- ` and `:- `, unresolved names as `'a`, so that a test or an explain reads like
 * Spark's own (`'Project ['a, 'count(1) AS n]`).
 * Part of the Spark SQL front end (see unresolved-plan.ts).
 */
import { expressionSql } from './expression-sql';
import type { Expression, LogicalPlan } from './unresolved-plan';

const e = (x: Expression) => expressionSql(x, { catalyst: true });
const list = (xs: readonly Expression[]) => `[${xs.map(e).join(', ')}]`;

function header(p: LogicalPlan): string {
  switch (p.kind) {
    case 'UnresolvedRelation': return `'UnresolvedRelation [${p.multipartIdentifier.join(', ')}]`;
    case 'OneRowRelation': return 'OneRowRelation';
    case 'SubqueryAlias': return `'SubqueryAlias ${p.alias}`;
    case 'UnresolvedSubqueryColumnAliases': return `'UnresolvedSubqueryColumnAliases [${p.outputColumnNames.join(', ')}]`;
    case 'Project': return `'Project ${list(p.projectList)}`;
    case 'Filter': return `'Filter ${e(p.condition)}`;
    case 'UnresolvedHaving': return `'UnresolvedHaving ${e(p.havingCondition)}`;
    case 'Aggregate': return `'Aggregate ${list(p.groupingExpressions)}, ${list(p.aggregateExpressions)}`;
    case 'Join': {
      const how = p.usingColumns ? `UsingJoin(${p.joinType}, [${p.usingColumns.join(', ')}])` : p.natural ? `NaturalJoin(${p.joinType})` : p.joinType;
      return `'Join ${how}${p.condition ? `, ${e(p.condition)}` : ''}`;
    }
    case 'Union': return "'Union";
    case 'Intersect': return `'Intersect${p.isAll ? ' All' : ''}`;
    case 'Except': return `'Except${p.isAll ? ' All' : ''}`;
    case 'Distinct': return "'Distinct";
    case 'UnresolvedWith': return `'UnresolvedWith [${p.cteRelations.map((c) => c.alias).join(', ')}]`;
    case 'Generate':
      return `'Generate ${e(p.generator)}, ${p.outer ? 'true' : 'false'}, ${p.qualifier ?? ''}, [${p.generatorOutput.map((n) => `'${n}`).join(', ')}]`;
    case 'Sort': return `'Sort [${p.order.map(e).join(', ')}], ${p.global}`;
    case 'Limit': return `'Limit ${e(p.limitExpr)}`;
    case 'Offset': return `'Offset ${e(p.offsetExpr)}`;
    case 'Unpivot':
      return `'Unpivot [${p.values.map((v, i) => `${list(v)}${p.aliases[i] === undefined ? '' : ` AS ${p.aliases[i]}`}`).join(', ')}], ${p.variableColumnName}, [${p.valueColumnNames.join(', ')}]`;
    case 'Pivot': return `'Pivot ${e(p.pivotColumn)}, ${list(p.pivotValues)}, ${list(p.aggregates)}`;
    case 'RepartitionByExpression': return `'RepartitionByExpression ${list(p.partitionExpressions)}`;
  }
}

function children(p: LogicalPlan): LogicalPlan[] {
  if (p.kind === 'UnresolvedRelation' || p.kind === 'OneRowRelation') return [];
  if (p.kind === 'Join' || p.kind === 'Intersect' || p.kind === 'Except') return [p.left, p.right];
  if (p.kind === 'Union') return [...p.children];
  if (p.kind === 'UnresolvedWith') return [...p.cteRelations, p.child];
  return [p.child];
}

/** The plan as Catalyst prints it, one node a line. */
export function treeString(plan: LogicalPlan): string {
  const lines: string[] = [];
  const walk = (p: LogicalPlan, prefix: string, last: boolean[]) => {
    const indent = last.slice(0, -1).map((l) => (l ? '   ' : ':  ')).join('');
    const branch = last.length === 0 ? '' : last[last.length - 1] ? '+- ' : ':- ';
    lines.push(`${prefix}${indent}${branch}${header(p)}`);
    const kids = children(p);
    kids.forEach((k, i) => walk(k, prefix, [...last, i === kids.length - 1]));
  };
  walk(plan, '', []);
  return lines.join('\n');
}
