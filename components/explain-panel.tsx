/**
 * The plan as the engine explains it: the output columns with their Spark types (as Spark's
 * analyzed plan heads its explain), then one line per operator, indented as the tree, stateful
 * operators flagged with why they keep state and what bounds it (a watermark, or nothing).
 */
import type { ExplainOperator } from '@/lib/server/presenters/job-draft-presenter';
import type { OptimizerRuleApplication } from '@/lib/engine/query/optimizer';
import type { SparkColumn } from '@/lib/engine/query/data-types';

/** The plan shown is the optimized one; `optimizations` says which rule moved what. */
export function ExplainPanel({ operators, optimizations, output }: { operators: ExplainOperator[] | undefined; optimizations?: OptimizerRuleApplication[]; output?: SparkColumn[] }) {
  const stateful = operators?.filter((o) => o.kind === 'stateful').length ?? 0;
  return (
    <section className="panel" aria-label="Explain">
      <h2>Explain</h2>
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
          <ul className="plain-list" aria-label="Operators">
            {operators.map((o, i) => (
              <li key={i} className="op" style={{ paddingLeft: o.depth * 16 }}>
                {o.depth > 0 ? '└ ' : ''}
                {o.operator}{' '}
                <span className={`badge ${o.kind === 'stateful' ? 'warn' : 'muted'}`}>{o.kind}</span>
                {o.reason && <div className="small muted-text" style={{ paddingLeft: 16 }}>{o.reason}</div>}
              </li>
            ))}
          </ul>
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
