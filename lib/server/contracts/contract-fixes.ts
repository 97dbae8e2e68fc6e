/**
 * What the contract audit tells a team to change, per job: the signatures its guarantee is
 * missing (a replayable source, a checkpoint that outlives the machine, a sink that recognizes a
 * replayed batch), each with the engine's reason, and the concrete change for each.
 *
 * The reasons come from the contract the engine computed (lib/engine/contract.ts), so any sink
 * the engine registers is covered, including ones this file has never heard of: a sink type
 * without a specific fix below gets the general one, built from its own signature reason.
 */
import { sourceSchemaOf, type ContractAudit } from '@/lib/engine';
import { rawSourcesOf } from '@/lib/engine/spec/spec-sources';

type SignatureName = 'source' | 'checkpoint' | 'sink';

export interface MissingSignature {
  signature: SignatureName;
  label: string;
  reason: string;
  fix: string;
}

type Obj = Record<string, unknown>;

/** The stored contract JSON, if it has the audit's shape (older rows or a spec that never validated may not). */
export function contractOf(v: unknown): ContractAudit | null {
  const c = v as ContractAudit | null;
  return c && typeof c.guarantee === 'string' && c.source && c.checkpoint && c.sink ? c : null;
}

/** Candidate upsert keys: the sources' columns that look like identifiers (`id`, `order_id`), each once. */
export function keyCandidates(spec: Obj): string[] {
  const schema = rawSourcesOf(spec).flatMap(({ source }) => (sourceSchemaOf(source) ?? []) as { name?: unknown }[]);
  return [...new Set(schema.map((c) => String(c.name ?? '')).filter((n) => /(^id$|_id$|^key$|_key$)/i.test(n)))];
}

/** The sink's mode as a team names it: the `mode` option when the sink has one, else its signature. */
export function sinkModeOf(spec: Obj, contract: ContractAudit | null): string {
  const mode = ((spec.sink as Obj | undefined)?.options as Obj | undefined)?.mode;
  return typeof mode === 'string' ? mode : (contract?.sink.signature ?? 'unknown');
}

/** The change that gives an at-least-once sink of this type an exactly-once signature. */
export function sinkFix(sinkType: string, spec: Obj, reason: string): string {
  const keys = keyCandidates(spec);
  const onKeys = keys.length ? `on keys ${keys.join(', ')}` : 'on the output’s unique key columns';
  switch (sinkType) {
    case 'postgres':
      return `Switch \`postgres\` to \`mode: transactional\` (rows and the batch id commit in one transaction), or use \`postgres-upsert\` ${onKeys} (update mode).`;
    case 'webhook':
      return 'Enable `receiverHonoursIdempotencyKey` only if the receiver really drops a repeated Idempotency-Key; otherwise make it do so, or write to an idempotent sink (files, postgres-upsert).';
    case 'redis-stream':
      return 'Entries carry their batchId: make every consumer drop a batchId it has already processed, or write to an idempotent or transactional sink (postgres `mode: transactional`, postgres-upsert, files).';
    case 'console':
      return 'The console is for debugging: write to files, postgres `mode: transactional` or postgres-upsert for anything that is read downstream.';
    default:
      return `\`${sinkType}\` is at-least-once (${reason.replace(/\.$/, '')}). Make its readers drop a batch id they have already seen, or write to an idempotent or transactional sink (postgres \`mode: transactional\`, postgres-upsert ${onKeys}, files).`;
  }
}

/** Every signature the guarantee is missing, with the engine's reason and the fix. */
export function missingSignatures(contract: ContractAudit | null, sinkType: string, spec: Obj): MissingSignature[] {
  if (!contract) return [];
  const out: MissingSignature[] = [];
  if (!contract.source.ok) {
    out.push({
      signature: 'source',
      label: contract.source.label,
      reason: contract.source.reason,
      fix: 'Read from a replayable source (files, postgres, redis-stream, nats-jetstream): an uncommitted batch must be readable again after a crash.',
    });
  }
  if (!contract.sink.ok) out.push({ signature: 'sink', label: contract.sink.label, reason: contract.sink.reason, fix: sinkFix(sinkType, spec, contract.sink.reason) });
  if (!contract.checkpoint.ok) {
    out.push({
      signature: 'checkpoint',
      label: contract.checkpoint.label,
      reason: contract.checkpoint.reason,
      fix: 'Put the checkpoint on a shared volume or under s3:// (WEIR_CHECKPOINT_ROOT), so that losing this machine does not lose it.',
    });
  }
  return out;
}

/**
 * The one change to make first: the source's (without it a crash loses data, whatever the sink),
 * then the sink's (a replay doubles data), then the checkpoint's; none when nothing is missing.
 */
export function primaryFix(missing: MissingSignature[]): string {
  const first = missing.find((m) => m.signature === 'source') ?? missing.find((m) => m.signature === 'sink') ?? missing[0];
  return first ? first.fix : 'Nothing to change: a replay of any batch is recognized.';
}
