/**
 * The plan as the engine explains it: the output columns with their Spark types (as Spark's
 * analyzed plan heads its explain), then one line per operator, indented as the tree, stateful
 * operators flagged with why they keep state and what bounds it (a watermark, or nothing).
 */
import type { ExplainOperator } from '@/lib/server/presenters/job-draft-presenter';
import type { OptimizerRuleApplication } from '@/lib/engine/query/optimizer';
import type { SparkColumn } from '@/lib/engine/query/data-types';
import { useState } from 'react';
import { PlanGraph } from './plan-graph';
import { planTree } from './plan-graph-layout';

/**
 * Which input of a join each operator is ('left', 'right'; undefined: not a join's child), as the
 * join's reason names its sides: a join's children are the next operators one level deeper, left first.
 */
export function joinInputs(operators: readonly Pick<ExplainOperator, 'depth' | 'operator'>[]): ('left' | 'right' | undefined)[] {
  return planTree(operators.map((o) => ({ ...o, kind: 'other' as const, reason: null }))).map((n) => (n.input === 'left' || n.input === 'right' ? n.input : undefined));
}

/**
 * The plan shown is the optimized one; `optimizations` says which rule moved what. The operators
 * read as a list (the explain's tree, indented) or as a graph (plan-graph.tsx) ending in `sink`.
 */
export function ExplainPanel({ operators, optimizations, output, sink }: { operators: ExplainOperator[] | undefined; optimizations?: OptimizerRuleApplication[]; output?: SparkColumn[]; sink?: string }) {
  const [view, setView] = useState<'list' | 'graph'>('list');
  const stateful = operators?.filter((o) => o.kind === 'stateful').length ?? 0;
  const sides = joinInputs(operators ?? []);
  return (
    <section className="panel" aria-label="Explain">
      <div className="panel-heading">
        <h2>Explain</h2>
        {operators && operators.length > 0 && (
          <div className="view-toggle" role="group" aria-label="Show the plan as">
            {(['graph', 'list'] as const).map((v) => (
              <button key={v} type="button" aria-pressed={view === v} onClick={() => setView(v)}>
                {v === 'graph' ? 'Graph' : 'List'}
              </button>
            ))}
          </div>
        )}
      </div>
      {!operators || operators.length === 0 ? (
        <p className="muted-text">The plan appears once the SQL analyses.</p>
      ) : (
        <>
          {output && output.length > 0 && (
            <p className="small" data-testid="output-columns">
              Output:{' '}
              {output.map((c, i) => (
                <span key={c.name}>
                  {i > 0 && ', '}
                  <code>
                    {c.name}: {c.type}
                  </code>
                </span>
              ))}
            </p>
          )}
          <p className="small">{stateful === 0 ? 'Stateless: every batch is computed from its own rows; nothing is kept between batches.' : `${stateful} stateful operator${stateful > 1 ? 's' : ''}: state is kept in the checkpoint between batches.`}</p>
          {view === 'graph' ? (
            <PlanGraph operators={operators} sink={sink} />
          ) : (
          <ul className="plain-list" aria-label="Operators">
            {operators.map((o, i) => (
              <li key={i} className="op" style={{ paddingLeft: o.depth * 16 }}>
                {o.depth > 0 ? '└ ' : ''}
                {sides[i] && <span className="muted-text">{sides[i]}: </span>}
                {o.operator}{' '}
                <span className={`badge ${o.kind === 'stateful' ? 'warn' : 'muted'}`}>{o.kind}</span>
                {o.reason && <div className="small muted-text" style={{ paddingLeft: 16 }}>{o.reason}</div>}
              </li>
            ))}
          </ul>
          )}
          {optimizations && optimizations.length > 0 && (
            <>
              <h3 className="small">Optimizer</h3>
              <ul className="plain-list small" aria-label="Optimizer rules applied">
                {optimizations.map((o, i) => (
                  <li key={i}>
                    <strong>{o.rule}</strong>: {o.detail}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </section>
  );
}
