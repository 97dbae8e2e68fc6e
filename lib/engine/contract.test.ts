import { describe, expect, it } from 'vitest';
import { auditContract, formatContract } from './contract';

const base = {
  source: { replayable: true, reason: 'r' },
  checkpoint: { outlivesMachine: true, description: 's3://b/p' },
  sink: { signature: 'transactional' as const, reason: 's' },
};

describe('auditContract', () => {
  it('is exactly-once with all three signatures', () => {
    const a = auditContract(base);
    expect(a.guarantee).toBe('exactly-once');
    expect(a.survivesMachineLoss).toBe(true);
  });
  it('is at-least-once with an at-least-once sink', () => {
    expect(auditContract({ ...base, sink: { signature: 'at-least-once', reason: 'x' } }).guarantee).toBe('at-least-once');
  });
  it('is at-most-once with a source that cannot replay, whatever the sink', () => {
    for (const signature of ['idempotent', 'transactional', 'at-least-once'] as const) {
      expect(auditContract({ ...base, source: { replayable: false, reason: 'push' }, sink: { signature, reason: '' } }).guarantee).toBe('at-most-once');
    }
  });
  it('keeps exactly-once on local disk but says it does not survive machine loss', () => {
    const a = auditContract({ ...base, checkpoint: { outlivesMachine: false, description: '/tmp/cp' } });
    expect(a.guarantee).toBe('exactly-once');
    expect(a.survivesMachineLoss).toBe(false);
    expect(a.checkpoint.ok).toBe(false);
    expect(a.summary).toMatch(/local disk/);
  });
  it('formats the guarantee and every signature with its reason', () => {
    const lines = formatContract(auditContract({ ...base, sink: { signature: 'at-least-once', reason: 'plain XADD' } }));
    expect(lines[0]).toMatch(/^contract: at-least-once: /);
    expect(lines).toContain('  ok  source replayable: r');
    expect(lines).toContain('  NO  sink at-least-once: plain XADD');
    expect(lines[2]).toMatch(/checkpoint durable: s3:\/\/b\/p outlives the machine/);
  });
});
