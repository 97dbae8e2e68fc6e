import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getSinkDefinition, getSourceDefinition, sinkTypes, sourceTypes } from '@/lib/engine';
import { optionApplies, optionProblem, optionText, optionValue, withOption } from '@/components/option-values';
import * as connectorsRoute from '@/app/api/connectors/route';
import { connectorCatalog, humanize, type OptionField } from './connector-catalog';
import { setupApiTestKit } from './testing/api-test-kit';

/** A value of the field's kind that its schema should accept: its example where it has one. */
function sample(f: OptionField): unknown {
  if (f.example !== undefined) return f.example;
  switch (f.kind) {
    case 'enum':
      return f.values![f.values!.length - 1];
    case 'boolean':
      return !(f.default ?? false);
    case 'integer':
    case 'number':
      return 9;
    case 'list':
      return ['a', 'b'];
    case 'json':
      return { 'X-Team': 'data' };
    // Every member listed, so that a new one is a lint error until it is handled here.
    case 'string':
    default:
      return /url/i.test(f.name) ? 'https://example.com/hook' : f.name === 'path' ? '/data' : 'some-value-1';
  }
}

const all = () => {
  const c = connectorCatalog();
  return [
    ...c.sources.map((x) => ({ ...x, def: getSourceDefinition(x.type)! })),
    ...c.sinks.map((x) => ({ ...x, def: getSinkDefinition(x.type)! })),
  ];
};

describe('connector catalog', () => {
  it('lists every source and sink type a worker can run, and no test-only one', () => {
    const c = connectorCatalog();
    expect(c.sources.map((x) => x.type)).toEqual(sourceTypes().filter((t) => t !== 'memory'));
    expect(c.sinks.map((x) => x.type)).toEqual(sinkTypes().filter((t) => t !== 'memory'));
    expect(c.sources.map((x) => x.type)).toEqual(expect.arrayContaining(['files', 'postgres', 'redis-stream', 'nats-jetstream', 'http', 'rate']));
    expect(c.sinks.map((x) => x.type)).toEqual(expect.arrayContaining(['files', 'postgres', 'postgres-upsert', 'webhook', 'redis-stream', 'console']));
  });

  it("each type's fields are exactly its options: filled through the fields (with the examples shown), the engine accepts them; required ones are what an empty object lacks", () => {
    // Options a type takes exactly one of (Kafka's subscribe | subscribePattern | assign): the form fills the first.
    const alternatives: Record<string, string[]> = { kafka: ['subscribePattern', 'assign'] };
    for (const { type, fields, def } of all()) {
      // Filling every field by its text, as the form does, gives options the engine accepts.
      let options: Record<string, unknown> = {};
      const filled = fields.filter((f) => !(alternatives[type] ?? []).includes(f.name));
      for (const f of filled) options = withOption(options, f, optionText(sample(f), f));
      const parsed = def.options.safeParse(options);
      expect(parsed.success, `${type}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
      expect(Object.keys(options)).toEqual(filled.map((f) => f.name));
      // Required = refused when absent.
      const missing = (def.options.safeParse({}).error?.issues ?? []).filter((i) => i.code === 'invalid_type').map((i) => String(i.path[0]));
      expect(fields.filter((f) => f.required).map((f) => f.name).sort(), type).toEqual([...new Set(missing)].sort());
      // Secrets are marked as the type declares them.
      expect(fields.filter((f) => f.secret).map((f) => f.name).sort(), type).toEqual([...(def.secretOptions ?? [])].sort());
    }
  });

  it('is served at GET /api/connectors to viewers (what the editor renders), the files directories under WEIR_FILES_ROOTS', async () => {
    const kit = await setupApiTestKit();
    try {
      const r = await kit.call(connectorsRoute.GET, '/api/connectors', { token: kit.tokens.viewer });
      expect(r.status).toBe(200);
      expect(r.body).toEqual(JSON.parse(JSON.stringify(connectorCatalog(kit.filesRoots))));
      // The placeholders are paths the server takes (the engine's own example, /data/in, is refused outside the roots).
      const body = r.body as ReturnType<typeof connectorCatalog>;
      const dir = (side: 'sources' | 'sinks') => body[side].find((c) => c.type === 'files')!.fields.find((f) => f.name === 'path')!;
      expect(dir('sources').example).toBe(path.join(kit.filesRoots[0], 'in'));
      expect(dir('sinks').example).toBe(path.join(kit.filesRoots[0], 'out'));
      expect(dir('sinks').description).toContain(`Must be under WEIR_FILES_ROOTS: ${kit.filesRoots.join(', ')}`);
      expect((await kit.call(connectorsRoute.GET, '/api/connectors', {})).status).toBe(401);
    } finally {
      await kit.teardown();
    }
  });

  it('the CSV header option applies only to CSV, for the files source and sink (an unset format is json)', () => {
    const c = connectorCatalog();
    for (const info of [c.sources.find((x) => x.type === 'files')!, c.sinks.find((x) => x.type === 'files')!]) {
      const header = info.fields.find((f) => f.name === 'header')!;
      expect(header.appliesWhen).toEqual({ format: ['csv'] });
      expect(optionApplies(header, {}, info.fields)).toBe(false);
      expect(optionApplies(header, { format: 'json' }, info.fields)).toBe(false);
      expect(optionApplies(header, { format: 'csv' }, info.fields)).toBe(true);
      expect(optionApplies(info.fields.find((f) => f.name === 'path')!, {}, info.fields)).toBe(true);
    }
  });

  it('the files source and sink offer parquet, and the sink its compression only for parquet', () => {
    const c = connectorCatalog();
    for (const info of [c.sources.find((x) => x.type === 'files')!, c.sinks.find((x) => x.type === 'files')!]) {
      expect(info.fields.find((f) => f.name === 'format')!.values).toEqual(['json', 'csv', 'parquet']);
    }
    const sink = c.sinks.find((x) => x.type === 'files')!;
    const compression = sink.fields.find((f) => f.name === 'compression')!;
    expect(compression).toMatchObject({ kind: 'enum', values: ['snappy', 'zstd', 'none'], default: 'snappy', appliesWhen: { format: ['parquet'] } });
    expect(optionApplies(compression, { format: 'json' }, sink.fields)).toBe(false);
    expect(optionApplies(compression, { format: 'parquet' }, sink.fields)).toBe(true);
  });

  it('labels read as words, with the engine titles where it gives one', () => {
    expect(humanize('maxFilesPerTrigger')).toBe('Max files per trigger');
    expect(humanize('initialBackoffMs')).toBe('Initial backoff (ms)');
    expect(humanize('batchIdColumn')).toBe('Batch ID column');
    expect(humanize('url')).toBe('URL');
    const files = connectorCatalog().sources.find((c) => c.type === 'files')!;
    expect(files.fields.find((f) => f.name === 'path')!.label).toBe('Input directory');
  });
});

describe('option values (text ↔ JSON)', () => {
  const field = (kind: OptionField['kind']): OptionField => ({ name: 'x', label: 'X', kind, required: false, secret: false });

  it("a value shown as text and read back is the same value, for every kind (property)", () => {
    const cases: [OptionField['kind'], fc.Arbitrary<unknown>][] = [
      ['string', fc.string({ minLength: 1 }).filter((s) => s.trim() === s && s !== '')],
      ['integer', fc.integer()],
      ['number', fc.double({ noNaN: true, noDefaultInfinity: true })],
      ['boolean', fc.boolean()],
      ['list', fc.array(fc.stringMatching(/^[a-z_][a-z0-9_]{0,6}$/), { minLength: 1, maxLength: 4 })],
      ['json', fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }))],
    ];
    for (const [kind, arb] of cases) {
      fc.assert(
        fc.property(arb, (v) => {
          const f = field(kind);
          expect(optionValue(optionText(v, f), f)).toEqual(Object.is(v, -0) ? 0 : v);
          expect(optionProblem(optionText(v, f), f)).toBeUndefined();
        }),
        { numRuns: 100 },
      );
    }
  });

  it('an emptied field removes the option (its default applies); text of the wrong type is kept, flagged, and refused by the engine', () => {
    expect(withOption({ table: 't', maxRowsPerTrigger: 5 }, { ...field('integer'), name: 'maxRowsPerTrigger' }, '  ')).toEqual({ table: 't' });
    const pg = connectorCatalog().sources.find((c) => c.type === 'postgres')!;
    const max = pg.fields.find((f) => f.name === 'maxRowsPerTrigger')!;
    expect(max.kind).toBe('integer');
    const options = withOption({ connectionString: 'postgres://h/db', table: 't', offsetColumn: 'id' }, max, '12x');
    expect(options.maxRowsPerTrigger).toBe('12x');
    expect(optionProblem('12x', max)).toBe('must be a whole number');
    const r = getSourceDefinition('postgres')!.options.safeParse(options);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0].path).toEqual(['maxRowsPerTrigger']);
    expect(optionProblem('{"a":', field('json'))).toContain('must be JSON');
  });
});
