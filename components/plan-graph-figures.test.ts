/**
 * A batch's figures on the plan graph: each stateful box gets its own progress entry, which is
 * found by order (the progress has no operator id). The order is checked against the engine: the
 * explain's stateful operators, inputs first, are the stateful planner's operator ids in order,
 * and the query runtime lists its stateful operators (the progress's order) by ascending id.
 */
import { describe, expect, it } from 'vitest';
import { allOperators, isStatefulOperator } from '@/lib/engine/operators/physical-operator';
import { parseExplain } from '@/lib/server/presenters/job-draft-presenter';
import { planFigures, stateOperatorsByNode } from './plan-graph-figures';
import { inputsFirst, planTree } from './plan-graph-layout';
import { compiledOverABC } from './testing/plan-fixtures';

// Two joins feeding an aggregation; a union with a DISTINCT (an aggregation) in its first and third branches.
const JOINS_THEN_AGGREGATE =
  "SELECT window(a.ts, '1 minute') AS w, count(*) AS n FROM a JOIN b ON a.id = b.id AND b.ts BETWEEN a.ts AND a.ts + INTERVAL 1 MINUTE " +
  "JOIN c ON a.id = c.id AND c.ts BETWEEN a.ts AND a.ts + INTERVAL 1 MINUTE GROUP BY window(a.ts, '1 minute')";
const UNION_OF_DISTINCTS = 'SELECT DISTINCT id, ts FROM a UNION ALL SELECT id, ts FROM b UNION ALL SELECT DISTINCT id, ts FROM c';

const KIND_OF = { Join: 'symmetricHashJoin', Aggregate: 'aggregate' } as Record<string, string>;

describe('the stateful operators of the explain, inputs first', () => {
  it.each([
    ['two joins feeding an aggregation', JOINS_THEN_AGGREGATE, ['Join', 'Join', 'Aggregate']],
    ['a union with an aggregation in its first and third branches', UNION_OF_DISTINCTS, ['Aggregate', 'Aggregate']],
  ])('are the runtime\'s stateful operators in order: %s', (_, sql, names) => {
    const q = compiledOverABC(sql);
    const stateful = inputsFirst(planTree(parseExplain(q.explain), 'console')).filter((n) => n.kind === 'stateful');
    expect(stateful.map((n) => n.name)).toEqual(names);
    // The stateful planner's ids, children first: the n-th stateful box is operator n.
    expect(q.statefulOperators.map((d) => d.operatorId)).toEqual(names.map((_, i) => i));
    expect(q.statefulOperators.map((d) => d.operatorName)).toEqual(names.map((n) => KIND_OF[n]));
    // A join's box and its state are of the same join (the inner one, a with b, first).
    stateful.forEach((n, i) => n.name === 'Join' && expect(n.args).toContain(q.statefulOperators[i].parts['join keys']));
    // The runtime's (and so the progress's) order: allOperators(...).filter(isStatefulOperator).
    expect(allOperators(q.operators).filter(isStatefulOperator).map((o) => o.operatorId)).toEqual(names.map((_, i) => i));
  });
});

const JOIN_EXPLAIN = parseExplain(
  compiledOverABC(JOINS_THEN_AGGREGATE).explain,
);
const entry = (numRowsTotal: number, extra: object = {}) => ({ operatorName: 'x', numRowsTotal, numRowsUpdated: 1, numRowsRemoved: 2, memoryUsedBytes: 2048, numRowsDroppedByWatermark: 3, ...extra });

describe('planFigures', () => {
  const nodes = planTree(JOIN_EXPLAIN, 'console');
  const progress = {
    batchId: 4,
    stateOperators: [entry(10, { customMetrics: { leftBufferedRows: 6, rightBufferedRows: 4 } }), entry(20), entry(30)],
    sources: [{ numInputRows: 5 }, { numInputRows: 1 }, { numInputRows: 0 }],
    sink: { description: 'console', numOutputRows: 7 },
  };

  it('writes each stateful entry in its box, by order: the inner join, the outer join, the aggregation', () => {
    const figures = planFigures(nodes, progress, ['a', 'b', 'c']);
    const [inner, outer] = nodes.filter((n) => n.name === 'Join').sort((p, q) => q.id - p.id);
    const aggregate = nodes.find((n) => n.name === 'Aggregate')!;
    expect(figures.get(inner.id)).toEqual(['state: 10 rows', 'updated 1 · removed 2', 'memory 2.0 KiB · dropped late 3', 'left 6 · right 4 buffered']);
    expect(figures.get(outer.id)?.[0]).toBe('state: 20 rows');
    expect(figures.get(aggregate.id)?.[0]).toBe('state: 30 rows');
  });

  it("writes each source's rows by the name the plan reads it by, and the sink's", () => {
    const figures = planFigures(nodes, progress, ['A', 'b', 'c']);
    const source = (name: string) => figures.get(nodes.find((n) => n.kind === 'source' && n.args.startsWith(`${name} `))!.id);
    expect([source('a'), source('b'), source('c')]).toEqual([['5 rows in'], ['1 row in'], ['0 rows in']]);
    expect(figures.get(nodes.find((n) => n.kind === 'sink')!.id)).toEqual(['7 rows out']);
  });

  it('annotates no stateful box when the progress has another count of operators (a batch of an earlier query)', () => {
    expect(stateOperatorsByNode(nodes, [entry(1), entry(2)]).size).toBe(0);
    expect(stateOperatorsByNode(nodes, progress.stateOperators).size).toBe(3);
    expect(planFigures(nodes, undefined, ['a']).size).toBe(0);
  });
});
