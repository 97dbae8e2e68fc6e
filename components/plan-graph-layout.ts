/**
 * The plan as a graph, laid out as Spark's SQL tab draws a physical plan: the sources on top,
 * data flowing down through each operator to the sink at the bottom, one box per operator.
 * A layered layout, no graph library: a node's layer is its depth in the plan tree (the sink's
 * layer is the lowest), each leaf takes the next column from left to right, and each parent is
 * centred over its first and last child. The subtrees of two nodes of a layer hold disjoint runs
 * of columns, so boxes of a layer never overlap; a join's left input is drawn left of its right
 * one, a union's branches side by side in their order.
 */
import type { ExplainOperator } from '@/lib/server/presenters/job-draft-presenter';

type PlanNodeKind = ExplainOperator['kind'] | 'sink';

export interface PlanNode {
  /** The operator's index in the explain; the sink's is the number of operators. */
  id: number;
  /** The operator's name (`Join`), the explain line's first word. */
  name: string;
  /** What follows the name (`Inner ((i.id = c.id))`). */
  args: string;
  kind: PlanNodeKind;
  /** Why it keeps state (stateful operators). */
  reason: string | null;
  /** The node its rows flow into; null for a root (the sink, or a scalar subquery's plan). */
  parent: number | null;
  /** Its inputs, in the explain's order (a join's left first). */
  children: number[];
  /** Which input of its parent it is: a join's `left` or `right`, a union's `branch 2`. */
  input?: string;
}

/** A node with its box: x and y of the top-left corner. */
export interface PlacedNode extends PlanNode {
  layer: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** An edge from an input's box (bottom centre) to the box its rows flow into (top centre). */
interface PlanEdge {
  from: number;
  to: number;
  label?: string;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

export interface PlanLayout {
  /** In the order rows flow: each node after its inputs (post-order), the sink last. */
  nodes: PlacedNode[];
  edges: PlanEdge[];
  width: number;
  height: number;
}

export interface LayoutOptions {
  boxWidth: number;
  /** Horizontal space between two boxes of a layer. */
  gapX: number;
  /** Vertical space between two layers (room for an edge's label). */
  gapY: number;
  margin: number;
  /** A box's height (its lines of text). */
  heightOf: (node: PlanNode) => number;
}

const DEFAULTS: LayoutOptions = { boxWidth: 240, gapX: 28, gapY: 40, margin: 8, heightOf: () => 48 };

/**
 * The explain's operators as a tree (each line's parent is the nearest line above it one level
 * up), with the sink (`sink`: its type, e.g. `console`) added as the node the query's root writes to. A scalar subquery's plan is a
 * root of its own, drawn beside the query: it runs before the batch and feeds a value, not rows.
 */
export function planTree(operators: readonly Pick<ExplainOperator, 'depth' | 'operator' | 'kind' | 'reason'>[], sink?: string): PlanNode[] {
  const nodes: PlanNode[] = operators.map((o, id) => {
    const text = o.operator.trim();
    const space = text.indexOf(' ');
    return { id, name: space < 0 ? text : text.slice(0, space), args: space < 0 ? '' : text.slice(space + 1), kind: o.kind, reason: o.reason, parent: null, children: [] };
  });
  operators.forEach((o, i) => {
    let p = i - 1;
    while (p >= 0 && operators[p].depth >= o.depth) p--;
    if (p < 0 || operators[p].depth !== o.depth - 1) return;
    nodes[i].parent = p;
    nodes[p].children.push(i);
  });
  for (const n of nodes) {
    const label = n.name === 'Join' && n.children.length === 2 ? (i: number) => (i === 0 ? 'left' : 'right') : n.name === 'Union' ? (i: number) => `branch ${i + 1}` : undefined;
    if (label) n.children.forEach((c, i) => (nodes[c].input = label(i)));
  }
  if (sink !== undefined && nodes.length > 0) {
    const id = nodes.length;
    nodes.push({ id, name: 'Sink', args: sink, kind: 'sink', reason: null, parent: null, children: [0] });
    nodes[0].parent = id;
  }
  return nodes;
}

/** Lays the tree out top to bottom (sources on top, roots at the bottom); see the file's header. */
export function layoutPlan(nodes: readonly PlanNode[], options: Partial<LayoutOptions> = {}): PlanLayout {
  const o = { ...DEFAULTS, ...options };
  if (nodes.length === 0) return { nodes: [], edges: [], width: 0, height: 0 };
  const order = inputsFirst(nodes);
  // Reversed, each node comes before its inputs: its layer is known before theirs.
  const layer = new Map<number, number>();
  for (const n of [...order].reverse()) layer.set(n.id, n.parent === null ? 0 : layer.get(n.parent)! + 1);
  const column = new Map<number, number>();
  let nextColumn = 0;
  for (const n of order) {
    const kids = n.children;
    column.set(n.id, kids.length === 0 ? nextColumn++ : (column.get(kids[0])! + column.get(kids[kids.length - 1])!) / 2);
  }
  const layers = Math.max(...layer.values()) + 1;
  // Each layer as tall as its tallest box; the deepest layer (the sources') on top.
  const rowHeight = Array.from({ length: layers }, () => 0);
  for (const n of nodes) rowHeight[layer.get(n.id)!] = Math.max(rowHeight[layer.get(n.id)!], o.heightOf(n));
  const rowTop = Array.from({ length: layers }, () => 0);
  let y = o.margin;
  for (let l = layers - 1; l >= 0; l--) {
    rowTop[l] = y;
    y += rowHeight[l] + o.gapY;
  }
  const slot = o.boxWidth + o.gapX;
  const placed = new Map<number, PlacedNode>();
  for (const n of order) {
    const l = layer.get(n.id)!;
    placed.set(n.id, { ...n, layer: l, x: o.margin + column.get(n.id)! * slot, y: rowTop[l], width: o.boxWidth, height: o.heightOf(n) });
  }
  const edges: PlanEdge[] = order.flatMap((n) => {
    if (n.parent === null) return [];
    const from = placed.get(n.id)!;
    const to = placed.get(n.parent)!;
    return [{ from: n.id, to: n.parent, ...(n.input ? { label: n.input } : {}), x1: from.x + from.width / 2, y1: from.y + from.height, x2: to.x + to.width / 2, y2: to.y }];
  });
  return { nodes: order.map((n) => placed.get(n.id)!), edges, width: 2 * o.margin + nextColumn * slot - o.gapX, height: y - o.gapY + o.margin };
}

/**
 * The nodes each after its inputs (post-order), the query's tree (the sink's) first, then the
 * subqueries' plans: the order rows flow in, and the order of a progress's stateOperators
 * (plan-graph-figures.ts).
 */
export function inputsFirst(nodes: readonly PlanNode[]): PlanNode[] {
  const roots = nodes.filter((n) => n.parent === null).sort((a, b) => Number(b.kind === 'sink') - Number(a.kind === 'sink') || a.id - b.id);
  const out: PlanNode[] = [];
  // Iterative: a plan can be deeper than is safe to recurse over.
  for (const root of roots) {
    const stack: { node: PlanNode; visited: boolean }[] = [{ node: root, visited: false }];
    while (stack.length) {
      const top = stack.pop()!;
      if (top.visited) {
        out.push(top.node);
        continue;
      }
      stack.push({ node: top.node, visited: true });
      for (let i = top.node.children.length - 1; i >= 0; i--) stack.push({ node: nodes[top.node.children[i]], visited: false });
    }
  }
  return out;
}

/** `text` cut to `max` characters, an ellipsis marking the cut. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** What the graph shows, in a sentence: for its accessible name. */
export function planSummary(nodes: readonly PlanNode[]): string {
  const sources = nodes.filter((n) => n.kind === 'source').map((n) => n.args.split(' ')[0]);
  const stateful = nodes.filter((n) => n.kind === 'stateful').map((n) => n.name);
  const sink = nodes.find((n) => n.kind === 'sink');
  const operators = nodes.length - (sink ? 1 : 0);
  return (
    `Plan graph of ${operators} operator${operators === 1 ? '' : 's'}: rows flow from ${sources.length === 1 ? 'the source' : `${sources.length} sources`} ${sources.join(', ')}` +
    (stateful.length ? ` through ${stateful.length} stateful operator${stateful.length === 1 ? '' : 's'} (${stateful.join(', ')})` : ', keeping no state') +
    (sink ? ` into the ${sink.args} sink` : '') +
    '.'
  );
}
