import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateJob } from '@/lib/engine';
import { EMPTY_FORM, formFromSpec, specFromForm, type JobForm } from './job-form';

const ident = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/);
const formArb: fc.Arbitrary<JobForm> = fc.record({
  ...Object.fromEntries(Object.entries(EMPTY_FORM).map(([k, v]) => [k, fc.constant(v)])),
  name: fc.string({ minLength: 1, maxLength: 12 }),
  sourceName: ident,
  filesPath: fc.stringMatching(/^\/tmp\/[a-z]{1,8}$/),
  filesFormat: fc.constantFrom('json' as const, 'csv' as const),
  maxFilesPerTrigger: fc.oneof(fc.constant(''), fc.integer({ min: 1, max: 99 }).map(String)),
  schemaText: fc.uniqueArray(ident, { minLength: 1, maxLength: 4 }).chain((names) =>
    fc.tuple(...names.map((n) => fc.constantFrom('long', 'double', 'string', 'boolean', 'timestamp').map((t) => `${n} ${t}`))).map((l) => l.join('\n')),
  ),
  sql: fc.string({ minLength: 1, maxLength: 40 }),
  sinkType: fc.constantFrom('files', 'console'),
  sinkPath: fc.stringMatching(/^\/tmp\/[a-z]{1,8}$/),
  outputMode: fc.constantFrom('append' as const, 'update' as const, 'complete' as const),
  triggerType: fc.constantFrom('processing-time' as const, 'available-now' as const, 'once' as const),
  checkpointLocation: fc.stringMatching(/^\/tmp\/cp[a-z]{0,5}$/),
}) as fc.Arbitrary<JobForm>;

describe('job form ↔ spec', () => {
  it('a spec made from a form comes back as the same spec (round trip, property)', () => {
    fc.assert(
      fc.property(formArb, (form) => {
        const { spec, issues } = specFromForm(form);
        expect(issues).toEqual([]);
        const again = specFromForm(formFromSpec(spec, form.description));
        expect(again.spec).toEqual(spec);
      }),
      { numRuns: 200, seed: 11 },
    );
  });

  it('fields the form has no control for survive an edit (dedup, minBatchesToRetain, badRecordsPath)', () => {
    const { spec } = specFromForm({ ...EMPTY_FORM, name: 'n', filesPath: '/tmp/in', sinkPath: '/tmp/out' });
    const stored = { ...spec, dedup: { keys: ['user'] }, minBatchesToRetain: 7, source: { ...(spec.source as object), badRecordsPath: '/tmp/bad' } };
    const edited = specFromForm({ ...formFromSpec(stored), sql: 'SELECT user FROM events' }).spec;
    expect(edited).toEqual({ ...stored, sql: 'SELECT user FROM events' });
  });

  it('the default form is a spec the engine accepts once paths are filled', () => {
    const { spec, issues } = specFromForm({ ...EMPTY_FORM, name: 'n', filesPath: '/tmp/in', sinkPath: '/tmp/out', checkpointLocation: '/tmp/cp' });
    expect(issues).toEqual([]);
    const v = validateJob(spec);
    expect(v.errors).toEqual([]);
    expect(v.ok).toBe(true);
  });

  it('bad options JSON and bad schema lines are reported on their field, never dropped silently', () => {
    const { issues } = specFromForm({ ...EMPTY_FORM, sourceType: 'rate', sourceOptionsJson: '{"rowsPerSecond": ', schemaText: 'user string\njust-one-word', sinkType: 'console', sinkOptionsJson: '[1]', maxFilesPerTrigger: 'x' });
    expect(issues.map((i) => i.path).sort()).toEqual(['sink.options', 'source.options', 'source.schema']);
    expect(issues.find((i) => i.path === 'source.schema')!.message).toContain('line 2');
    const files = specFromForm({ ...EMPTY_FORM, maxFilesPerTrigger: '0' });
    expect(files.issues).toEqual([{ path: 'source.options.maxFilesPerTrigger', message: expect.stringContaining('at least 1') }]);
  });
});
