/**
 * The plan as the engine explains it: the output columns with their Spark types (as Spark's
 * analyzed plan heads its explain), then one line per operator, indented as the tree, stateful
 * operators flagged with why they keep state and what bounds it (a watermark, or nothing).
 */
import type { ExplainOperator } from '@/lib/server/presenters/job-draft-presenter';
import type { OptimizerRuleApplication } from '@/lib/engine/query/optimizer';
import type { SparkColumn } from '@/lib/engine/query/data-types';

/**
 * Which input of a join each operator is ('left', 'right'; undefined: not a join's child), as the
 * join's reason names its sides: a join's children are the next operators one level deeper, left first.
 */
export function joinInputs(operators: readonly Pick<ExplainOperator, 'depth' | 'operator'>[]): ('left' | 'right' | undefined)[] {
  return operators.map((o, i) => {
    let parent = i - 1;
    while (parent >= 0 && operators[parent].depth >= o.depth) parent--;
    if (parent < 0 || operators[parent].depth !== o.depth - 1 || !/^Join\b/.test(operators[parent].operator)) return undefined;
    const earlierSiblings = operators.slice(parent + 1, i).filter((x) => x.depth === o.depth).length;
    return earlierSiblings === 0 ? 'left' : 'right';
  });
}

/** The plan shown is the optimized one; `optimizations` says which rule moved what. */
export function ExplainPanel({ operators, optimizations, output }: { operators: ExplainOperator[] | undefined; optimizations?: OptimizerRuleApplication[]; output?: SparkColumn[] }) {
  const stateful = operators?.filter((o) => o.kind === 'stateful').length ?? 0;
  const sides = joinInputs(operators ?? []);
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
                {sides[i] && <span className="muted-text">{sides[i]}: </span>}
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
