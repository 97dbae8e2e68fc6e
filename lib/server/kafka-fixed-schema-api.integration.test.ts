/**
 * A Kafka job spec with no source.schema, as a Spark user writes one, through the real API
 * (route handlers, a real database, the bounded preview process): validation analyses it against
 * Spark's Kafka columns, the editor's draft check completes them, a preview runs over a pasted
 * sample, and the job is stored as written (no schema added) and validates again when read back.
 * Nothing connects to a broker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupApiTestKit, type ApiTestKit } from './testing/api-test-kit';

let kit: ApiTestKit;
let jobs: typeof import('@/app/api/jobs/route');
let job: typeof import('@/app/api/jobs/[id]/route');
let validate: typeof import('@/app/api/jobs/validate/route');
let draftCheck: typeof import('@/app/api/jobs/draft-check/route');
let preview: typeof import('@/app/api/jobs/preview/route');
const dir = '/tmp/weir-kafka-fixed-schema-api-test';

beforeAll(async () => {
  kit = await setupApiTestKit();
  jobs = await import('@/app/api/jobs/route');
  job = await import('@/app/api/jobs/[id]/route');
  validate = await import('@/app/api/jobs/validate/route');
  draftCheck = await import('@/app/api/jobs/draft-check/route');
  preview = await import('@/app/api/jobs/preview/route');
});
afterAll(async () => kit?.teardown());

const spec = (sql: string) => ({
  name: 'kafka-no-schema-api',
  source: { name: 'orders', type: 'kafka', options: { 'kafka.bootstrap.servers': '10.1.2.3:9092', subscribe: 'orders', includeHeaders: 'true' } },
  sql,
  sink: { type: 'files', options: { path: `${dir}/out`, format: 'json' } },
  trigger: { type: 'available-now' },
});

describe('a Kafka job with no source.schema through the API', () => {
  it("validates against Spark's columns and the draft check completes them", async () => {
    const v = await kit.call(validate.POST, '/api/jobs/validate', { method: 'POST', token: kit.tokens.viewer, body: { spec: spec('SELECT topic, partition, offset, headers FROM orders') } });
    expect(v.status).toBe(200);
    expect(v.body.errors).toEqual([]);
    expect(v.body.outputSchema.map((f: { name: string; type: string }) => `${f.name} ${f.type}`)).toEqual(['topic string', 'partition long', 'offset long', 'headers array']);
    expect(v.body.outputColumns.map((f: { name: string; type: string }) => `${f.name}: ${f.type}`)).toEqual(['topic: string', 'partition: int', 'offset: bigint', 'headers: array<struct<key:string,value:binary>>']);
    // The editor completes the columns while the SQL is still being typed (and does not analyse).
    const d = await kit.call(draftCheck.POST, '/api/jobs/draft-check', { method: 'POST', token: kit.tokens.viewer, body: { spec: spec('SELECT FROM orders') } });
    expect(d.status).toBe(200);
    expect(d.body.completion.relations.map((r: { name: string }) => r.name)).toEqual(['orders']);
    expect(d.body.completion.relations[0].columns.map((c: { name: string }) => c.name)).toEqual(['key', 'value', 'topic', 'partition', 'offset', 'timestamp', 'timestampType', 'headers']);
  });

  it('previews a pasted sample', async () => {
    const sample = [{ key: Buffer.from('k1').toString('base64'), value: Buffer.from('{"id":7}').toString('base64'), topic: 'orders', partition: 1, offset: 41, timestamp: '2026-12-01T10:00:00Z', timestampType: 0, headers: [{ key: 'trace', value: Buffer.from('t-1').toString('base64') }] }];
    const p = await kit.call(preview.POST, '/api/jobs/preview', { method: 'POST', token: kit.tokens.viewer, body: { spec: spec("SELECT get_json_object(CAST(value AS STRING), '$.id') AS id, offset, CAST(headers[0].value AS STRING) AS trace FROM orders"), sample } });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    expect(p.body.rows).toEqual([{ id: '7', offset: 41, trace: 't-1' }]);
  });

  it('stores the spec as written and reads it back valid', async () => {
    const created = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: { spec: spec('SELECT CAST(value AS STRING) AS v, timestamp FROM orders') } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.job.id;
    const stored = (await kit.db.job.findUniqueOrThrow({ where: { id } })).spec as { source: Record<string, unknown> };
    expect(stored.source).not.toHaveProperty('schema');
    const read = await kit.call(job.GET, `/api/jobs/${id}`, { token: kit.tokens.viewer, params: { id } });
    const again = await kit.call(validate.POST, '/api/jobs/validate', { method: 'POST', token: kit.tokens.viewer, body: { spec: read.body.spec } });
    expect(again.body.errors).toEqual([]);
  });
});
