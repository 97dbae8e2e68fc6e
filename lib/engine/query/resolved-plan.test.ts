/**
 * The analysis pass (resolved-plan.ts): every expression a node holds carries the type the
 * compiler gives it over the node's input, the input plan is left as it was, and the checks that
 * moved here from the physical planner refuse what it refused.
 */
import { describe, expect, it } from 'vitest';
import type { Schema } from '../types';
import { compileExpression, typeOfCompiled } from './expression-compiler';
import { exprChildren, exprToString, type Expr } from './expression';
import { children, type LogicalPlan, type StreamingRelation } from './logical-plan';
import { buildLogicalPlan } from './query-planner';
import { outputSchema, resolvePlan } from './resolved-plan';
import { analyzeAggregate, withDeduplication } from './stateful-planner';
import { compileStreamingQuery } from './streaming-query';

const src: StreamingRelation = {
  kind: 'StreamingRelation',
  sourceName: 'src',
  schema: [
    { name: 'id', type: 'long' }, { name: 's', type: 'string' }, { name: 'ts', type: 'timestamp' },
    { name: 'xs', type: 'array', elementType: { name: 'element', type: 'long', nullable: true } },
  ],
  eventTime: 'ts',
  watermarkDelayMs: 60_000,
};

const impressions: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'impressions', schema: [{ name: 'adId', type: 'long' }, { name: 'impressionTime', type: 'timestamp' }], eventTime: 'impressionTime', watermarkDelayMs: 3_600_000 };
const clicks: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'clicks', schema: [{ name: 'clickAdId', type: 'string' }, { name: 'clickTime', type: 'timestamp' }], eventTime: 'clickTime', watermarkDelayMs: 3_600_000 };

/** `e` and every subexpression below it. */
const subtree = (e: Expr): Expr[] => [e, ...exprChildren(e).flatMap(subtree)];
const readsLambdaVariable = (e: Expr): boolean => subtree(e).some((x) => x.kind === 'lambdaVariable');

const snapshot = (p: LogicalPlan) => JSON.stringify(p, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

/** Each expression a node holds, with the columns it reads (the node's input). */
function expressions(plan: LogicalPlan): { expr: Expr; input: Schema }[] {
  const input = (p: LogicalPlan) => outputSchema(p);
  const own = ((): { expr: Expr; input: Schema }[] => {
    switch (plan.kind) {
      case 'Filter': return [{ expr: plan.condition, input: input(plan.child) }];
      case 'Project': return plan.list.map((n) => ({ expr: n.expr, input: input(plan.child) }));
      case 'Generate': return [{ expr: plan.generator.args[0], input: input(plan.child) }];
      case 'Join': return plan.condition ? [{ expr: plan.condition, input: [...input(plan.left), ...input(plan.right)] }] : [];
      case 'Aggregate': case 'Deduplicate': case 'Limit': case 'Sort': case 'StaticRelation': case 'StreamingRelation': case 'Union':
      default: return [];
    }
  })();
  return [...own, ...children(plan).flatMap(expressions)];
}

describe('resolvePlan', () => {
  it('types every expression of Filter, Project, Generate and a join as the compiler does, leaving its input as it was', () => {
    const queries: [string, StreamingRelation[]][] = [
      ['SELECT id + 1 AS n, upper(s) AS u, CAST(id AS INT) AS i, x FROM src LATERAL VIEW explode(xs) t AS x WHERE id > 0 AND s LIKE \'a%\'', [src]],
      ['SELECT * FROM (SELECT id * 2.5 AS d, named_struct(\'a\', s) AS st FROM src) WHERE d > 1', [src]],
      ['SELECT * FROM impressions JOIN clicks ON CAST(adId AS STRING) = clickAdId AND clickTime >= impressionTime AND clickTime <= impressionTime + INTERVAL 1 HOUR', [impressions, clicks]],
    ];
    let checked = 0, subexpressions = 0;
    for (const [sql, relations] of queries) {
      const plan = buildLogicalPlan(sql, relations);
      const before = snapshot(plan);
      const resolved = resolvePlan(plan).plan;
      expect(snapshot(plan)).toBe(before);
      // The builder resolves a subquery or LATERAL VIEW as the SELECT around it reads it; the outer SELECT is resolved here.
      if (plan.kind !== 'Project') throw new Error('no Project');
      expect(plan.list.every((n) => n.expr.dataType === undefined)).toBe(true);
      for (const { expr, input } of expressions(resolved)) {
        const compiled = typeOfCompiled(compileExpression(expr, input));
        expect(expr.dataType).toEqual(compiled);
        checked++;
        // Below it, each subexpression carries the type it has on its own over the same input.
        for (const sub of subtree(expr).slice(1)) {
          if (readsLambdaVariable(sub)) continue;
          const own = typeOfCompiled(compileExpression(sub, input));
          expect(sub.dataType, exprToString(sub)).toEqual(own);
          subexpressions++;
        }
      }
      expect(outputSchema(resolved)).toEqual(outputSchema(plan));
    }
    expect(checked).toBe(16);
    // 29 written, 3 implicit casts: `id + cast(1 as bigint)`, `cast(id as decimal(20,0)) * 2.5`, `d > cast(1 as decimal(…))`.
    expect(subexpressions).toBe(32);
  });

  it('types an Aggregate\'s keys and aggregates as the columns it outputs', () => {
    const resolved = resolvePlan(buildLogicalPlan("SELECT window(ts, '1 minute') AS w, s, count(*) AS n, avg(id) AS a FROM src GROUP BY window(ts, '1 minute'), s", src)).plan;
    const agg = [resolved, ...children(resolved)].find((n) => n.kind === 'Aggregate')!;
    if (agg.kind !== 'Aggregate') throw new Error('no Aggregate');
    expect(agg.groupBy.map((e) => e.dataType?.type)).toEqual(['struct', 'string']);
    expect(agg.aggregates.map((a) => a.expr.dataType?.type)).toEqual(['long', 'double']);
    // avg's argument is typed over the aggregation's input; count(*)'s star is no expression.
    expect(agg.aggregates.map((a) => (a.expr.kind === 'call' ? a.expr.args.map((x) => x.dataType?.type) : []))).toEqual([[undefined], ['long']]);
    expect(agg.groupBy[1].dataType?.type).toBe('string');
    const w = agg.groupBy[0];
    expect(w.kind === 'call' && w.args.map((x) => x.dataType?.type)).toEqual(['timestamp', 'string']);
  });

  it('is what the streaming checker reads: an aggregation\'s window and watermark come from the types it carries, not a compilation', () => {
    const resolved = resolvePlan(buildLogicalPlan("SELECT window(ts, '1 minute') AS w, count(*) AS n FROM src GROUP BY window(ts, '1 minute')", src)).plan;
    const agg = [resolved, ...children(resolved)].find((n) => n.kind === 'Aggregate')!;
    if (agg.kind !== 'Aggregate') throw new Error('no Aggregate');
    const w = agg.groupBy[0];
    if (w.kind !== 'call') throw new Error('no window()');
    const input = outputSchema(agg.child);
    const wm = { eventTime: 'ts', delayMs: 60_000 };
    expect(analyzeAggregate(agg, input, wm).watermarkDelayMs).toBe(60_000);
    // The same node with its time column's carried type altered: the checker answers by that type,
    // so it compiled nothing to find it (a compilation over the input would give the first answers).
    const retyped = (dataType: NonNullable<Expr['dataType']>) => ({ ...agg, groupBy: [{ ...w, args: [{ ...w.args[0], dataType }, ...w.args.slice(1)] }] });
    expect(analyzeAggregate(retyped({ ...w.args[0].dataType!, watermarkDelayMs: 7 }), input, wm).watermarkDelayMs).toBe(7);
    expect(() => analyzeAggregate(retyped({ type: 'string' }), input, wm)).toThrow("window() needs a timestamp, got string");
  });

  it('refuses a WHERE that is not boolean, where the condition is', () => {
    expect(() => resolvePlan(buildLogicalPlan('SELECT id FROM src\nWHERE   s', src))).toThrow(expect.objectContaining({ message: expect.stringContaining('WHERE needs a boolean condition, got string'), line: 2, column: 9 }));
  });

  it('refuses a join of two streams whose keys differ in type, and a dedup key that is no column', () => {
    expect(() => resolvePlan(buildLogicalPlan('SELECT * FROM impressions JOIN clicks ON adId = clickAdId', [impressions, clicks]))).toThrow('The join keys adId (long) and clickAdId (string) differ in type; CAST one of them');
    expect(() => resolvePlan(withDeduplication(buildLogicalPlan('SELECT id FROM src', src), { keys: ['nope'] }))).toThrow('dedup key "nope" is not a column of the source; columns: id, s, ts, xs');
  });

  it('refuses a derived event time that no Project defines, where compileStreamingQuery did', () => {
    const derived: StreamingRelation = { ...src, eventTime: 'et' };
    expect(() => resolvePlan(buildLogicalPlan('SELECT id FROM src', derived))).toThrow('source.eventTime "et" is neither a column of source.schema nor a column the SQL\'s projection defines');
    expect(() => compileStreamingQuery('SELECT id FROM src', derived)).toThrow('source.eventTime "et" is neither a column of source.schema');
  });

  it('is what compileStreamingQuery optimizes and plans: its plan carries the types', () => {
    const q = compileStreamingQuery('SELECT id + 1 AS n FROM src WHERE id > 0', src, { optimize: false });
    const project = q.plan;
    if (project.kind !== 'Project') throw new Error('no Project');
    expect(project.list[0].expr.dataType?.type).toBe('long');
    if (project.child.kind !== 'Filter') throw new Error('no Filter');
    expect(project.child.condition.dataType?.type).toBe('boolean');
  });

  it('keeps its types through the optimizer: a folded NULL keeps the type of what it replaced', () => {
    const q = compileStreamingQuery('SELECT array_max(array(CAST(NULL AS BIGINT))) AS v FROM src', src);
    expect(q.optimizations.map((o) => o.rule)).toContain('ConstantFolding');
    expect(q.outputSchema[0].type).toBe('long');
    expect(q.operators.at(-1)!.outputSchema[0].type).toBe('long');
  });
});
