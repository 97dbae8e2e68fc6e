// Spark's Kafka source has fixed columns: a Spark user never lists them, so a Kafka job spec
// with no source.schema gets them (key and value BINARY, topic STRING, partition, offset and
// timestampType BIGINT, timestamp TIMESTAMP, headers with includeHeaders), in validation, the
// preview over a pasted sample, and a run. No broker is needed to validate or preview.
import { describe, expect, it } from 'vitest';
import '../index';
import { parseJobSpec, previewQuery, validateJob } from '../../engine';

const kafkaSpec = (sql: string, options: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  name: 'kafka-no-schema',
  source: { name: 'orders', type: 'kafka', options: { bootstrapServers: '10.1.2.3:9092', subscribe: 'orders', ...options } },
  sql,
  sink: { type: 'console', options: {} },
  trigger: { type: 'available-now' },
  checkpointLocation: 'memory://kafka-no-schema',
  ...extra,
});

const SPARK_COLUMNS = [
  ['key', 'binary'], ['value', 'binary'], ['topic', 'string'], ['partition', 'long'],
  ['offset', 'long'], ['timestamp', 'timestamp'], ['timestampType', 'long'],
];

describe('a kafka source with no source.schema', () => {
  it("has Spark's fixed columns, in Spark's order", () => {
    const v = validateJob(kafkaSpec('SELECT * FROM orders'));
    expect(v.errors).toEqual([]);
    expect(v.outputSchema!.map((f) => [f.name, f.type])).toEqual(SPARK_COLUMNS);
    const parsed = parseJobSpec(kafkaSpec('SELECT * FROM orders'));
    expect(parsed.ok && parsed.spec.source.schema.map((f) => f.name)).toEqual(SPARK_COLUMNS.map(([n]) => n));
  });

  it('adds headers only with includeHeaders, given as Spark writes it (the string "true")', () => {
    const withHeaders = validateJob(kafkaSpec('SELECT offset, headers FROM orders', { includeHeaders: 'true' }));
    expect(withHeaders.errors).toEqual([]);
    expect(withHeaders.outputSchema!.map((f) => [f.name, f.type])).toEqual([['offset', 'long'], ['headers', 'string']]);
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
});
