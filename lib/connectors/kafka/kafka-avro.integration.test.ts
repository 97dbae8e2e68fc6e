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
import { frameConfluent, unframeConfluent } from './schema-registry';
import { createKafka, kafkaClusterOptions } from './client';
import { schemaRegistryClientOptions } from './confluent-avro';
import { PartitionReader, type FetchedRecord } from './fetch';
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

/** A topic's records with their keys and values as bytes, partition by partition. */
async function readKafkaTopicRaw(topic: string): Promise<FetchedRecord[]> {
  const o = { bootstrapServers: broker.bootstrapServers, securityProtocol: 'PLAINTEXT' as const, clientId: 'weir-test', requestTimeoutMs: 30_000 };
  const admin = createKafka(o, outboundPolicy()).admin();
  const reader = new PartitionReader(kafkaClusterOptions(o, outboundPolicy()), 1 << 20);
  await admin.connect();
  try {
    const out: FetchedRecord[] = [];
    for (const p of await admin.fetchTopicOffsets(topic)) out.push(...(await reader.read(topic, p.partition, Number(p.low), Number(p.high))).records);
    return out;
  } finally {
    await Promise.allSettled([admin.disconnect(), reader.close()]);
  }
}

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

  it('frames keys as well as values, through a registry that wants HTTP Basic credentials (Confluent\'s spellings)', async () => {
    const topic = `avro-keyed-${process.pid}`;
    const KEY = { type: 'record', name: 'UserKey', fields: [{ name: 'tenant', type: 'string' }, { name: 'id', type: 'long' }] };
    const OUT_KEY = { type: 'record', name: 'OutKey', fields: [{ name: 'id', type: 'long' }] };
    const k = reg.register(`${topic}-key`, KEY);
    const v = reg.register(`${topic}-value`, USER_V2);
    const kt = avro.Type.forSchema(KEY as avro.Schema);
    const vt = avro.Type.forSchema(USER_V2 as avro.Schema);
    await produce(broker.bootstrapServers, topic, [
      { key: frameConfluent(k, kt.toBuffer({ tenant: 'acme', id: 7 })), value: frameConfluent(v, vt.toBuffer({ id: 7, email: 'g@x', country: 'FR' })), partition: 0 },
      // A key without Confluent's header: a bad record, even though its value reads.
      { key: 'plain-key', value: frameConfluent(v, vt.toBuffer({ id: 8, email: 'h@x', country: 'BE' })), partition: 0 },
      { key: frameConfluent(k, kt.toBuffer({ tenant: 'initech', id: 9 })), value: frameConfluent(v, vt.toBuffer({ id: 9, email: 'i@x', country: 'IT' })), partition: 0 },
    ]);
    const out = `${topic}-out`;
    // Confluent's and ABRiS's spellings of the registry's address and credentials.
    const registry = { 'schema.registry.url': reg.url, 'basic.auth.credentials.source': 'USER_INFO', 'basic.auth.user.info': 'weir:p@ss:word' };
    reg.basicAuth = 'weir:p@ss:word';
    try {
      await run({
        name: 'avro-keyed',
        source: {
          name: 'users', type: 'kafka',
          options: { bootstrapServers: broker.bootstrapServers, subscribe: topic, startingOffsets: 'earliest', ...registry, keyAvroSchema: JSON.stringify(KEY), valueAvroSchema: JSON.stringify(USER_V2) },
          onBadRecord: 'dead-letter', badRecordsPath: path.join(dir, 'bad-keyed'),
        },
        sql: `SELECT to_avro(named_struct('id', k.id), ${sqlText(OUT_KEY)}) AS key, to_avro(named_struct('id', u.id, 'country', concat(k.tenant, '/', u.country)), ${sqlText(OUT)}) AS value
          FROM (SELECT from_avro(key, ${sqlText(KEY)}) AS k, from_avro(value, ${sqlText(USER_V2)}) AS u FROM users)`,
        sink: { type: 'kafka', options: { bootstrapServers: broker.bootstrapServers, topic: out, ...registry, keySubject: `${out}-key`, keyAvroSchema: JSON.stringify(OUT_KEY), valueSubject: `${out}-value`, valueAvroSchema: JSON.stringify(OUT) } },
        trigger: { type: 'available-now' },
        checkpointLocation: path.join(dir, 'cp-keyed'),
      });
    } finally {
      reg.basicAuth = null;
    }
    const badFiles = await readdir(path.join(dir, 'bad-keyed'), { recursive: true });
    const bad = (await Promise.all(badFiles.filter((f) => f.endsWith('.jsonl')).map((f) => readFile(path.join(dir, 'bad-keyed', f), 'utf8')))).join('');
    expect(bad).toContain("the key is not in Confluent's wire format");
    expect(bad).not.toContain('"id":9');

    // Each written key and value carries its own subject's schema id, read back by the ids the registry gave.
    const records = await readKafkaTopicRaw(out);
    expect(records).toHaveLength(2);
    const keyId = reg.register(`${out}-key`, OUT_KEY);
    const valueId = reg.register(`${out}-value`, OUT);
    expect(keyId).not.toBe(valueId);
    const ok = avro.Type.forSchema(OUT_KEY as avro.Schema);
    const ov = avro.Type.forSchema(OUT as avro.Schema);
    const decoded = records.map((r) => {
      const kf = unframeConfluent(r.key!);
      const vf = unframeConfluent(r.value!);
      if (typeof kf === 'string' || typeof vf === 'string') throw new Error('not framed');
      return [kf.id, ok.fromBuffer(kf.payload), vf.id, ov.fromBuffer(vf.payload)];
    });
    expect(decoded.sort((a, b) => Number((a[1] as { id: number }).id) - Number((b[1] as { id: number }).id))).toEqual([
      [keyId, { id: 7 }, valueId, { id: 7, country: 'acme/FR' }],
      [keyId, { id: 9 }, valueId, { id: 9, country: 'initech/IT' }],
    ]);
  }, 180_000);

  it('refuses registry credentials that are misplaced, and takes SASL_INHERIT only with SASL credentials', () => {
    const src = (options: object) => parseJobSpec({ name: 'x', source: { name: 's', type: 'kafka', options: { bootstrapServers: '10.0.0.1:9092', subscribe: 't', schemaRegistryUrl: 'http://10.0.0.2:8081', valueAvroSchema: '"long"', ...options } }, sql: 'SELECT value FROM s', sink: { type: 'console' }, checkpointLocation: 'memory://x' });
    const errors = (r: ReturnType<typeof src>) => (r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`));
    expect(src({ basicAuthUserInfo: 'weir:pw' }).ok).toBe(true);
    expect(src({ keyAvroSchema: '"string"', valueAvroSchema: undefined }).ok).toBe(true);
    expect(errors(src({ basicAuthUserInfo: 'no-colon-secret' }))).toEqual([expect.stringMatching(/^source\.options\.basicAuthUserInfo: must be user:password/)]);
    expect(errors(src({ basicAuthUserInfo: 'no-colon-secret' })).join()).not.toContain('no-colon-secret');
    expect(errors(src({ basicAuthCredentialsSource: 'USER_INFO' }))).toEqual([expect.stringMatching(/basicAuthUserInfo: .*needs basicAuthUserInfo/)]);
    expect(errors(src({ schemaRegistryUrl: 'http://u:pw@10.0.0.2:8081' }))).toEqual([expect.stringMatching(/schemaRegistryUrl: has credentials in it.*basicAuthUserInfo/)]);
    expect(errors(src({ basicAuthCredentialsSource: 'URL' }))).toEqual([expect.stringMatching(/give USER_INFO with basicAuthUserInfo/)]);
    expect(errors(src({ basicAuthCredentialsSource: 'SASL_INHERIT' }))).toEqual([expect.stringMatching(/SASL_INHERIT sends the Kafka connection's saslUsername and saslPassword/)]);
    expect(src({ basicAuthCredentialsSource: 'SASL_INHERIT', securityProtocol: 'SASL_PLAINTEXT', saslMechanism: 'PLAIN', saslUsername: 'u', saslPassword: 'p' }).ok).toBe(true);
    // The credentials the registry client is given: the user is up to the first colon, as Confluent splits it.
    expect(schemaRegistryClientOptions({ schemaRegistryUrl: 'http://r', basicAuthUserInfo: 'svc:pa:ss' })).toEqual({ auth: { username: 'svc', password: 'pa:ss' } });
    expect(schemaRegistryClientOptions({ schemaRegistryUrl: 'http://r', basicAuthCredentialsSource: 'SASL_INHERIT', saslUsername: 'u', saslPassword: 'p' })).toEqual({ auth: { username: 'u', password: 'p' } });
    expect(schemaRegistryClientOptions({ schemaRegistryUrl: 'http://r' })).toEqual({});
    const noUrl = parseJobSpec({ name: 'x', source: { name: 's', type: 'kafka', options: { bootstrapServers: '10.0.0.1:9092', subscribe: 't', basicAuthUserInfo: 'a:b' } }, sql: 'SELECT value FROM s', sink: { type: 'console' }, checkpointLocation: 'memory://x' });
    expect(!noUrl.ok && noUrl.errors).toContainEqual(expect.objectContaining({ path: 'source.options.basicAuthUserInfo', message: expect.stringMatching(/read only with schemaRegistryUrl/) }));
    const sink = (options: object) => parseJobSpec({ name: 'x', source: { name: 's', type: 'rate', options: {}, schema: [{ name: 'value', type: 'long' }] }, sql: 'SELECT CAST(value AS STRING) AS value FROM s', sink: { type: 'kafka', options: { bootstrapServers: '10.0.0.1:9092', topic: 'o', ...options } }, checkpointLocation: 'memory://x' });
    expect(sink({ schemaRegistryUrl: 'http://10.0.0.2:8081', keySubject: 'o-key' }).ok).toBe(true);
    expect(sink({ keySubject: 'o-key' }).ok).toBe(false);
    const r = sink({ schemaRegistryUrl: 'http://10.0.0.2:8081', valueSubject: 'o-value', keyAvroSchema: '"string"' });
    expect(!r.ok && r.errors).toContainEqual(expect.objectContaining({ path: 'sink.options.keyAvroSchema', message: 'is read only with schemaRegistryUrl and keySubject' }));
  });

  it('refuses a registry without a reader schema, and a registry address the outbound policy refuses', () => {
    const spec = (options: object) => parseJobSpec({ name: 'x', source: { name: 's', type: 'kafka', options: { bootstrapServers: '10.0.0.1:9092', subscribe: 't', ...options } }, sql: 'SELECT value FROM s', sink: { type: 'console' }, checkpointLocation: 'memory://x' });
    const r = spec({ schemaRegistryUrl: 'http://10.0.0.2:8081' });
    expect(!r.ok && r.errors).toContainEqual(expect.objectContaining({ path: 'source.options.valueAvroSchema', message: expect.stringMatching(/give schemaRegistryUrl with valueAvroSchema \(or keyAvroSchema, or both\)/) }));
    expect(spec({ schemaRegistryUrl: 'ftp://x', valueAvroSchema: '"long"' }).ok).toBe(false);
    // The registry is a destination of the spec: checked by the outbound policy at validation.
    const v = validateJob({ name: 'x', source: { name: 's', type: 'kafka', options: { bootstrapServers: '10.0.0.1:9092', subscribe: 't', schemaRegistryUrl: 'http://169.254.169.254/', valueAvroSchema: '"long"' } }, sql: 'SELECT value FROM s', sink: { type: 'console' }, checkpointLocation: 'memory://x' }, { outbound: outboundPolicy() });
    expect(v.errors).toContainEqual(expect.objectContaining({ path: 'source.options.schemaRegistryUrl', message: expect.stringMatching(/refused|link-local|metadata/i) }));
  });
});
