/**
 * The exactly-once contract audit: the three signatures the guarantee rests on (a replayable
 * source, a durable checkpoint, an idempotent or transactional sink), each with its reason, and
 * the guarantee they add up to. Shown before deploy and on the job page.
 */
import { GuaranteeBadge } from './status-badge';

export interface ContractView {
  guarantee: string;
  survivesMachineLoss?: boolean;
  source: { ok: boolean; label: string; reason: string };
  checkpoint: { ok: boolean; label: string; reason: string };
  sink: { ok: boolean; label: string; reason: string };
  summary: string;
}

function isContract(v: unknown): v is ContractView {
  const c = v as ContractView | null;
  return !!c && typeof c.guarantee === 'string' && !!c.source && !!c.checkpoint && !!c.sink;
}

export function ContractAudit({ contract }: { contract: unknown }) {
  if (!isContract(contract)) {
    return (
      <section className="panel" aria-label="Exactly-once audit">
        <h2>Exactly-once audit</h2>
        <p className="muted-text">The audit appears once the spec is valid.</p>
      </section>
    );
  }
  const rows: [string, ContractView['source']][] = [
    ['Source', contract.source],
    ['Checkpoint', contract.checkpoint],
    ['Sink', contract.sink],
  ];
  return (
    <section className="panel" aria-label="Exactly-once audit">
      <h2>
        Exactly-once audit <GuaranteeBadge guarantee={contract.guarantee} />
      </h2>
      {rows.map(([name, s]) => (
        <div className="audit-row" key={name}>
          <div>
            <strong>{name}</strong>
          </div>
          <div>
            <span className={`badge ${s.ok ? 'ok' : name === 'Checkpoint' ? 'warn' : 'bad'}`}>{s.label}</span> <span className="small">{s.reason}</span>
          </div>
        </div>
      ))}
      <p className="small">{contract.summary}</p>
    </section>
  );
}
