/**
 * The exactly-once contract (the lesson's three signatures): a replayable source, a checkpointed
 * engine whose checkpoint survives what you are protecting against, and an idempotent or
 * transactional sink. Computed at validation and stamped on every progress record.
 *
 * - Source not replayable: an uncommitted batch cannot be read again after a crash: at-most-once.
 * - Sink at-least-once: a re-run batch is written again: at-least-once.
 * - Otherwise exactly-once. If the checkpoint lives on local disk, the guarantee holds across
 *   process crashes and restarts on this machine but not the loss of the machine
 *   (`survivesMachineLoss: false`), and the audit says so.
 */
import type { Guarantee } from './types';
import type { SinkSignature } from './sinks/sink';

export interface ContractInput {
  source: { replayable: boolean; reason: string };
  checkpoint: { outlivesMachine: boolean; description: string };
  sink: { signature: SinkSignature; reason: string };
}

/**
 * The source signature of a query over several sources: replayable only when every source is
 * (one that is not loses its part of an uncommitted batch), and the reason names the one that is
 * not. One source: its own signature.
 */
export function sourcesContract(sources: readonly { name: string; replayable: boolean; reason: string }[]): ContractInput['source'] {
  if (sources.length === 1) return { replayable: sources[0].replayable, reason: sources[0].reason };
  const not = sources.filter((s) => !s.replayable);
  if (not.length) return { replayable: false, reason: not.map((s) => `source "${s.name}" is not replayable: ${s.reason}`).join(' ') };
  return { replayable: true, reason: `Every source is replayable: ${sources.map((s) => `"${s.name}": ${s.reason}`).join(' ')}` };
}

export interface SignatureCheck {
  ok: boolean;
  label: string;
  reason: string;
}

export interface ContractAudit {
  guarantee: Guarantee;
  survivesMachineLoss: boolean;
  source: SignatureCheck & { replayable: boolean };
  checkpoint: SignatureCheck & { outlivesMachine: boolean };
  sink: SignatureCheck & { signature: SinkSignature };
  /** One sentence: the guarantee and the signature that decides it. */
  summary: string;
}

export function auditContract(input: ContractInput): ContractAudit {
  const { source, checkpoint, sink } = input;
  const sinkOk = sink.signature !== 'at-least-once';
  const guarantee: Guarantee = !source.replayable ? 'at-most-once' : !sinkOk ? 'at-least-once' : 'exactly-once';
  const summary =
    guarantee === 'at-most-once'
      ? 'At-most-once: the source cannot replay an uncommitted batch, so a crash mid-batch loses its records.'
      : guarantee === 'at-least-once'
        ? 'At-least-once: the sink cannot tell a replayed batch from a new one, so a batch re-run after a crash between the sink write and the commit is written twice.'
        : checkpoint.outlivesMachine
          ? 'Exactly-once: replayable source, durable checkpoint, and a sink that recognizes replayed batches.'
          : 'Exactly-once across process crashes and restarts; the checkpoint is on local disk, so losing this machine loses it (use a shared volume or s3:// to survive that).';
  return {
    guarantee,
    survivesMachineLoss: guarantee === 'exactly-once' && checkpoint.outlivesMachine,
    source: { ok: source.replayable, replayable: source.replayable, label: source.replayable ? 'replayable' : 'not replayable', reason: source.reason },
    checkpoint: {
      ok: checkpoint.outlivesMachine,
      outlivesMachine: checkpoint.outlivesMachine,
      label: checkpoint.outlivesMachine ? 'durable' : 'local disk',
      reason: checkpoint.outlivesMachine
        ? `${checkpoint.description} outlives the machine.`
        : `${checkpoint.description} is on this machine's disk: it survives restarts, not the loss of the machine.`,
    },
    sink: { ok: sinkOk, signature: sink.signature, label: sink.signature, reason: sink.reason },
    summary,
  };
}

/** The audit as text lines for a terminal: the guarantee, then each signature with its reason. */
export function formatContract(a: ContractAudit): string[] {
  const mark = (ok: boolean) => (ok ? 'ok ' : 'NO ');
  return [
    `contract: ${a.guarantee}: ${a.summary}`,
    `  ${mark(a.source.ok)} source ${a.source.label}: ${a.source.reason}`,
    `  ${mark(a.checkpoint.ok)} checkpoint ${a.checkpoint.label}: ${a.checkpoint.reason}`,
    `  ${mark(a.sink.ok)} sink ${a.sink.label}: ${a.sink.reason}`,
  ];
}
