/**
 * The plan drawn as Spark's SQL tab draws a query's physical plan: one box per operator, the
 * sources on top, rows flowing down each edge to the sink at the bottom; a join's inputs labelled
 * left and right, a union's branches side by side; stateful operators set apart (a thick border,
 * the word "stateful") and explained in the legend. With a batch's progress, each stateful box
 * carries its state figures, each source its input rows and the sink its output rows
 * (plan-graph-figures.ts). Layout: plan-graph-layout.ts.
 *
 * The drawing is one image to assistive technology, named by a summary of the plan; the list
 * under it (visually hidden) reads every operator in full with its figures, as the boxes cut
 * long arguments (each box's tooltip has the whole text).
 */
import { useId } from 'react';
import type { ExplainOperator } from '@/lib/server/presenters/job-draft-presenter';
import { planFigures, type BatchFigures } from './plan-graph-figures';
import { layoutPlan, planSummary, planTree, truncate, type PlanNode } from './plan-graph-layout';

const BOX_WIDTH = 248;
const LINE = 16;
const PAD = 8;
/** Characters of 12 px monospace that fit in a box's width less its padding. */
const CHARS = 31;

/** The smallest the drawing is scaled to fit its panel: 12 px text stays above 8 px. */
const MIN_SCALE = 0.7;

const KIND_LABEL: Record<PlanNode['kind'], string> = { stateful: 'stateful', stateless: '', source: 'source', sink: 'sink', other: '' };

/** A node's text in full: its operator, why it keeps state, and its figures. */
function fullText(n: PlanNode, figures: readonly string[] | undefined): string {
  return [[n.name, n.args].filter(Boolean).join(' '), n.input && `(${n.input} input)`, n.reason && `stateful: ${n.reason}`, ...(figures ?? [])].filter(Boolean).join('\n');
}

export function PlanGraph({
  operators,
  sink,
  progress,
  sourceNames = [],
}: {
  operators: readonly ExplainOperator[];
  /** The sink's type, drawn as the last node. */
  sink?: string;
  /** A batch's progress (the job page's latest), whose figures annotate the boxes. */
  progress?: BatchFigures;
  /** The job's sources in spec order (the order of the progress's sources). */
  sourceNames?: readonly string[];
}) {
  const marker = `plan-arrow-${useId().replace(/[^a-zA-Z0-9_-]/g, '')}`;
  const nodes = planTree(operators, sink);
  const figures = planFigures(nodes, progress, sourceNames);
  const layout = layoutPlan(nodes, { boxWidth: BOX_WIDTH, heightOf: (n) => 2 * PAD + LINE * (2 + (figures.get(n.id)?.length ?? 0)) });
  if (layout.nodes.length === 0) return null;
  const summary = planSummary(nodes) + (progress?.batchId !== undefined && figures.size > 0 ? ` Figures of batch ${progress.batchId}.` : '');
  return (
    <div className="plan-graph">
      {/* Focusable and named, so that a keyboard user can scroll a plan wider than its panel (axe's scrollable-region-focusable). */}
      <div className="plan-graph-scroll" tabIndex={0} role="region" aria-label="Plan graph">
        {/* Shrinks to a narrow panel (the editor's column) down to MIN_SCALE, where text is still legible; scrolls beyond. */}
        <svg role="img" aria-label={summary} width={layout.width} height={layout.height} viewBox={`0 0 ${layout.width} ${layout.height}`} style={{ maxWidth: '100%', minWidth: Math.round(layout.width * MIN_SCALE), height: 'auto' }}>
          <defs>
            <marker id={marker} viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M 0 0 L 10 5 L 0 10 z" className="plan-arrow" />
            </marker>
          </defs>
          {layout.edges.map((e) => (
            <g key={`${e.from}-${e.to}`}>
              <line className="plan-edge" x1={e.x1} y1={e.y1} x2={e.x2} y2={e.y2} markerEnd={`url(#${marker})`} />
              {e.label && (
                <text className="plan-edge-label" x={(e.x1 + e.x2) / 2} y={(e.y1 + e.y2) / 2 + 4} textAnchor="middle">
                  {e.label}
                </text>
              )}
            </g>
          ))}
          {layout.nodes.map((n) => {
            const lines = figures.get(n.id) ?? [];
            return (
              <g key={n.id} className={`plan-node ${n.kind}`} data-operator={n.name} transform={`translate(${n.x},${n.y})`}>
                <title>{fullText(n, lines)}</title>
                <rect width={n.width} height={n.height} rx={6} />
                <text x={PAD} y={PAD + 12} className="plan-node-name">
                  {n.name}
                </text>
                {KIND_LABEL[n.kind] && (
                  <text x={n.width - PAD} y={PAD + 12} textAnchor="end" className="plan-node-kind">
                    {KIND_LABEL[n.kind]}
                  </text>
                )}
                <text x={PAD} y={PAD + 12 + LINE} className="plan-node-args">
                  {truncate(n.args, CHARS)}
                </text>
                {lines.map((l, i) => (
                  <text key={i} x={PAD} y={PAD + 12 + LINE * (2 + i)} className="plan-node-figure">
                    {truncate(l, CHARS)}
                  </text>
                ))}
              </g>
            );
          })}
        </svg>
      </div>
      <div className="plan-legend small">
        <span>
          <span className="plan-swatch stateful" aria-hidden="true" /> stateful: keeps state in the checkpoint between batches
        </span>
        <span>
          <span className="plan-swatch source" aria-hidden="true" /> source
        </span>
        {sink !== undefined && (
          <span>
            <span className="plan-swatch sink" aria-hidden="true" /> sink
          </span>
        )}
        <span>
          <span className="plan-swatch" aria-hidden="true" /> stateless
        </span>
        <span>Rows flow down each arrow; hover a box for its full text.</span>
      </div>
      <ul className="visually-hidden" aria-label="Plan operators">
        {layout.nodes.map((n) => (
          <li key={n.id}>{fullText(n, figures.get(n.id)).replaceAll('\n', '; ')}</li>
        ))}
      </ul>
    </div>
  );
}
