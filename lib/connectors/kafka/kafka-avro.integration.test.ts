/**
 * Avro in Confluent's wire format through Kafka, end to end: librdkafka's mock cluster run by
 * kcat (testing/mock-broker.ts; not Apache Kafka) and a local FIXTURE schema registry
 * (testing/schema-registry-fixture.ts; not Confluent Schema Registry) serving the REST subset.
 *
 * A producer wrote values with two versions of a subject's schema (and one value without the
 * header). A job reads them with the registry into the newer schema (schema evolution by id:
 * the older values get the new field's default), parses them with Spark's from_avro, and writes
 * to_avro values to another topic through the registry (its schema registered, the values
 * framed with its id); a second job reads that topic back the same way.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import avro from 'avsc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../index';
import { MemorySinkTable, MicroBatchExecution, parseJobSpec, validateJob } from '../../engine';
import { outboundPolicy } from '../../engine/outbound/outbound-policy';
import { frameConfluent } from './schema-registry';
import { kcatAvailable, produce, startMockKafka, type MockKafkaBroker } from './testing/mock-broker';
import { startSchemaRegistryFixture, type SchemaRegistryFixture } from './testing/schema-registry-fixture';

const HAVE_KCAT = kcatAvailable();
const USER_V1 = { type: 'record', name: 'User', namespace: 'shop', fields: [{ name: 'id', type: 'long' }, { name: 'email', type: 'string' }] };
const USER_V2 = { type: 'record', name: 'User', namespace: 'shop', fields: [{ name: 'id', type: 'long' }, { name: 'email', type: 'string' }, { name: 'country', type: 'string', default: 'NL' }] };
const OUT = { type: 'record', name: 'UserCountry', fields: [{ name: 'id', type: 'long' }, { name: 'country', type: 'string' }] };
const sqlText = (o: object) => `'${JSON.stringify(o)}'`;

let broker: MockKafkaBroker;
let reg: SchemaRegistryFixture;
let dir: string;

beforeAll(async () => {
  if (!HAVE_KCAT) return;
  broker = await startMockKafka({ brokers: 1 });
  reg = await startSchemaRegistryFixture();
  dir = await mkdtemp(path.join(tmpdir(), 'weir-kafka-avro-'));
}, 120_000);
afterAll(async () => {
  await broker?.stop();
  await reg?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function run(spec: object): Promise<MicroBatchExecution> {
  const parsed = parseJobSpec(spec);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  const exec = new MicroBatchExecution({ spec: parsed.spec });
  await exec.run();
  return exec;
}

describe.skipIf(!HAVE_KCAT)('Kafka with Avro and a schema registry (mock cluster, fixture registry)', () => {
  it('reads two schema versions by id into one, and writes framed values another job reads back', async () => {
    const topic = `avro-users-${process.pid}`;
    const v1 = reg.register(`${topic}-value`, USER_V1);
    const v2 = reg.register(`${topic}-value`, USER_V2);
    const w1 = avro.Type.forSchema(USER_V1 as avro.Schema);
    const w2 = avro.Type.forSchema(USER_V2 as avro.Schema);
    await produce(broker.bootstrapServers, topic, [
      { value: frameConfluent(v1, w1.toBuffer({ id: 1, email: 'a@x' })), partition: 0 },
      { value: frameConfluent(v2, w2.toBuffer({ id: 2, email: 'b@x', country: 'DE' })), partition: 0 },
      { value: 'not avro', partition: 0 },
      { value: frameConfluent(v1, w1.toBuffer({ id: 3, email: 'c@x' })), partition: 0 },
    ]);
    const out = `${topic}-out`;
    await run({
      name: 'avro-in-out',
      source: {
        name: 'users', type: 'kafka',
        // As a Spark job with ABRiS writes the registry setting.
        options: { bootstrapServers: broker.bootstrapServers, subscribe: topic, startingOffsets: 'earliest', 'schema.registry.url': reg.url, valueAvroSchema: JSON.stringify(USER_V2) },
        onBadRecord: 'dead-letter', badRecordsPath: path.join(dir, 'bad'),
      },
      sql: `SELECT to_avro(named_struct('id', u.id, 'country', u.country), ${sqlText(OUT)}) AS value FROM (SELECT from_avro(value, ${sqlText(USER_V2)}) AS u FROM users)`,
      sink: { type: 'kafka', options: { bootstrapServers: broker.bootstrapServers, topic: out, schemaRegistryUrl: reg.url, valueSubject: `${out}-value`, valueAvroSchema: JSON.stringify(OUT) } },
      trigger: { type: 'available-now' },
      checkpointLocation: path.join(dir, 'cp1'),
    });
    // The writer schemas were fetched once per id; the sink registered its schema.
    expect(reg.requests.filter((r) => r.startsWith('GET /schemas/ids/')).sort()).toEqual([`GET /schemas/ids/${v1}`, `GET /schemas/ids/${v2}`]);
    expect(reg.requests).toContain(`POST /subjects/${out}-value/versions`);
    // The value without Confluent's header went to the dead letters, saying why.
    const badFiles = await readdir(path.join(dir, 'bad'), { recursive: true });
    const bad = (await Promise.all(badFiles.filter((f) => f.endsWith('.jsonl')).map((f) => readFile(path.join(dir, 'bad', f), 'utf8')))).join('');
    expect(bad).toContain("not in Confluent's wire format");

    const table = `avro-back-${process.pid}`;
    await run({
      name: 'avro-back',
      source: { name: 'o', type: 'kafka', options: { bootstrapServers: broker.bootstrapServers, subscribe: out, startingOffsets: 'earliest', schemaRegistryUrl: reg.url, valueAvroSchema: JSON.stringify(OUT) } },
      sql: `SELECT r.id AS id, r.country AS country FROM (SELECT from_avro(value, ${sqlText(OUT)}) AS r FROM o)`,
      sink: { type: 'memory', options: { table } },
      trigger: { type: 'available-now' },
      checkpointLocation: path.join(dir, 'cp2'),
    });
    // Users 1 and 3 were written with v1: read as v2 they get its default country.
    expect(MemorySinkTable.named(table).rows.map((r) => [r.id, r.country]).sort()).toEqual([[1, 'NL'], [2, 'DE'], [3, 'NL']]);
  }, 180_000);

  it('refuses a registry without a reader schema, and a registry address the outbound policy refuses', () => {
    const spec = (options: object) => parseJobSpec({ name: 'x', source: { name: 's', type: 'kafka', options: { bootstrapServers: '10.0.0.1:9092', subscribe: 't', ...options } }, sql: 'SELECT value FROM s', sink: { type: 'console' }, checkpointLocation: 'memory://x' });
    const r = spec({ schemaRegistryUrl: 'http://10.0.0.2:8081' });
    expect(!r.ok && r.errors).toContainEqual(expect.objectContaining({ path: 'source.options.valueAvroSchema', message: expect.stringMatching(/give schemaRegistryUrl and valueAvroSchema together/) }));
    expect(spec({ schemaRegistryUrl: 'ftp://x', valueAvroSchema: '"long"' }).ok).toBe(false);
    // The registry is a destination of the spec: checked by the outbound policy at validation.
    const v = validateJob({ name: 'x', source: { name: 's', type: 'kafka', options: { bootstrapServers: '10.0.0.1:9092', subscribe: 't', schemaRegistryUrl: 'http://169.254.169.254/', valueAvroSchema: '"long"' } }, sql: 'SELECT value FROM s', sink: { type: 'console' }, checkpointLocation: 'memory://x' }, { outbound: outboundPolicy() });
    expect(v.errors).toContainEqual(expect.objectContaining({ path: 'source.options.schemaRegistryUrl', message: expect.stringMatching(/refused|link-local|metadata/i) }));
  });
});
