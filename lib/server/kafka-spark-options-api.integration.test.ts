/**
 * A Kafka source's options written as a Spark job writes them, through the real API (route
 * handlers, a real database): the job is stored and shown in Weir's names only, with the
 * password that was inside kafka.sasl.jaas.config stored as saslPassword and masked on every
 * read. Validation only: nothing connects to a broker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupApiTestKit, type ApiTestKit } from './testing/api-test-kit';

let kit: ApiTestKit;
let jobs: typeof import('@/app/api/jobs/route');
let job: typeof import('@/app/api/jobs/[id]/route');
const dir = '/tmp/weir-kafka-spark-options-api-test';

beforeAll(async () => {
  kit = await setupApiTestKit();
  jobs = await import('@/app/api/jobs/route');
  job = await import('@/app/api/jobs/[id]/route');
});
afterAll(async () => kit?.teardown());

const PASSWORD = 'jaas-Pa55word-1';

describe("POST /api/jobs with Spark's Kafka option spellings", () => {
  it('stores and shows one canonical form, the JAAS password as a masked saslPassword; an edit round-trip keeps it', async () => {
    const spec = {
      name: 'spark-kafka-options',
      source: {
        name: 'orders', type: 'kafka', schema: [{ name: 'value', type: 'binary' }],
        options: {
          'kafka.bootstrap.servers': '10.1.2.3:9092', subscribe: 'orders', maxOffsetsPerTrigger: '500', failOnDataLoss: 'false',
          'kafka.security.protocol': 'SASL_PLAINTEXT',
          'kafka.sasl.jaas.config': `org.apache.kafka.common.security.plain.PlainLoginModule required username="reader" password="${PASSWORD}";`,
        },
      },
      sql: 'SELECT CAST(value AS STRING) AS v FROM orders',
      sink: { type: 'files', options: { path: `${dir}/out`, format: 'json' } },
      trigger: { type: 'available-now' },
    };
    const created = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: { spec } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.job.id;
    const stored = (await kit.db.job.findUniqueOrThrow({ where: { id } })).spec as { source: { options: Record<string, unknown> } };
    expect(stored.source.options).toEqual({
      bootstrapServers: '10.1.2.3:9092', subscribe: 'orders', maxOffsetsPerTrigger: 500, failOnDataLoss: false,
      securityProtocol: 'SASL_PLAINTEXT', saslMechanism: 'PLAIN', saslUsername: 'reader', saslPassword: PASSWORD,
    });
    const read = await kit.call(job.GET, `/api/jobs/${id}`, { token: kit.tokens.viewer, params: { id } });
    expect(read.body.spec.source.options.saslPassword).toBe('********');
    expect(JSON.stringify([created.body, read.body])).not.toContain(PASSWORD);
    const put = await kit.call(job.PUT, `/api/jobs/${id}`, { method: 'PUT', token: kit.tokens.admin, params: { id }, body: { spec: { ...read.body.spec, sql: 'SELECT CAST(value AS STRING) AS w FROM orders' } } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const after = (await kit.db.job.findUniqueOrThrow({ where: { id } })).spec as { source: { options: Record<string, unknown> } };
    expect(after.source.options.saslPassword).toBe(PASSWORD);
  });

  it('refuses an option Weir cannot honour with 422 naming it', async () => {
    const res = await kit.call(jobs.POST, '/api/jobs', {
      method: 'POST', token: kit.tokens.admin,
      body: { spec: { name: 'spark-kafka-refused', source: { name: 'o', type: 'kafka', schema: [{ name: 'value', type: 'binary' }], options: { 'kafka.bootstrap.servers': '10.1.2.3:9092', subscribe: 'o', minPartitions: '8' } }, sql: 'SELECT value FROM o', sink: { type: 'files', options: { path: `${dir}/out2`, format: 'json' } }, trigger: { type: 'available-now' } } },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.details.errors).toContainEqual(expect.objectContaining({ path: 'source.options.minPartitions', message: expect.stringMatching(/one task/) }));
  });
});
