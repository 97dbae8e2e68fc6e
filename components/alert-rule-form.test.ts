/**
 * The create-rule form against the server's schema: every kind the form offers is a kind the
 * server knows (and none is missing), the form's defaults make a valid rule, and a field the user
 * garbled reaches the server as-is so its 400 names that field.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alertRuleInputSchema, RULE_KINDS } from '@/lib/server/alerts/rule-kinds';
import { defaultParams, fieldsOf, KIND_OPTIONS, ruleParamsText, ruleRequestBody } from './alert-rule-form';

describe('alert rule form', () => {
  it('offers exactly the server’s kinds, and each kind’s defaults make a valid rule, global or per job', () => {
    expect(KIND_OPTIONS.map((k) => k.kind).sort()).toEqual([...RULE_KINDS].sort());
    for (const { kind } of KIND_OPTIONS) {
      for (const jobId of ['', 'job-1']) {
        const body = ruleRequestBody({ name: ` ${kind} `, kind, jobId, params: defaultParams(kind), webhookUrl: '', webhookSecret: '' });
        const parsed = alertRuleInputSchema.safeParse(body);
        expect(parsed.success, `${kind}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
        expect(body.jobId).toBe(jobId || null);
        expect(body.name).toBe(kind);
      }
    }
  });

  it('sends numbers as numbers, garbled text as text (the server then names the field), and blank fields not at all', () => {
    fc.assert(
      fc.property(fc.constantFrom(...KIND_OPTIONS.filter((k) => k.fields.length)), fc.string(), (opt, raw) => {
        const f = fieldsOf(opt.kind)[0];
        const field = f.name;
        const body = ruleRequestBody({ name: 'r', kind: opt.kind, jobId: '', params: { ...defaultParams(opt.kind), [field]: raw }, webhookUrl: '', webhookSecret: '' });
        const t = raw.trim();
        if (t === '') expect(field in body.params).toBe(false);
        else if (Number.isFinite(Number(t))) expect(body.params[field]).toBe(f.unit === 'ms' ? Math.round(Number(t) * 60_000) : Number(t));
        else {
          expect(body.params[field]).toBe(t);
          const parsed = alertRuleInputSchema.safeParse(body);
          expect(parsed.success).toBe(false);
          expect(parsed.error!.issues.map((i) => i.path.join('.'))).toContain(`params.${field}`);
        }
      }),
    );
  });

  it('types durations in minutes and sends milliseconds', () => {
    const body = ruleRequestBody({ name: 'r', kind: 'state-growth', jobId: '', params: defaultParams('state-growth'), webhookUrl: '', webhookSecret: '' });
    expect(body.params).toEqual({ percentPerHour: 50, windowMs: 1_800_000 });
    expect(ruleRequestBody({ name: 'r', kind: 'no-progress', jobId: '', params: { afterMs: '2.5' }, webhookUrl: '', webhookSecret: '' }).params).toEqual({ afterMs: 150_000 });
  });

  it('lists a rule’s parameters in words and units, not as JSON', () => {
    expect(ruleParamsText('state-growth', { percentPerHour: 50, windowMs: 1_800_000 })).toBe('growth above 50% per hour · window 30 min');
    expect(ruleParamsText('no-progress', { afterMs: 5_400_000 })).toBe('no commit for 1 h 30 min');
    expect(ruleParamsText('state-bytes', { threshold: 1_073_741_824 })).toBe('threshold 1.0 GiB');
    expect(ruleParamsText('commit-lag', { threshold: 10_000, batches: 1 })).toBe('threshold 10,000 · batches in a row 1');
    expect(ruleParamsText('run-failed', {})).toBe('—');
    // A parameter the form does not know (an API-made rule) still shows, by its name.
    expect(ruleParamsText('state-rows', { threshold: 5, extra: 'x' })).toBe('threshold 5 · extra x');
  });
});
