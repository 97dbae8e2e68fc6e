import { describe, expect, it } from 'vitest';
import { validateJob } from './validate-job';
import { parseDuration } from './duration';
import { stateStoreProviderOf } from './job-spec';

const good = {
  name: 'j',
  source: { name: 'src', type: 'memory', options: { stream: 's' }, schema: [{ name: 'a', type: 'long' }, { name: 'ts', type: 'timestamp' }], eventTime: 'ts', watermarkDelay: '10 seconds' },
  sql: 'SELECT a, a + 1 AS b FROM src WHERE a > 0',
  sink: { type: 'memory', options: { table: 't' } },
  trigger: { type: 'processing-time', interval: '5 seconds' },
  checkpointLocation: '/tmp/weir-validate-never-created',
};

describe('validateJob', () => {
  it('returns the plan, output schema, contract and defaults for a good spec', () => {
    const r = validateJob(good);
    expect(r.ok).toBe(true);
    expect(r.errors).toEqual([]);
    expect(r.outputSchema!.map((f) => [f.name, f.type])).toEqual([['a', 'long'], ['b', 'long']]);
    expect(r.explain).toMatch(/Filter/);
    expect(r.contract!.guarantee).toBe('exactly-once');
    expect(r.spec!.outputMode).toBe('append');
    expect(r.spec!.source.onBadRecord).toBe('fail');
    expect(r.spec!.minBatchesToRetain).toBe(100);
    expect(r.warnings.some((w) => w.path === 'checkpointLocation')).toBe(true);
  });

  it('names the output columns with Spark\'s types, not Weir\'s internal ones', () => {
    const r = validateJob({
      ...good,
      sql: "SELECT CAST(a AS INT) AS i, CAST(a AS DECIMAL(10,2)) AS d, CAST(a AS FLOAT) AS f, a, array(a) AS xs, window(ts, '1 minute') AS w FROM src",
    });
    expect(r.errors).toEqual([]);
    expect(r.outputColumns).toEqual([
      { name: 'i', type: 'int' },
      { name: 'd', type: 'decimal(10,2)' },
      { name: 'f', type: 'float' },
      { name: 'a', type: 'bigint' },
      { name: 'xs', type: 'array<bigint>' },
      { name: 'w', type: 'struct<start:timestamp,end:timestamp>' },
    ]);
    // A query that does not analyse has no output columns.
    expect(validateJob({ ...good, sql: 'SELECT nope FROM src' }).outputColumns).toBeUndefined();
  });

  it('explains the optimized plan and which rule moved what', () => {
    const r = validateJob({ ...good, source: { ...good.source, schema: [...good.source.schema, { name: 'unused', type: 'string' }] }, sql: 'SELECT a FROM src WHERE a > 2 * 3' });
    expect(r.ok).toBe(true);
    expect(r.optimizations).toEqual([
      { rule: 'ConstantFolding', detail: '(a > (2 * 3)) → (a > 6)' },
      { rule: 'ColumnPruning', detail: 'source src reads 2 of 3 columns: a, ts' },
      { rule: 'FuseStatelessOperators', detail: 'Filter and the Project above it run in one pass (no intermediate rows)' },
    ]);
    expect(r.explain).toContain('Filter (a > 6)');
    expect(r.explain).toContain('StreamingRelation src [a, ts]');
  });

  it('names the field of every error, including per-type options, all at once', () => {
    const r = validateJob({
      ...good,
      name: '',
      source: { ...good.source, options: { stream: 3 }, eventTime: 'a', onBadRecord: 'dead-letter' },
      sink: { type: 'files', options: { format: 'avro' } },
      trigger: { type: 'processing-time', interval: 'often' },
      extra: true,
    });
    expect(r.ok).toBe(false);
    const paths = r.errors.map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining(['name', 'source.options.stream', 'sink.options.path', 'sink.options.format', 'trigger.interval', '(root)']),
    );
    const strict = validateJob({ ...good, source: { ...good.source, eventTime: 'a', onBadRecord: 'dead-letter' } });
    expect(strict.errors.map((e) => e.path)).toEqual(expect.arrayContaining(['source.eventTime', 'source.badRecordsPath']));
    expect(strict.errors.find((e) => e.path === 'source.eventTime')!.message).toMatch(/must be a timestamp/);
  });

  it('takes the state store provider per job: hdfs when none is named, lmdb, nothing else', () => {
    expect(stateStoreProviderOf(validateJob(good).spec!)).toBe('hdfs');
    const lmdb = validateJob({ ...good, stateStore: { provider: 'lmdb' } });
    expect(lmdb.ok).toBe(true);
    expect(stateStoreProviderOf(lmdb.spec!)).toBe('lmdb');
    expect(stateStoreProviderOf(validateJob({ ...good, stateStore: {} }).spec!)).toBe('hdfs');
    const bad = validateJob({ ...good, stateStore: { provider: 'rocksdb', cache: 1 } });
    expect(bad.errors).toEqual(expect.arrayContaining([
      { path: 'stateStore.provider', message: 'must be one of: hdfs, lmdb' },
      expect.objectContaining({ path: 'stateStore', message: expect.stringMatching(/unknown field "cache"/) }),
    ]));
  });

  it('reports unknown source and sink types with the known ones', () => {
    const r = validateJob({ ...good, source: { ...good.source, type: 'kinesis' }, sink: { type: 'nope', options: {} } });
    expect(r.errors.find((e) => e.path === 'source.type')!.message).toMatch(/unknown source type "kinesis"; known types: .*files/);
    expect(r.errors.find((e) => e.path === 'sink.type')!.message).toMatch(/unknown sink type "nope"/);
  });

  it('reports SQL errors at path sql with line and column', () => {
    const r = validateJob({ ...good, sql: 'SELECT a,\n  nope + 1 AS c\nFROM src' });
    expect(r.ok).toBe(false);
    expect(r.errors).toEqual([expect.objectContaining({ path: 'sql', line: 2, column: 3 })]);
    expect(r.errors[0].message).toMatch(/Column "nope" does not exist; available columns: a, ts/);
    const syntax = validateJob({ ...good, sql: 'SELECT a FROM src WHERE a >' });
    expect(syntax.errors[0]).toMatchObject({ path: 'sql', line: 1, column: 28, errorClass: 'PARSE_SYNTAX_ERROR' });
    expect(syntax.errors[0].message).toMatch(/^\[PARSE_SYNTAX_ERROR\] Syntax error at or near end of input/);
  });

  it('checks output modes: Spark’s message for complete without aggregation, and the sink’s supported modes', () => {
    const complete = validateJob({ ...good, outputMode: 'complete' });
    expect(complete.errors.map((e) => e.path)).toContain('outputMode');
    expect(complete.errors.find((e) => e.path === 'outputMode')!.message).toMatch(/Complete output mode not supported when there are no streaming aggregations/);
    const files = validateJob({ ...good, outputMode: 'update', sink: { type: 'files', options: { path: '/tmp/x' } } });
    expect(files.errors).toEqual([expect.objectContaining({ path: 'outputMode', message: expect.stringMatching(/^Invalid streaming output mode: update\. This output mode is not supported in Data Source files\. The files sink takes Append output mode/), errorClass: 'STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE' })]);
  });

  it('reports an unknown column first and in every output mode, and judges the mode only on a query that analyses', () => {
    const events = { ...good, source: { ...good.source, name: 'events' } };
    for (const outputMode of ['append', 'update', 'complete'] as const) {
      const r = validateJob({ ...events, outputMode, sql: 'SELECT usr, count(*) FROM events GROUP BY usr' });
      expect(r.ok, outputMode).toBe(false);
      // At GROUP BY's `usr`, which is resolved first (Spark's order: the grouping expressions, then the select list).
      expect(r.errors[0], outputMode).toMatchObject({ path: 'sql', line: 1, column: 43 });
      expect(r.errors[0].message, outputMode).toMatch(/Column "usr" does not exist/);
      // No claim about aggregations (or their absence) from a query that did not analyse.
      expect(r.errors.filter((e) => e.path === 'outputMode'), outputMode).toEqual([]);
    }
    // Once the query analyses, the mode's legality is judged: Append without a watermark key fails.
    const grouped = validateJob({ ...events, outputMode: 'append', sql: 'SELECT a, count(*) FROM events GROUP BY a' });
    expect(grouped.errors).toEqual([expect.objectContaining({ path: 'outputMode', message: expect.stringMatching(/Append output mode not supported/) })]);
    expect(validateJob({ ...events, outputMode: 'complete', sql: 'SELECT a, count(*) FROM events GROUP BY a' }).ok).toBe(true);
  });

  it('words every field error plainly, never in zod’s developer wording', () => {
    const r = validateJob({ ...good, sql: '', source: { ...good.source, options: {} }, sink: { type: 'files', options: { path: '', format: 'xml' } }, extra: 1 });
    const by = (path: string) => r.errors.find((e) => e.path === path)?.message;
    expect(by('sql')).toBe('must not be empty');
    expect(by('source.options.stream')).toBe('is required');
    expect(by('sink.options.path')).toBe('must not be empty');
    expect(by('sink.options.format')).toMatch(/^must be one of: .*json.*csv/);
    expect(by('(root)')).toBe('unknown field "extra": remove it or check the spelling');
    for (const e of r.errors) expect(e.message).not.toMatch(/Too small|Invalid input|Invalid option|Unrecognized key|expected string/);
  });

  it('reports JSON syntax errors with line and column', () => {
    const r = validateJob('{\n  "name": "x",\n  "sql": oops\n}');
    expect(r.ok).toBe(false);
    expect(r.errors[0]).toMatchObject({ path: '(root)', line: 3 });
    expect(r.errors[0].message).toMatch(/not valid JSON/);
  });

  it('flags an at-least-once sink in warnings and the contract', () => {
    const r = validateJob({ ...good, sink: { type: 'console', options: {} } });
    expect(r.ok).toBe(true);
    expect(r.contract!.guarantee).toBe('at-least-once');
    expect(r.warnings.find((w) => w.path === 'sink.type')!.message).toMatch(/At-least-once/);
  });
});

describe('parseDuration', () => {
  it('reads Spark-style durations', () => {
    expect(parseDuration('5 seconds')).toBe(5000);
    expect(parseDuration('1 minute')).toBe(60_000);
    expect(parseDuration('250 ms')).toBe(250);
    expect(parseDuration('1.5 s')).toBe(1500);
    expect(parseDuration('2 hours')).toBe(7_200_000);
    expect(parseDuration('0')).toBe(0);
    expect(parseDuration('soon')).toBeNull();
    expect(parseDuration('5 fortnights')).toBeNull();
  });
});

describe('jsonErrorOffset', () => {
  it('is -1 exactly when JSON.parse accepts the text (property), else points inside the text', async () => {
    const fc = (await import('fast-check')).default;
    const { jsonErrorOffset } = await import('./validate-job');
    const valid = (s: string) => {
      try {
        JSON.parse(s);
        return true;
      } catch {
        return false;
      }
    };
    fc.assert(
      fc.property(fc.json(), fc.nat(), fc.constantFrom('', ',', '}', '"', 'x', ':', ']'), (j, at, junk) => {
        const pos = at % (j.length + 1);
        const text = j.slice(0, pos) + junk + j.slice(pos);
        const off = jsonErrorOffset(text);
        expect(off === -1).toBe(valid(text));
        if (off !== -1) expect(off).toBeLessThanOrEqual(text.length);
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it("gives Spark's error class with each rejection Spark has one for, and no false second error", () => {
    const events = { ...good.source, name: 'events', schema: [{ name: 'value', type: 'long' }, { name: 'ts', type: 'timestamp' }] };
    const distinct = validateJob({ ...good, source: events, outputMode: 'complete', sql: 'SELECT DISTINCT count(*) AS n FROM events GROUP BY value' });
    expect(distinct.errors).toEqual([
      // Spark 3.5+: the Distinct over the Aggregate, refused outside Append (the mode is the fix).
      expect.objectContaining({ path: 'outputMode', errorClass: '_LEGACY_ERROR_TEMP_3102', message: expect.stringMatching(/^Detected pattern of possible 'correctness' issue due to global watermark/) }),
    ]);
    const complete = validateJob({ ...good, outputMode: 'complete' });
    expect(complete.errors).toEqual([expect.objectContaining({ path: 'outputMode', errorClass: '_LEGACY_ERROR_TEMP_3102' })]);
    const over = validateJob({ ...good, sql: 'SELECT a, rank() OVER (ORDER BY a) FROM src' });
    expect(over.errors).toEqual([expect.objectContaining({ path: 'sql', line: 1, column: 11, errorClass: 'NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING' })]);
  });
});
