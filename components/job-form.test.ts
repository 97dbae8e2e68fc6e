import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateJob } from '@/lib/engine';
import path from 'node:path';
import { tmpdir } from 'node:os';
import { validateSpec } from '@/lib/server/services/job-service';
import {
  addedSourceName,
  addedStaticTable,
  controlsAfterRemoval,
  EMPTY_FORM,
  EMPTY_SOURCE,
  EMPTY_STATIC_TABLE,
  formControlOf,
  formFromSpec,
  issueText,
  issueWhere,
  restartPolicyFromForm,
  schemaTextForType,
  sourcePath,
  specFromForm,
  withFieldLabels,
  type FormControl,
  type JobForm,
  type SourceForm,
  type StaticTableForm,
} from './job-form';

const ident = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/);
const sinkArb = fc.oneof(
  fc.record({ sinkType: fc.constant('files'), sinkOptionsJson: fc.stringMatching(/^\/tmp\/[a-z]{1,8}$/).map((path) => JSON.stringify({ path, format: 'json' })) }),
  fc.record({ sinkType: fc.constant('console'), sinkOptionsJson: fc.constant('{}') }),
);
const sourceArb = (name: string): fc.Arbitrary<SourceForm> =>
  fc.record({
    ...Object.fromEntries(Object.entries(EMPTY_SOURCE).map(([k, v]) => [k, fc.constant(v)])),
    name: fc.constant(name),
    optionsJson: fc
      .record({ path: fc.stringMatching(/^\/tmp\/[a-z]{1,8}$/), format: fc.constantFrom('json', 'csv'), maxFilesPerTrigger: fc.integer({ min: 1, max: 99 }) }, { requiredKeys: ['path'] })
      .map((o) => JSON.stringify(o, null, 2)),
    schemaText: fc.uniqueArray(ident, { minLength: 1, maxLength: 4 }).chain((names) =>
      fc.tuple(...names.map((n) => fc.constantFrom('long', 'double', 'string', 'boolean', 'timestamp').map((t) => `${n} ${t}`))).map((l) => l.join('\n')),
    ),
    eventTime: fc.constantFrom('', 'ts'),
    watermarkDelay: fc.constantFrom('', '10 seconds', '1 hour 30 minutes', '2 years 5 months', 'interval 1 day 2 hours'),
    onBadRecord: fc.constantFrom('fail' as const, 'dead-letter' as const),
  }) as fc.Arbitrary<SourceForm>;
// One to three sources, of distinct names.
const sourcesArb = fc.uniqueArray(ident, { minLength: 1, maxLength: 3 }).chain((names) => fc.tuple(...names.map(sourceArb)));
const schemaTextArb = fc.uniqueArray(ident, { minLength: 1, maxLength: 4 }).chain((names) =>
  fc.tuple(...names.map((n) => fc.constantFrom('long', 'double', 'string', 'boolean', 'timestamp', 'decimal(10,2)', 'array<string>').map((t) => `${n} ${t}`))).map((l) => l.join('\n')),
);
/** A static table of either kind; the other kind's fields empty (the form writes only the chosen kind's). */
const staticTableArb: fc.Arbitrary<StaticTableForm> = fc.oneof(
  fc.record(
    { name: ident, type: fc.constant('file' as const), path: fc.stringMatching(/^(\/tmp\/)?[a-z]{1,8}\.(json|csv)$/), format: fc.constantFrom('json' as const, 'csv' as const), header: fc.boolean(), connectionString: fc.constant(''), table: fc.constant(''), dbSchema: fc.constant(''), cache: fc.boolean(), schemaText: schemaTextArb },
    { requiredKeys: ['name', 'type', 'path', 'format', 'connectionString', 'table', 'dbSchema', 'schemaText'] },
  ),
  fc.record(
    { name: ident, type: fc.constant('postgres' as const), path: fc.constant(''), format: fc.constant('json' as const), connectionString: fc.constantFrom('postgres://127.0.0.1:5432/test', '••••••'), table: ident, dbSchema: fc.constantFrom('', 'public', 'dim'), cache: fc.boolean(), schemaText: schemaTextArb },
    { requiredKeys: ['name', 'type', 'path', 'format', 'connectionString', 'table', 'dbSchema', 'schemaText'] },
  ),
);
const formArb: fc.Arbitrary<JobForm> = fc.tuple(fc.record({
  ...Object.fromEntries(Object.entries(EMPTY_FORM).map(([k, v]) => [k, fc.constant(v)])),
  name: fc.string({ minLength: 1, maxLength: 12 }),
  sources: sourcesArb,
  staticTables: fc.array(staticTableArb, { maxLength: 3 }),
  multipleWatermarkPolicy: fc.constantFrom('min' as const, 'max' as const),
  sql: fc.string({ minLength: 1, maxLength: 40 }),
  outputMode: fc.constantFrom('append' as const, 'update' as const, 'complete' as const),
  triggerType: fc.constantFrom('processing-time' as const, 'available-now' as const, 'once' as const),
  checkpointLocation: fc.stringMatching(/^\/tmp\/cp[a-z]{0,5}$/),
  stateStoreProvider: fc.constantFrom('hdfs' as const, 'lmdb' as const),
  maintenanceInterval: fc.constantFrom('', '10 seconds', '5 minutes'),
}), sinkArb).map(([form, sink]) => ({ ...form, ...sink })) as unknown as fc.Arbitrary<JobForm>;

/** The default form with its one source changed. */
const withSource = (patch: Partial<SourceForm>, form: Partial<JobForm> = {}): JobForm => ({ ...EMPTY_FORM, ...form, sources: [{ ...EMPTY_SOURCE, ...patch }] });
const sourceOf = (spec: Record<string, unknown>) => spec.source as Record<string, unknown>;

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

  it('the state maintenance interval is written beside the store and survives an edit', () => {
    const spec = specFromForm({ ...EMPTY_FORM, maintenanceInterval: ' 10 seconds ' }).spec;
    expect(spec.stateStore).toEqual({ maintenanceInterval: '10 seconds' });
    expect(formFromSpec(spec).maintenanceInterval).toBe('10 seconds');
    expect(specFromForm({ ...EMPTY_FORM, stateStoreProvider: 'lmdb', maintenanceInterval: '5 minutes' }).spec.stateStore).toEqual({ provider: 'lmdb', maintenanceInterval: '5 minutes' });
    expect(formControlOf('stateStore.maintenanceInterval')).toBe('maintenanceInterval');
  });

  it('fields the form has no control for survive an edit (dedup, minBatchesToRetain, badRecordsPath)', () => {
    const { spec } = specFromForm(withSource({ optionsJson: '{"path": "/tmp/in"}' }, { name: 'n', sinkOptionsJson: '{"path": "/tmp/out"}' }));
    const stored = { ...spec, dedup: { keys: ['user'] }, minBatchesToRetain: 7, source: { ...(spec.source as object), badRecordsPath: '/tmp/bad' } };
    const edited = specFromForm({ ...formFromSpec(stored), sql: 'SELECT user FROM events' }).spec;
    expect(edited).toEqual({ ...stored, sql: 'SELECT user FROM events' });
  });

  it("a watermark delay in Spark's interval strings goes to the spec as written, and the engine takes it", () => {
    for (const delay of ['1 hour 30 minutes', '2 years 5 months', 'interval 2 years 5 months', '10 ms']) {
      const form = withSource({ optionsJson: '{"path": "/tmp/in"}', schemaText: 'user string\nts timestamp', eventTime: 'ts', watermarkDelay: ` ${delay} ` }, { name: 'n', sinkOptionsJson: '{"path": "/tmp/out"}', checkpointLocation: '/tmp/cp' });
      const { spec, issues } = specFromForm(form);
      expect(issues).toEqual([]);
      expect(sourceOf(spec).watermarkDelay).toBe(delay);
      expect(validateJob(spec).errors, delay).toEqual([]);
    }
  });

  it('the default form is a spec the engine accepts once paths are filled', () => {
    const filled = (json: string, path: string) => JSON.stringify({ ...JSON.parse(json), path });
    const { spec, issues } = specFromForm(withSource({ optionsJson: filled(EMPTY_SOURCE.optionsJson, '/tmp/in') }, { name: 'n', sinkOptionsJson: filled(EMPTY_FORM.sinkOptionsJson, '/tmp/out'), checkpointLocation: '/tmp/cp' }));
    expect(issues).toEqual([]);
    const v = validateJob(spec);
    expect(v.errors).toEqual([]);
    expect(v.ok).toBe(true);
  });

  it('an empty schema is left out of the spec (a Kafka source then has its own columns)', () => {
    const { spec, issues } = specFromForm(withSource({ type: 'kafka', schemaText: '  \n' }));
    expect(issues).toEqual([]);
    expect(spec.source).not.toHaveProperty('schema');
    expect(sourceOf(specFromForm(withSource({ schemaText: 'user string' })).spec).schema).toEqual([{ name: 'user', type: 'string' }]);
  });

  it('switching to a source with fixed columns drops the untouched example schema, and back restores it; written text stays', () => {
    expect(schemaTextForType(EMPTY_SOURCE.schemaText, true)).toBe('');
    expect(schemaTextForType('', false)).toBe(EMPTY_SOURCE.schemaText);
    expect(schemaTextForType('value binary', true)).toBe('value binary');
    expect(schemaTextForType('id long', false)).toBe('id long');
  });

  it('bad options JSON and bad schema lines are reported on their field, never dropped silently', () => {
    const { issues } = specFromForm(withSource({ type: 'rate', optionsJson: '{"rowsPerSecond": ', schemaText: 'user string\njust-one-word' }, { sinkType: 'console', sinkOptionsJson: '[1]' }));
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
    expect(formControlOf('source.schema.2.name')).toBe('sources.0.schemaText');
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
    const lines = specFromForm(withSource({ schemaText: 'id int\nprice decimal(10,2)\ntags array<string>\npos struct<x: double, y: double>' }));
    expect(lines.issues).toEqual([]);
    expect(sourceOf(lines.spec).schema).toEqual([
      { name: 'id', type: 'int' }, { name: 'price', type: 'decimal(10,2)' }, { name: 'tags', type: 'array<string>' }, { name: 'pos', type: 'struct<x: double, y: double>' },
    ]);
    expect(validateJob(lines.spec).errors.filter((e) => e.path.startsWith('source.schema'))).toEqual([]);
    expect(formFromSpec(lines.spec).sources[0].schemaText).toBe('id int\nprice decimal(10,2)\ntags array<string>\npos struct<x: double, y: double>');
    const ddl = specFromForm(withSource({ schemaText: 'user STRING, ts TIMESTAMP, price DECIMAL(10,2)' }));
    expect(sourceOf(ddl.spec).schema).toBe('user STRING, ts TIMESTAMP, price DECIMAL(10,2)');
    expect(validateJob(ddl.spec).errors.filter((e) => e.path.startsWith('source.schema'))).toEqual([]);
    expect(validateJob(specFromForm(withSource({ schemaText: 'price decimal(50,2)' })).spec).errors.map((e) => e.path)).toContain('source.schema.0.type');
    expect(formFromSpec(ddl.spec).sources[0].schemaText).toBe('user STRING, ts TIMESTAMP, price DECIMAL(10,2)');
  });
});

describe('several sources', () => {
  const memory = (name: string, stream: string, extra: Record<string, unknown> = {}) => ({
    name, type: 'memory', options: { stream }, schema: [{ name: 'user', type: 'string' }, { name: 'ts', type: 'timestamp' }], ...extra,
  });
  const twoSources = {
    name: 'two',
    sources: [memory('clicks', 'c', { onBadRecord: 'fail' }), memory('views', 'v', { eventTime: 'ts', watermarkDelay: '10 seconds', onBadRecord: 'fail', badRecordsPath: '/tmp/bad' })],
    multipleWatermarkPolicy: 'max',
    sql: 'SELECT user FROM clicks UNION ALL SELECT user FROM views',
    sink: { type: 'memory', options: { table: 't' } },
    outputMode: 'append',
    trigger: { type: 'available-now' },
    checkpointLocation: 'memory://two',
  };

  it('a spec of two sources loads as two source forms and saves as the same spec', () => {
    const form = formFromSpec(twoSources);
    expect(form.sources.map((s) => [s.name, s.type, s.watermarkDelay])).toEqual([['clicks', 'memory', ''], ['views', 'memory', '10 seconds']]);
    expect(form.multipleWatermarkPolicy).toBe('max');
    const { spec, issues } = specFromForm(form);
    expect(issues).toEqual([]);
    expect(spec).toEqual(twoSources);
    expect(validateJob(spec).errors).toEqual([]);
  });

  it('one source is written as `source`, several as `sources`, and removing one goes back to `source`', () => {
    const one = specFromForm(EMPTY_FORM).spec;
    expect(one).toHaveProperty('source');
    expect(one).not.toHaveProperty('sources');
    const added = { ...EMPTY_FORM, sources: [EMPTY_SOURCE, { ...EMPTY_SOURCE, name: addedSourceName([EMPTY_SOURCE]) }] };
    const two = specFromForm(added).spec;
    expect(two).not.toHaveProperty('source');
    expect((two.sources as { name: string }[]).map((s) => s.name)).toEqual(['events', 'events_2']);
    // The policy means nothing for one source: not written, as Spark's default (min) is not.
    expect(two).not.toHaveProperty('multipleWatermarkPolicy');
    expect(specFromForm({ ...added, multipleWatermarkPolicy: 'max' }).spec.multipleWatermarkPolicy).toBe('max');
    const removed = specFromForm({ ...formFromSpec(twoSources), sources: formFromSpec(twoSources).sources.slice(1) }).spec;
    expect(removed).not.toHaveProperty('sources');
    expect(removed).not.toHaveProperty('multipleWatermarkPolicy');
    expect(removed.source).toEqual(twoSources.sources[1]);
    // A one-source spec written as a list of one is edited as one source, and saved as `source`.
    expect(specFromForm(formFromSpec({ ...twoSources, sources: [twoSources.sources[0]] })).spec.source).toEqual(twoSources.sources[0]);
  });

  it('an added source gets a name no source has', () => {
    expect(addedSourceName([{ name: 'events' }])).toBe('events_2');
    expect(addedSourceName([{ name: 'events' }, { name: 'EVENTS_3' }])).toBe('events_4');
  });

  it("the form's own problems of a source are at its path in the spec it writes", () => {
    const form: JobForm = { ...EMPTY_FORM, sources: [EMPTY_SOURCE, { ...EMPTY_SOURCE, name: 'b', optionsJson: '{', schemaText: 'oneword' }] };
    expect(specFromForm(form).issues.map((i) => i.path).sort()).toEqual(['sources.1.options', 'sources.1.schema']);
    expect(sourcePath(form, 1)).toBe('sources.1');
    expect(sourcePath(EMPTY_FORM, 0)).toBe('source');
  });

  it("maps the server's paths of a source to that source's control, and says which source", () => {
    expect(formControlOf('sources.1.watermarkDelay')).toBe('sources.1.watermarkDelay');
    expect(formControlOf('source.watermarkDelay')).toBe('sources.0.watermarkDelay');
    expect(formControlOf('sources.0.options.path')).toBe('sources.0.optionsJson');
    expect(formControlOf('sources.2.badRecordsPath')).toBe('sources.2.onBadRecord');
    expect(formControlOf('sources.1.unknownField')).toBeUndefined();
    expect(formControlOf('multipleWatermarkPolicy')).toBe('multipleWatermarkPolicy');
    expect(issueWhere({ path: 'sources.1.watermarkDelay', message: 'x' })).toBe('Source 2: Watermark delay');
    expect(issueWhere({ path: 'source.watermarkDelay', message: 'x' })).toBe('Watermark delay');
    expect(issueWhere({ path: 'sources.1.options.path', message: 'x' }, (side, o, i) => (side === 'source' && i === 1 && o === 'path' ? 'Input directory' : undefined))).toBe('Source 2: Input directory');
    expect(withFieldLabels('Set sources.1.eventTime and sources.1.watermarkDelay')).toBe('Set “Source 2: Event-time column” and “Source 2: Watermark delay”');
    // What the engine answers for a bad second source lands on that source's controls.
    const bad = { ...twoSources, sources: [twoSources.sources[0], { ...twoSources.sources[1], watermarkDelay: 'soon' }] };
    const v = validateJob(bad);
    expect(v.errors.map((e) => e.path)).toContain('sources.1.watermarkDelay');
    for (const e of v.errors) expect(formControlOf(e.path), e.path).toBeDefined();
  });
});

describe('static tables', () => {
  const regions = { name: 'regions', path: 'data/regions.json', format: 'json', schema: [{ name: 'code', type: 'string' }, { name: 'label', type: 'string' }] };
  const users = { name: 'users', type: 'postgres', connectionString: 'postgres://127.0.0.1:5432/test', table: 'users', dbSchema: 'crm', schema: 'id BIGINT, tier STRING' };
  const withTables = (staticTables: unknown[]) => ({ ...specFromForm(withSource({ optionsJson: '{"path": "/tmp/in"}', schemaText: 'user string\nregion string' }, { name: 'n', sinkOptionsJson: '{"path": "/tmp/out"}' })).spec, staticTables });

  it('a form comes back from the spec it writes with every static table field as it was (property)', () => {
    fc.assert(
      fc.property(fc.array(staticTableArb, { maxLength: 4 }), (staticTables) => {
        const form = { ...EMPTY_FORM, staticTables };
        const { spec, issues } = specFromForm(form);
        expect(issues).toEqual([]);
        expect(formFromSpec(spec).staticTables).toEqual(staticTables.map((t) => ({ ...t, keep: {} })));
      }),
      { numRuns: 200, seed: 7 },
    );
  });

  it('a stored file table and a postgres table load into their fields and save as the same spec', () => {
    const stored = withTables([regions, { ...regions, name: 'blocklist', path: '/tmp/block.csv', format: 'csv', header: false, cache: true }, { ...users, cache: false }]);
    const form = formFromSpec(stored);
    expect(form.staticTables.map((t) => [t.name, t.type, t.path, t.format, t.header, t.connectionString, t.table, t.dbSchema, t.cache, t.schemaText])).toEqual([
      ['regions', 'file', 'data/regions.json', 'json', undefined, '', '', '', undefined, 'code string\nlabel string'],
      ['blocklist', 'file', '/tmp/block.csv', 'csv', false, '', '', '', true, 'code string\nlabel string'],
      ['users', 'postgres', '', 'json', undefined, 'postgres://127.0.0.1:5432/test', 'users', 'crm', false, 'id BIGINT, tier STRING'],
    ]);
    expect(specFromForm(form).spec).toEqual(stored);
    // No static table: no `staticTables` at all, as a spec written by hand has none.
    expect(specFromForm(EMPTY_FORM).spec).not.toHaveProperty('staticTables');
    expect(formFromSpec(specFromForm(EMPTY_FORM).spec).staticTables).toEqual([]);
  });

  it('fields the form has no control for survive an edit, in a static table and in the spec', () => {
    const stored = { ...withTables([{ ...regions, comment: 'kept', header: true }, { ...users, readOptions: { fetchSize: 100 } }]), parallelism: 4, dedup: { keys: ['user'] } };
    const form = formFromSpec(stored);
    form.staticTables[0] = { ...form.staticTables[0], path: 'data/regions-v2.json' };
    const edited = specFromForm({ ...form, sql: 'SELECT user FROM events' }).spec;
    expect(edited).toEqual({ ...stored, sql: 'SELECT user FROM events', staticTables: [{ ...regions, comment: 'kept', header: true, path: 'data/regions-v2.json' }, stored.staticTables[1]] });
  });

  it('the kind chooses the fields written: switching keeps the other kind\'s in the form, not in the spec', () => {
    const file: StaticTableForm = { ...EMPTY_STATIC_TABLE, path: '/tmp/r.json' };
    const asPostgres = { ...file, type: 'postgres' as const, connectionString: 'postgres://h/db', table: 'r' };
    const tableOf = (t: StaticTableForm) => (specFromForm({ ...EMPTY_FORM, staticTables: [t] }).spec.staticTables as Record<string, unknown>[])[0];
    expect(tableOf(file)).toEqual({ name: 'regions', path: '/tmp/r.json', format: 'json', schema: [{ name: 'code', type: 'string' }, { name: 'label', type: 'string' }] });
    expect(tableOf(asPostgres)).toEqual({ name: 'regions', type: 'postgres', connectionString: 'postgres://h/db', table: 'r', schema: [{ name: 'code', type: 'string' }, { name: 'label', type: 'string' }] });
    expect(tableOf({ ...asPostgres, type: 'file' })).toEqual(tableOf(file));
  });

  it("the schema box is the sources': a bad line is the form's problem at the table's schema", () => {
    const { issues } = specFromForm({ ...EMPTY_FORM, staticTables: [EMPTY_STATIC_TABLE, { ...EMPTY_STATIC_TABLE, name: 'b', schemaText: 'code string\noneword' }] });
    expect(issues.map((i) => i.path)).toEqual(['staticTables.1.schema']);
    expect(issues[0].message).toContain('line 2');
    expect(issueWhere(issues[0])).toBe('Static table 2: Schema');
  });

  it('an added static table gets a name no source or static table has', () => {
    expect(addedStaticTable(EMPTY_FORM).name).toBe('regions');
    expect(addedStaticTable({ sources: [{ ...EMPTY_SOURCE, name: 'regions' }], staticTables: [{ ...EMPTY_STATIC_TABLE, name: 'REGIONS_2' }] }).name).toBe('regions_3');
  });

  it('removing a table: its touched fields go, those after it move up one, the sources\' stay', () => {
    const touched: FormControl[] = ['name', 'staticTables.0.path', 'staticTables.1.name', 'staticTables.2.schemaText', 'sources.1.name'];
    expect([...controlsAfterRemoval(touched, 'staticTables', 1)]).toEqual(['name', 'staticTables.0.path', 'staticTables.1.schemaText', 'sources.1.name']);
    expect([...controlsAfterRemoval(touched, 'sources', 0)]).toEqual(['name', 'staticTables.0.path', 'staticTables.1.name', 'staticTables.2.schemaText', 'sources.0.name']);
  });

  it("the server's problems of a static table land on its field: a path outside the roots, a bad type, a duplicate name, a missing table", () => {
    const files = path.join(tmpdir(), 'weir-form-files');
    const roots = { checkpointRoot: path.join(tmpdir(), 'weir-form-cp'), filesRoots: [files] };
    const form = formFromSpec({
      ...withTables([
        { ...regions, path: '/etc/regions.json' },
        { ...regions, name: 'users', schema: [{ name: 'code', type: 'strang' }] },
        { ...regions, name: 'REGIONS', path: 'r.json' },
        { name: 'tiers', type: 'postgres', connectionString: 'postgres://127.0.0.1:5432/test', schema: 'id BIGINT' },
      ]),
      source: { name: 'events', type: 'files', options: { path: files, format: 'json' }, schema: [{ name: 'user', type: 'string' }, { name: 'region', type: 'string' }] },
      sql: 'SELECT e.user, r.label FROM events e JOIN regions r ON e.region = r.code',
    });
    const v = validateSpec(specFromForm(form).spec, roots);
    const at = Object.fromEntries(v.errors.filter((e) => e.path.startsWith('staticTables')).map((e) => [formControlOf(e.path), `${issueWhere(e)}: ${issueText(e)}`]));
    expect(Object.keys(at).sort()).toEqual(['staticTables.0.path', 'staticTables.1.schemaText', 'staticTables.2.name', 'staticTables.3.table']);
    expect(at['staticTables.0.path']).toMatch(/^Static table 1: File path: “Static table 1: File path” resolves to "\/etc\/regions.json", outside WEIR_FILES_ROOTS/);
    expect(at['staticTables.1.schemaText']).toMatch(/^Static table 2: Schema: "strang" is not a type Weir reads/);
    expect(at['staticTables.2.name']).toBe('Static table 3: Table name in SQL: duplicate name "REGIONS": another static table has it, and FROM and JOIN name each source and static table by its name');
    expect(at['staticTables.3.table']).toBe('Static table 4: Table: is required for a postgres static table');
  });

  it('a form with a stream and a static file table makes a spec the engine accepts, its plan joining the two', () => {
    const form: JobForm = {
      ...withSource({ optionsJson: '{"path": "/tmp/in"}', schemaText: 'user string\nregion string' }, { name: 'n', sinkOptionsJson: '{"path": "/tmp/out"}', checkpointLocation: '/tmp/cp' }),
      staticTables: [{ ...EMPTY_STATIC_TABLE, path: '/tmp/regions.csv', format: 'csv', header: true }],
      sql: 'SELECT e.user, r.label FROM events e LEFT JOIN regions r ON e.region = r.code',
    };
    const { spec, issues } = specFromForm(form);
    expect(issues).toEqual([]);
    const v = validateJob(spec);
    expect(v.errors).toEqual([]);
    expect(v.explain).toMatch(/Join LeftOuter \(region = code\)/);
    expect(v.explain).toMatch(/StaticRelation regions/);
  });
});
