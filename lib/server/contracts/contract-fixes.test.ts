/**
 * The audit's fixes and its CSV: a sink type the table has never heard of (another team's Kafka
 * sink) still gets a fix built from its own signature reason, and job names cannot turn into
 * spreadsheet formulas in the export.
 */
import { describe, expect, it } from 'vitest';
import { auditContract } from '@/lib/engine';
import { keyCandidates, missingSignatures, primaryFix, sinkFix } from './contract-fixes';
import { csvField } from './contract-audit-presenter';

const spec = { source: { schema: [{ name: 'order_id' }, { name: 'amount' }, { name: 'id' }] } };

describe('contract fixes', () => {
  it('names the change per sink, and upsert keys from the source’s id-like columns', () => {
    expect(keyCandidates(spec)).toEqual(['order_id', 'id']);
    // A job of several sources: each source's, once (a join's key is in both).
    expect(keyCandidates({ sources: [{ schema: [{ name: 'ad_id' }, { name: 'ts' }] }, { schema: [{ name: 'ad_id' }, { name: 'click_id' }] }] })).toEqual(['ad_id', 'click_id']);
    expect(sinkFix('postgres', spec, '')).toMatch(/^Switch `postgres` to `mode: transactional`.*`postgres-upsert` on keys order_id, id/);
    expect(sinkFix('webhook', spec, '')).toMatch(/`receiverHonoursIdempotencyKey` only if the receiver really drops a repeated Idempotency-Key/);
    const kafka = sinkFix('kafka', spec, 'Produce appends: a re-run batch is produced again.');
    expect(kafka).toMatch(/^`kafka` is at-least-once \(Produce appends: a re-run batch is produced again\)/);
  });

  it('lists every missing signature with the engine’s reason; the source first', () => {
    const contract = auditContract({
      source: { replayable: false, reason: 'HTTP push cannot be read again' },
      checkpoint: { outlivesMachine: false, description: 'file:///cp' },
      sink: { signature: 'at-least-once', reason: 'XADD appends' },
    });
    const missing = missingSignatures(contract, 'redis-stream', spec);
    expect(missing.map((m) => [m.signature, m.reason])).toEqual([
      ['source', 'HTTP push cannot be read again'],
      ['sink', 'XADD appends'],
      ['checkpoint', "file:///cp is on this machine's disk: it survives restarts, not the loss of the machine."],
    ]);
    expect(primaryFix(missing)).toMatch(/replayable source/);
    expect(primaryFix([])).toMatch(/Nothing to change/);
  });

  it('quotes CSV fields and defuses formulas', () => {
    expect(csvField('a "b", c')).toBe('"a ""b"", c"');
    expect(csvField('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvField(-3)).toBe('"-3"');
    expect(csvField(null)).toBe('""');
  });
});
