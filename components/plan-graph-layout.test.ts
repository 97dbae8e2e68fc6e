/**
 * The plan graph's layout over the engine's own explains: no two boxes overlap, each edge joins
 * an input to the operator it feeds, a join's left input drawn left of its right one, sources
 * on top and the sink at the bottom.
 */
import { describe, expect, it } from 'vitest';
import { parseExplain } from '@/lib/server/presenters/job-draft-presenter';
import { compiledOverABC } from './testing/plan-fixtures';
import { layoutPlan, planSummary, planTree, truncate, type PlacedNode, type PlanLayout } from './plan-graph-layout';

/** The engine's explain of `sql` over streams a, b, c, as the job editor and page get it. */
function explainOf(sql: string, outputMode: 'append' | 'update' | 'complete' = 'append') {
  return parseExplain(compiledOverABC(sql, outputMode).explain);
}

const THREE_WAY = 'SELECT a.id FROM a JOIN b ON a.id = b.id AND b.ts BETWEEN a.ts AND a.ts + INTERVAL 1 MINUTE JOIN c ON a.id = c.id AND c.ts BETWEEN a.ts AND a.ts + INTERVAL 1 MINUTE';
const JOIN_THEN_AGGREGATE = "SELECT window(a.ts, '1 minute') AS w, count(*) AS n FROM a JOIN b ON a.id = b.id AND b.ts BETWEEN a.ts AND a.ts + INTERVAL 1 MINUTE GROUP BY window(a.ts, '1 minute')";
const UNION_OF_THREE = 'SELECT id FROM a UNION ALL SELECT id FROM b UNION ALL SELECT id FROM c';

const overlap = (p: PlacedNode, q: PlacedNode) => p.x < q.x + q.width && q.x < p.x + p.width && p.y < q.y + q.height && q.y < p.y + p.height;

/** What holds of every layout: boxes apart and inside the drawing, edges from an input's bottom to its consumer's top. */
function checkLayout(layout: PlanLayout) {
  const byId = new Map(layout.nodes.map((n) => [n.id, n]));
  for (const [i, p] of layout.nodes.entries()) {
    for (const q of layout.nodes.slice(i + 1)) expect(overlap(p, q), `${p.name} #${p.id} and ${q.name} #${q.id} overlap`).toBe(false);
    expect(p.x).toBeGreaterThanOrEqual(0);
    expect(p.x + p.width).toBeLessThanOrEqual(layout.width);
    expect(p.y + p.height).toBeLessThanOrEqual(layout.height);
  }
  // One edge per node with a parent, from it to its parent; rows flow down.
  expect(layout.edges.map((e) => [e.from, e.to]).sort()).toEqual(layout.nodes.filter((n) => n.parent !== null).map((n) => [n.id, n.parent]).sort());
  for (const e of layout.edges) {
    const from = byId.get(e.from)!, to = byId.get(e.to)!;
    expect([e.x1, e.y1]).toEqual([from.x + from.width / 2, from.y + from.height]);
    expect([e.x2, e.y2]).toEqual([to.x + to.width / 2, to.y]);
    expect(e.y1).toBeLessThan(e.y2);
  }
  // Each node listed after its inputs, the sink last.
  const at = new Map(layout.nodes.map((n, i) => [n.id, i]));
  for (const n of layout.nodes) for (const c of n.children) expect(at.get(c)!).toBeLessThan(at.get(n.id)!);
  return byId;
}

const named = (layout: PlanLayout, name: string, args = '') => layout.nodes.filter((n) => n.name === name && n.args.startsWith(args));

describe('the plan graph of a join of two streams', () => {
  const layout = layoutPlan(planTree(explainOf('SELECT a.id FROM a JOIN b ON a.id = b.id AND b.ts BETWEEN a.ts AND a.ts + INTERVAL 1 MINUTE'), 'console'));

  it('draws the left input left of the right one, each labelled, both above the join, the sink below it all', () => {
    const byId = checkLayout(layout);
    const [join] = named(layout, 'Join');
    expect(join.kind).toBe('stateful');
    const [left, right] = join.children.map((c) => byId.get(c)!);
    expect([left.input, right.input]).toEqual(['left', 'right']);
    expect(layout.edges.filter((e) => e.to === join.id).map((e) => e.label)).toEqual(['left', 'right']);
    expect(left.x + left.width).toBeLessThan(right.x);
    expect(left.y + left.height).toBeLessThan(join.y);
    // The join is centred over its two inputs.
    expect(join.x + join.width / 2).toBe((left.x + right.x + left.width) / 2);
    const [a] = named(layout, 'StreamingRelation', 'a'), [b] = named(layout, 'StreamingRelation', 'b');
    expect(a.x).toBeLessThan(b.x);
    const sink = layout.nodes.at(-1)!;
    expect([sink.kind, sink.args, sink.children]).toEqual(['sink', 'console', [0]]);
    expect(Math.max(...layout.nodes.map((n) => n.y))).toBe(sink.y);
  });

  it('summarises the graph for a screen reader', () => {
    expect(planSummary(layout.nodes)).toBe('Plan graph of 6 operators: rows flow from 2 sources a, b through 1 stateful operator (Join) into the console sink.');
  });
});

describe('the plan graph of a three-way join', () => {
  it('nests the first join as the left input of the second, every box apart', () => {
    const layout = layoutPlan(planTree(explainOf(THREE_WAY), 'console'));
    const byId = checkLayout(layout);
    const joins = named(layout, 'Join');
    expect(joins).toHaveLength(2);
    // Listed inputs first: the inner join (a with b) before the outer one.
    const [inner, outer] = joins;
    const below = (n: PlacedNode): PlacedNode[] => n.children.flatMap((c) => [byId.get(c)!, ...below(byId.get(c)!)]);
    expect(below(outer)).toContain(inner);
    expect(below(inner).filter((n) => n.kind === 'source').map((n) => n.args.split(' ')[0])).toEqual(['a', 'b']);
    const [left, right] = outer.children.map((c) => byId.get(c)!);
    expect([left.input, right.input]).toEqual(['left', 'right']);
    expect([left, ...below(left)]).toContain(inner);
    expect(below(right).filter((n) => n.kind === 'source').map((n) => n.args.split(' ')[0])).toEqual(['c']);
    // Sources left to right in the order the SQL reads them.
    const sources = layout.nodes.filter((n) => n.kind === 'source').sort((p, q) => p.x - q.x);
    expect(sources.map((n) => n.args.split(' ')[0])).toEqual(['a', 'b', 'c']);
  });
});

describe('the plan graph of a join feeding an aggregation', () => {
  it('puts the aggregation under the join, both stateful, every box apart', () => {
    const layout = layoutPlan(planTree(explainOf(JOIN_THEN_AGGREGATE), 'console'), { heightOf: (n) => (n.kind === 'stateful' ? 120 : 48) });
    const byId = checkLayout(layout);
    const [aggregate] = named(layout, 'Aggregate');
    const [join] = named(layout, 'Join');
    expect([aggregate.kind, join.kind]).toEqual(['stateful', 'stateful']);
    let n: PlacedNode = join;
    while (n.parent !== null && n.id !== aggregate.id) n = byId.get(n.parent)!;
    expect(n.id).toBe(aggregate.id);
    expect(aggregate.y).toBeGreaterThan(join.y + join.height);
  });
});

describe('the plan graph of a union of three streams', () => {
  it('draws the three branches side by side, in order, labelled, over the union', () => {
    const layout = layoutPlan(planTree(explainOf(UNION_OF_THREE), 'console'));
    const byId = checkLayout(layout);
    const [union] = named(layout, 'Union');
    const branches = union.children.map((c) => byId.get(c)!);
    expect(branches.map((b) => b.input)).toEqual(['branch 1', 'branch 2', 'branch 3']);
    expect(branches.map((b) => b.y)).toEqual([branches[0].y, branches[0].y, branches[0].y]);
    expect(branches[0].x + branches[0].width).toBeLessThan(branches[1].x);
    expect(branches[1].x + branches[1].width).toBeLessThan(branches[2].x);
    expect(union.x).toBe(branches[1].x);
    expect(planSummary(layout.nodes)).toContain('keeping no state');
  });
});

describe('planTree', () => {
  it('leaves a scalar subquery its own tree beside the query, not an input of the sink', () => {
    const nodes = planTree(parseExplain(['Project [a] [stateless]', '+- StreamingRelation s [source]', 'Subquery scalar-subquery#0 [batch: run before the batch]', '+- StaticRelation t [x] (inline table) [static table, cached: read once per run]'].join('\n')), 'console');
    expect(nodes.map((n) => [n.name, n.parent])).toEqual([['Project', 4], ['StreamingRelation', 0], ['Subquery', null], ['StaticRelation', 2], ['Sink', null]]);
    const layout = layoutPlan(nodes);
    checkLayout(layout);
    // The query first (left), the subquery beside it.
    expect(layout.nodes.map((n) => n.name)).toEqual(['StreamingRelation', 'Project', 'Sink', 'StaticRelation', 'Subquery']);
  });

  it('draws nothing for no plan', () => {
    expect(layoutPlan(planTree([], 'console'))).toEqual({ nodes: [], edges: [], width: 0, height: 0 });
  });
});

describe('truncate', () => {
  it('keeps a short text and cuts a long one to its length with an ellipsis', () => {
    expect(truncate('Project [a]', 20)).toBe('Project [a]');
    expect(truncate('Project [a, b, c, d]', 10)).toBe('Project […');
    expect(truncate('Project [a, b, c, d]', 10)).toHaveLength(10);
  });
});
