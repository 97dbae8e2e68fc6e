// Spark's Kafka source has fixed columns: a Spark user never lists them, so a Kafka job spec
// with no source.schema gets them (key and value BINARY, topic STRING, partition INT, offset
// BIGINT, timestamp TIMESTAMP, timestampType INT, headers with includeHeaders), in validation,
// the preview over a pasted sample, and a run. No broker is needed to validate or preview.
import { describe, expect, it } from 'vitest';
import '../index';
import { checkStateCompatibility, compileStreamingQuery, IncompatibleQueryChangeError, InMemoryCheckpointFileManager, parseJobSpec, previewQuery, validateJob, type JobSpec } from '../../engine';

const kafkaSpec = (sql: string, options: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  name: 'kafka-no-schema',
  source: { name: 'orders', type: 'kafka', options: { bootstrapServers: '10.1.2.3:9092', subscribe: 'orders', ...options } },
  sql,
  sink: { type: 'console', options: {} },
  trigger: { type: 'available-now' },
  checkpointLocation: 'memory://kafka-no-schema',
  ...extra,
});

// Spark's KafkaRecordToRowConverter.kafkaSchema, by Spark's type names.
const SPARK_COLUMNS = [
  ['key', 'binary'], ['value', 'binary'], ['topic', 'string'], ['partition', 'int'],
  ['offset', 'bigint'], ['timestamp', 'timestamp'], ['timestampType', 'int'],
];

describe('a kafka source with no source.schema', () => {
  it("has Spark's fixed columns, in Spark's order", () => {
    const v = validateJob(kafkaSpec('SELECT * FROM orders'));
    expect(v.errors).toEqual([]);
    expect(v.outputColumns!.map((f) => [f.name, f.type])).toEqual(SPARK_COLUMNS);
    const parsed = parseJobSpec(kafkaSpec('SELECT * FROM orders'));
    expect(parsed.ok && parsed.spec.source.schema.map((f) => f.name)).toEqual(SPARK_COLUMNS.map(([n]) => n));
  });

  it('adds headers only with includeHeaders, given as Spark writes it (the string "true")', () => {
    const withHeaders = validateJob(kafkaSpec('SELECT offset, headers FROM orders', { includeHeaders: 'true' }));
    expect(withHeaders.errors).toEqual([]);
    expect(withHeaders.outputColumns!.map((f) => [f.name, f.type])).toEqual([['offset', 'bigint'], ['headers', 'array<struct<key:string,value:binary>>']]);
    // Read as Spark users read them: a header's value by its key.
    const byKey = validateJob(kafkaSpec("SELECT CAST(filter(headers, h -> h.key = 'trace')[0].value AS STRING) AS trace FROM orders", { includeHeaders: 'true' }));
    expect(byKey.errors).toEqual([]);
    // Listed as a STRING, as Weir gave it before, it is taken (its JSON text).
    const listed = validateJob({ ...kafkaSpec('SELECT headers FROM orders', { includeHeaders: 'true' }), source: { ...kafkaSpec('', { includeHeaders: 'true' }).source, schema: 'offset BIGINT, headers STRING' } });
    expect(listed.errors).toEqual([]);
    expect(listed.outputColumns).toEqual([{ name: 'headers', type: 'string' }]);
    const without = validateJob(kafkaSpec('SELECT headers FROM orders'));
    expect(without.ok).toBe(false);
    expect(without.errors[0]).toMatchObject({ path: 'sql' });
    expect(without.errors[0].message).toMatch(/headers/);
  });

  it('takes a from_json job on value and a watermark on the column it derives', () => {
    const v = validateJob(kafkaSpec(
      "SELECT o.region, window(o.ts, '1 minute') AS w, count(*) AS n FROM (SELECT from_json(CAST(value AS STRING), 'region STRING, ts TIMESTAMP') AS o FROM orders) GROUP BY o.region, window(o.ts, '1 minute')",
      {},
      { outputMode: 'update' },
    ));
    expect(v.errors).toEqual([]);
    expect(v.outputSchema!.map((f) => f.name)).toEqual(['region', 'w', 'n']);
  });

  it('still checks a schema that is written, and the SQL when other fields are wrong', () => {
    const listed = validateJob({ ...kafkaSpec('SELECT value FROM orders'), source: { ...kafkaSpec('').source, schema: [{ name: 'payload', type: 'string' }] } });
    expect(listed.errors).toContainEqual(expect.objectContaining({ path: 'source.schema', message: expect.stringMatching(/"payload" is not one of them/) }));
    // The sink is missing its options: the SQL is still analysed against Spark's columns.
    const broken = validateJob({ ...kafkaSpec('SELECT nope FROM orders'), sink: { type: 'kafka', options: {} } });
    expect(broken.errors.map((e) => e.path)).toContain('sql');
    expect(broken.errors.find((e) => e.path === 'sql')!.message).toMatch(/timestampType/);
  });

  it('another source with no schema is told to list its columns', () => {
    const v = validateJob({ ...kafkaSpec('SELECT 1 AS x FROM events'), source: { name: 'events', type: 'files', options: { path: '/tmp/weir-no-schema', format: 'json' } } });
    expect(v.errors).toContainEqual(expect.objectContaining({ path: 'source.schema', message: expect.stringMatching(/^is required: list the columns/) }));
  });

  it('previews a pasted sample (key and value as base64, as Spark\'s readers take binary)', async () => {
    const parsed = parseJobSpec(kafkaSpec('SELECT CAST(key AS STRING) AS k, CAST(value AS STRING) AS v, partition, offset FROM orders'));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const p = await previewQuery(parsed.spec, [{ key: b64('k1'), value: b64('{"id":1}'), topic: 'orders', partition: 2, offset: 7, timestamp: '2026-12-01T00:00:00Z', timestampType: 0 }]);
    expect(p.rows).toEqual([{ k: 'k1', v: '{"id":1}', partition: 2, offset: 7 }]);
  });

  it('is INT arithmetic on partition, as Spark: partition + 2147483647 wraps, typeof says int', async () => {
    const parsed = parseJobSpec(kafkaSpec('SELECT typeof(partition) AS t, typeof(timestampType) AS tt, partition + 2147483647 AS p FROM orders'));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const p = await previewQuery(parsed.spec, [{ key: null, value: null, topic: 'orders', partition: 1, offset: 0, timestamp: '2026-12-01T00:00:00Z', timestampType: 0 }]);
    expect(p.rows).toEqual([{ t: 'int', tt: 'int', p: -2147483648 }]);
  });

  it('still takes a schema that lists partition and timestampType as BIGINT (specs written when Weir gave them so)', () => {
    const listed = (schema: unknown) => validateJob({ ...kafkaSpec('SELECT partition, timestampType FROM orders'), source: { ...kafkaSpec('').source, schema } });
    const asLong = listed([{ name: 'partition', type: 'long' }, { name: 'timestampType', type: 'long' }]);
    expect(asLong.errors).toEqual([]);
    expect(asLong.outputColumns).toEqual([{ name: 'partition', type: 'bigint' }, { name: 'timestampType', type: 'bigint' }]);
    expect(listed('partition INT, timestampType INT').outputColumns).toEqual([{ name: 'partition', type: 'int' }, { name: 'timestampType', type: 'int' }]);
    const narrower = listed('partition SMALLINT, offset INT');
    expect(narrower.errors).toContainEqual(expect.objectContaining({ path: 'source.schema', message: "the kafka source's column partition is int, not smallint" }));
    expect(listed('offset INT').errors).toContainEqual(expect.objectContaining({ message: "the kafka source's column offset is bigint, not int" }));
  });

  it('restarts on state a BIGINT partition wrote: grouped by partition, max(timestampType), sum(partition)', async () => {
    const sql = 'SELECT partition, count(*) AS n, max(timestampType) AS tt, sum(partition) AS s FROM orders GROUP BY partition';
    const spec = (schema?: unknown): JobSpec => {
      const raw = kafkaSpec(sql, {}, { outputMode: 'complete' });
      const parsed = parseJobSpec(schema === undefined ? raw : { ...raw, source: { ...raw.source, schema } });
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
      return parsed.spec;
    };
    const operators = (s: JobSpec) =>
      compileStreamingQuery(s.sql, [{ kind: 'StreamingRelation', sourceName: s.source.name, schema: s.source.schema }], { outputMode: s.outputMode }).statefulOperators;
    const source = (s: JobSpec) => ({ type: s.source.type, options: s.source.options as Record<string, unknown> });
    // The checkpoint of a run from when the fixed columns were BIGINT (the old default, listed).
    const before = spec('key BINARY, value BINARY, topic STRING, partition BIGINT, offset BIGINT, timestamp TIMESTAMP, timestampType BIGINT');
    const fm = new InMemoryCheckpointFileManager();
    expect((await checkStateCompatibility(fm, operators(before), source(before))).created).toEqual([0]);
    await fm.createAtomic('commits/0', 'v1\n{"nextBatchWatermarkMs":0}');
    // As that Weir wrote the schema file: without the marker of a file compared by Spark's types
    // (this Weir's own file would refuse an INT key where the state's was a BIGINT, as Spark does).
    const { sparkTypes: _, ...older } = JSON.parse((await fm.read('state/0/_metadata/schema')).toString('utf8')) as Record<string, unknown>;
    await fm.createAtomic('state/0/_metadata/schema', JSON.stringify(older), { overwrite: true });
    // Today's default columns: the same state.
    const now = spec();
    expect(now.source.schema.find((f) => f.name === 'partition')).toMatchObject({ type: 'long', integral: 32 });
    expect((await checkStateCompatibility(fm, operators(now), source(now), { dryRun: true })).verified).toEqual([0]);
    // What the check is there for still fails: another grouping key.
    const changed = { ...now, sql: sql.replaceAll('GROUP BY partition', 'GROUP BY partition, topic').replace('SELECT partition', 'SELECT partition, topic') };
    await expect(checkStateCompatibility(fm, operators(changed), source(changed), { dryRun: true })).rejects.toBeInstanceOf(IncompatibleQueryChangeError);
  });
});
