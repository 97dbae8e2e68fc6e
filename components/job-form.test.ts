import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateJob } from '@/lib/engine';
import { EMPTY_FORM, formControlOf, formFromSpec, issueText, issueWhere, restartPolicyFromForm, schemaTextForType, specFromForm, withFieldLabels, type JobForm } from './job-form';

const ident = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/);
const sinkArb = fc.oneof(
  fc.record({ sinkType: fc.constant('files'), sinkOptionsJson: fc.stringMatching(/^\/tmp\/[a-z]{1,8}$/).map((path) => JSON.stringify({ path, format: 'json' })) }),
  fc.record({ sinkType: fc.constant('console'), sinkOptionsJson: fc.constant('{}') }),
);
const formArb: fc.Arbitrary<JobForm> = fc.tuple(fc.record({
  ...Object.fromEntries(Object.entries(EMPTY_FORM).map(([k, v]) => [k, fc.constant(v)])),
  name: fc.string({ minLength: 1, maxLength: 12 }),
  sourceName: ident,
  sourceOptionsJson: fc
    .record({ path: fc.stringMatching(/^\/tmp\/[a-z]{1,8}$/), format: fc.constantFrom('json', 'csv'), maxFilesPerTrigger: fc.integer({ min: 1, max: 99 }) }, { requiredKeys: ['path'] })
    .map((o) => JSON.stringify(o, null, 2)),
  schemaText: fc.uniqueArray(ident, { minLength: 1, maxLength: 4 }).chain((names) =>
    fc.tuple(...names.map((n) => fc.constantFrom('long', 'double', 'string', 'boolean', 'timestamp').map((t) => `${n} ${t}`))).map((l) => l.join('\n')),
  ),
  sql: fc.string({ minLength: 1, maxLength: 40 }),
  outputMode: fc.constantFrom('append' as const, 'update' as const, 'complete' as const),
  triggerType: fc.constantFrom('processing-time' as const, 'available-now' as const, 'once' as const),
  checkpointLocation: fc.stringMatching(/^\/tmp\/cp[a-z]{0,5}$/),
  stateStoreProvider: fc.constantFrom('hdfs' as const, 'lmdb' as const),
}), sinkArb).map(([form, sink]) => ({ ...form, ...sink })) as fc.Arbitrary<JobForm>;

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

  it('the state store: LMDB is written to the spec and read back; the default store is left out', () => {
    const lmdb = specFromForm({ ...EMPTY_FORM, stateStoreProvider: 'lmdb' }).spec;
    expect(lmdb.stateStore).toEqual({ provider: 'lmdb' });
    expect(formFromSpec(lmdb).stateStoreProvider).toBe('lmdb');
    expect(specFromForm(EMPTY_FORM).spec.stateStore).toBeUndefined();
    expect(formFromSpec({ ...lmdb, stateStore: { provider: 'hdfs' } }).stateStoreProvider).toBe('hdfs');
    expect(formControlOf('stateStore.provider')).toBe('stateStoreProvider');
  });

  it('fields the form has no control for survive an edit (dedup, minBatchesToRetain, badRecordsPath)', () => {
    const { spec } = specFromForm({ ...EMPTY_FORM, name: 'n', sourceOptionsJson: '{"path": "/tmp/in"}', sinkOptionsJson: '{"path": "/tmp/out"}' });
    const stored = { ...spec, dedup: { keys: ['user'] }, minBatchesToRetain: 7, source: { ...(spec.source as object), badRecordsPath: '/tmp/bad' } };
    const edited = specFromForm({ ...formFromSpec(stored), sql: 'SELECT user FROM events' }).spec;
    expect(edited).toEqual({ ...stored, sql: 'SELECT user FROM events' });
  });

  it('the default form is a spec the engine accepts once paths are filled', () => {
    const filled = (json: string, path: string) => JSON.stringify({ ...JSON.parse(json), path });
    const { spec, issues } = specFromForm({ ...EMPTY_FORM, name: 'n', sourceOptionsJson: filled(EMPTY_FORM.sourceOptionsJson, '/tmp/in'), sinkOptionsJson: filled(EMPTY_FORM.sinkOptionsJson, '/tmp/out'), checkpointLocation: '/tmp/cp' });
    expect(issues).toEqual([]);
    const v = validateJob(spec);
    expect(v.errors).toEqual([]);
    expect(v.ok).toBe(true);
  });

  it('an empty schema is left out of the spec (a Kafka source then has its own columns)', () => {
    const { spec, issues } = specFromForm({ ...EMPTY_FORM, sourceType: 'kafka', schemaText: '  \n' });
    expect(issues).toEqual([]);
    expect(spec.source).not.toHaveProperty('schema');
    expect((specFromForm({ ...EMPTY_FORM, schemaText: 'user string' }).spec.source as { schema: unknown }).schema).toEqual([{ name: 'user', type: 'string' }]);
  });

  it('switching to a source with fixed columns drops the untouched example schema, and back restores it; written text stays', () => {
    expect(schemaTextForType(EMPTY_FORM.schemaText, true)).toBe('');
    expect(schemaTextForType('', false)).toBe(EMPTY_FORM.schemaText);
    expect(schemaTextForType('value binary', true)).toBe('value binary');
    expect(schemaTextForType('id long', false)).toBe('id long');
  });

  it('bad options JSON and bad schema lines are reported on their field, never dropped silently', () => {
    const { issues } = specFromForm({ ...EMPTY_FORM, sourceType: 'rate', sourceOptionsJson: '{"rowsPerSecond": ', schemaText: 'user string\njust-one-word', sinkType: 'console', sinkOptionsJson: '[1]' });
    expect(issues.map((i) => i.path).sort()).toEqual(['sink.options', 'source.options', 'source.schema']);
    expect(issues.find((i) => i.path === 'source.schema')!.message).toContain('line 2');
    expect(issues.find((i) => i.path === 'source.options')!.message).toContain('not valid JSON');
    expect(issues.find((i) => i.path === 'sink.options')!.message).toContain('must be a JSON object');
  });

  it('the restart policy: empty or 0 is none, bad numbers are reported on their field, and an edit shows the stored one', () => {
    expect(restartPolicyFromForm(EMPTY_FORM)).toEqual({ policy: null, issues: [] });
    expect(restartPolicyFromForm({ ...EMPTY_FORM, restartMax: '0' }).policy).toBeNull();
    expect(restartPolicyFromForm({ ...EMPTY_FORM, restartMax: '3', restartBackoffMs: '250' })).toEqual({ policy: { maxRestarts: 3, backoffMs: 250 }, issues: [] });
    const bad = restartPolicyFromForm({ ...EMPTY_FORM, restartMax: '2.5', restartBackoffMs: '-1' });
    expect(bad.policy).toBeNull();
    expect(bad.issues.map((i) => i.path)).toEqual(['restartPolicy.maxRestarts', 'restartPolicy.backoffMs']);
    expect(restartPolicyFromForm({ ...EMPTY_FORM, restartMax: '101' }).issues).toHaveLength(1);
    // Round trip through a stored job.
    const form = formFromSpec(specFromForm(EMPTY_FORM).spec, null, { maxRestarts: 4, backoffMs: 1000 });
    expect(restartPolicyFromForm(form).policy).toEqual({ maxRestarts: 4, backoffMs: 1000 });
    expect(restartPolicyFromForm(formFromSpec(specFromForm(EMPTY_FORM).spec, null, null)).policy).toBeNull();
  });
});

describe('issue wording', () => {
  it('names the control an issue belongs to, by the longest matching path', () => {
    expect(formControlOf('sink.options.path')).toBe('sinkOptionsJson');
    expect(formControlOf('trigger.interval')).toBe('triggerInterval');
    expect(formControlOf('trigger.type')).toBe('triggerType');
    expect(formControlOf('source.schema.2.name')).toBe('schemaText');
    expect(formControlOf('dedup.keys')).toBeUndefined();
    // Every path the engine reports for a spec built from the form has a control.
    const r = validateJob(specFromForm({ ...EMPTY_FORM, name: '', sql: '', triggerInterval: 'often' }).spec);
    for (const e of r.errors) expect(formControlOf(e.path), e.path).toBeDefined();
  });

  it('says where in words, with the position once', () => {
    const sql = { path: 'sql', message: 'Column "usr" does not exist; available columns: user, ts (line 1, column 8)', line: 1, column: 8 };
    expect(issueWhere(sql)).toBe('Query, line 1, column 8');
    expect(issueText(sql)).toBe('Column "usr" does not exist; available columns: user, ts');
    const syntax = { path: 'sql', message: "[PARSE_SYNTAX_ERROR] Syntax error at or near 'FROM'. (line 1, column 13)", line: 1, column: 13, errorClass: 'PARSE_SYNTAX_ERROR' };
    expect(issueText(syntax)).toBe("[PARSE_SYNTAX_ERROR] Syntax error at or near 'FROM'.");
    expect(issueText({ ...sql, errorClass: 'UNRESOLVED_COLUMN.WITH_SUGGESTION' })).toBe('[UNRESOLVED_COLUMN.WITH_SUGGESTION] Column "usr" does not exist; available columns: user, ts');
    expect(issueWhere({ path: 'sink.options.path', message: 'must not be empty' }, (side, o) => (side === 'sink' && o === 'path' ? 'Output directory' : undefined))).toBe('Sink: Output directory');
    expect(issueWhere({ path: 'source.options.format', message: 'x' })).toBe('Source: format');
    expect(issueWhere({ path: '(root)', message: 'x' })).toBe('Spec');
  });
});

describe('issueText with an error class', () => {
  it("puts Spark's class first, as Spark prints it", () => {
    expect(issueText({ path: 'outputMode', message: 'Invalid streaming output mode: update.', errorClass: 'STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE' })).toBe('[STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE] Invalid streaming output mode: update.');
    expect(issueText({ path: 'sql', message: 'x (line 1, column 2)', line: 1, column: 2 })).toBe('x');
  });

  it('names the form’s fields where a message names spec paths', () => {
    expect(withFieldLabels('Set source.eventTime and source.watermarkDelay and group by that column.')).toBe('Set “Event-time column” and “Watermark delay” and group by that column.');
    expect(withFieldLabels('needs source.eventTime.')).toBe('needs “Event-time column”.');
    // Not inside a longer path, nor a word that merely contains one.
    expect(withFieldLabels('see source.options.path and mysource.eventTime')).toBe('see source.options.path and mysource.eventTime');
    // The unbounded-state warning, as the analyzer words it for a grouped aggregation without a watermark.
    const v = validateJob({
      name: 'unbounded',
      source: { name: 'events', type: 'memory', options: { stream: 'u' }, schema: [{ name: 'user', type: 'string' }, { name: 'ts', type: 'timestamp' }] },
      sql: 'SELECT user, count(*) AS n FROM events GROUP BY user',
      sink: { type: 'memory', options: { table: 'u' } },
      outputMode: 'complete',
      trigger: { type: 'available-now' },
      checkpointLocation: 'memory://u',
    });
    const unbounded = v.warnings.find((w) => w.message.startsWith('Unbounded state'));
    expect(unbounded, JSON.stringify(v)).toBeDefined();
    expect(issueText(unbounded!)).toContain('Set “Event-time column” and “Watermark delay”');
    expect(issueText(unbounded!)).not.toContain('source.eventTime');
  });
});

describe('the schema box takes Spark types', () => {
  it('a column per line with any Spark type, or one DDL line, and back', () => {
    const lines = specFromForm({ ...EMPTY_FORM, schemaText: 'id int\nprice decimal(10,2)\ntags array<string>\npos struct<x: double, y: double>' });
    expect(lines.issues).toEqual([]);
    expect((lines.spec.source as { schema: unknown }).schema).toEqual([
      { name: 'id', type: 'int' }, { name: 'price', type: 'decimal(10,2)' }, { name: 'tags', type: 'array<string>' }, { name: 'pos', type: 'struct<x: double, y: double>' },
    ]);
    expect(validateJob(lines.spec).errors.filter((e) => e.path.startsWith('source.schema'))).toEqual([]);
    expect(formFromSpec(lines.spec).schemaText).toBe('id int\nprice decimal(10,2)\ntags array<string>\npos struct<x: double, y: double>');
    const ddl = specFromForm({ ...EMPTY_FORM, schemaText: 'user STRING, ts TIMESTAMP, price DECIMAL(10,2)' });
    expect((ddl.spec.source as { schema: unknown }).schema).toBe('user STRING, ts TIMESTAMP, price DECIMAL(10,2)');
    expect(validateJob(ddl.spec).errors.filter((e) => e.path.startsWith('source.schema'))).toEqual([]);
    expect(validateJob(specFromForm({ ...EMPTY_FORM, schemaText: 'price decimal(50,2)' }).spec).errors.map((e) => e.path)).toContain('source.schema.0.type');
    expect(formFromSpec(ddl.spec).schemaText).toBe('user STRING, ts TIMESTAMP, price DECIMAL(10,2)');
  });
});
