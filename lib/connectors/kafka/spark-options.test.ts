// A Spark job's Kafka options map pasted into a job spec: Spark's names and string values are
// taken and rewritten into Weir's names (canonicalJobSpec: what the control plane stores); what
// Weir cannot honour, and anything misspelled, is refused naming the option. No broker is
// needed: this is validation only (kafka-cli.integration.test.ts runs such a spec on the mock cluster).
import { describe, expect, it } from 'vitest';
import { canonicalJobSpec, parseJobSpec } from '../../engine';
import '../index';

const spec = (options: Record<string, unknown>, sinkOptions?: Record<string, unknown>) => ({
  name: 'spark-options',
  source: { name: 'src', type: 'kafka', options, schema: [{ name: 'value', type: 'binary' }] },
  sql: 'SELECT value FROM src',
  sink: sinkOptions ? { type: 'kafka', options: sinkOptions } : { type: 'console', options: {} },
  trigger: { type: 'available-now' },
  checkpointLocation: '/tmp/weir-spark-options-cp',
});

function sourceOptions(options: Record<string, unknown>): Record<string, unknown> {
  const r = parseJobSpec(spec(options));
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.spec.source.options;
}

function errors(options: Record<string, unknown>, sinkOptions?: Record<string, unknown>): Record<string, string> {
  const r = parseJobSpec(spec(options, sinkOptions));
  if (r.ok) throw new Error('accepted');
  return Object.fromEntries(r.errors.map((e) => [e.path, e.message]));
}

const JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="pa\\"ss;word";';

describe('Spark Kafka options in a job spec', () => {
  it('takes a Spark options map as written: kafka.-prefixed client settings, string values, any case', () => {
    const o = sourceOptions({
      'kafka.bootstrap.servers': 'b1:9092,b2:9092',
      subscribe: 'orders',
      startingOffsets: 'earliest',
      maxOffsetsPerTrigger: '10',
      failOnDataLoss: 'false',
      includeheaders: 'TRUE',
      'kafka.security.protocol': 'SASL_SSL',
      'kafka.sasl.jaas.config': JAAS,
      'kafka.group.id': 'spark-reader',
      groupIdPrefix: 'spark-kafka-source',
      'kafka.request.timeout.ms': '45000',
      'kafka.client.id': 'orders-job',
    });
    expect(o).toMatchObject({
      bootstrapServers: 'b1:9092,b2:9092',
      maxOffsetsPerTrigger: 10,
      failOnDataLoss: false,
      includeHeaders: true,
      securityProtocol: 'SASL_SSL',
      saslMechanism: 'PLAIN',
      saslUsername: 'alice',
      saslPassword: 'pa"ss;word',
      groupId: 'spark-reader',
      groupIdPrefix: 'spark-kafka-source',
      requestTimeoutMs: 45000,
      clientId: 'orders-job',
    });
    expect(Object.keys(o).some((k) => k.startsWith('kafka.'))).toBe(false);
  });

  it("maxOffsetsPerTrigger as Spark's Long.MaxValue string means no limit; one past it is refused", () => {
    expect(sourceOptions({ bootstrapServers: 'b:1', subscribe: 't', maxOffsetsPerTrigger: '9223372036854775807' }).maxOffsetsPerTrigger).toBeUndefined();
    expect(errors({ bootstrapServers: 'b:1', subscribe: 't', maxOffsetsPerTrigger: '9223372036854775808' })['source.options.maxOffsetsPerTrigger']).toMatch(/number/);
  });

  it('stores the canonical form: Weir names and typed values, the password where masking finds it', () => {
    const raw = spec({ 'kafka.bootstrap.servers': 'b:1', subscribe: 't', failOnDataLoss: 'false', 'kafka.security.protocol': 'SASL_PLAINTEXT', 'kafka.sasl.mechanism': 'SCRAM-SHA-512', 'kafka.sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="p";' });
    const c = canonicalJobSpec(raw) as { source: { options: Record<string, unknown> } };
    expect(c.source.options).toEqual({ bootstrapServers: 'b:1', subscribe: 't', failOnDataLoss: false, securityProtocol: 'SASL_PLAINTEXT', saslMechanism: 'SCRAM-SHA-512', saslUsername: 'u', saslPassword: 'p' });
    // Already canonical: unchanged; a spec with a refused option is left for validation to report.
    expect(canonicalJobSpec(c as Record<string, unknown>)).toEqual(c);
    const refused = spec({ bootstrapServers: 'b:1', subscribe: 't', minPartitions: '4' });
    expect(canonicalJobSpec(refused)).toEqual(refused);
  });

  it('refuses what Weir cannot honour with the reason and what to do, and still refuses misspellings', () => {
    const e = errors({
      'kafka.bootstrap.servers': 'b:1',
      subscribe: 't',
      minPartitions: '10',
      minOffsetsPerTrigger: '100',
      maxTriggerDelay: '15m',
      'kafka.auto.offset.reset': 'earliest',
      'kafka.ssl.truststore.location': '/etc/kafka/truststore.jks',
      'kafka.fetch.min.bytes': '1',
      maxOffsetPerTrigger: 10,
    });
    expect(e['source.options.minPartitions']).toMatch(/one task.*remove it/);
    expect(e['source.options.minOffsetsPerTrigger']).toMatch(/do not defer a batch.*processing-time trigger/);
    expect(e['source.options.maxTriggerDelay']).toMatch(/goes with minOffsetsPerTrigger/);
    expect(e['source.options.kafka.auto.offset.reset']).toMatch(/Instead set the source option 'startingOffsets'/);
    expect(e['source.options.kafka.ssl.truststore.location']).toMatch(/PEM/);
    expect(e['source.options.kafka.fetch.min.bytes']).toMatch(/Kafka client setting Weir does not take.*kafka\.bootstrap\.servers/);
    expect(e['source.options']).toMatch(/unknown field "maxOffsetPerTrigger"/);
  });

  it('refuses one option given twice under two names, and a JAAS line it cannot use, without echoing the line', () => {
    const twice = errors({ bootstrapServers: 'a:1', 'kafka.bootstrap.servers': 'b:1', subscribe: 't' });
    expect(twice['source.options.kafka.bootstrap.servers']).toMatch(/bootstrapServers.*keep one/);
    const kerberos = errors({ bootstrapServers: 'a:1', subscribe: 't', 'kafka.security.protocol': 'SASL_SSL', 'kafka.sasl.jaas.config': 'com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab="/k" principal="me@X";' });
    expect(kerberos['source.options.kafka.sasl.jaas.config']).toMatch(/Krb5LoginModule; Weir takes SASL PLAIN and SCRAM/);
    const noPassword = errors({ bootstrapServers: 'a:1', subscribe: 't', 'kafka.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required username="secret-user";' });
    expect(noPassword['source.options.kafka.sasl.jaas.config']).toMatch(/no username.*password/);
    expect(JSON.stringify(noPassword)).not.toContain('secret-user');
  });

  it('the Kafka sink takes kafka.bootstrap.servers and string numbers too; a source-only setting is refused there', () => {
    const r = parseJobSpec(spec({ bootstrapServers: 'a:1', subscribe: 't' }, { 'kafka.bootstrap.servers': 'b:1', topic: 'out', acks: '1' }));
    expect(r.ok && r.spec.sink.options).toMatchObject({ bootstrapServers: 'b:1', topic: 'out', acks: 1 });
    expect(errors({ bootstrapServers: 'a:1', subscribe: 't' }, { 'kafka.bootstrap.servers': 'b:1', 'kafka.group.id': 'g' })['sink.options.kafka.group.id']).toMatch(/does not take/);
  });
  it("takes the schema registry's settings as Confluent, ABRiS and Databricks spell them", () => {
    const base = { 'kafka.bootstrap.servers': 'b1:9092', subscribe: 'orders', valueAvroSchema: '"long"' };
    for (const prefix of ['', 'schema.registry.', 'confluent.schema.registry.']) {
      const o = sourceOptions({ ...base, 'schema.registry.url': 'http://registry:8081', [`${prefix}basic.auth.credentials.source`]: 'USER_INFO', [`${prefix}basic.auth.user.info`]: 'svc:pw' });
      expect(o).toMatchObject({ schemaRegistryUrl: 'http://registry:8081', basicAuthCredentialsSource: 'USER_INFO', basicAuthUserInfo: 'svc:pw' });
      expect(Object.keys(o).filter((k) => k.includes('.'))).toEqual([]);
    }
    expect(errors({ ...base, schemaRegistryUrl: 'http://registry:8081', basicAuthUserInfo: 'a:b', 'basic.auth.user.info': 'a:b' })).toMatchObject({ 'source.options.basic.auth.user.info': expect.stringMatching(/gives basicAuthUserInfo, which basicAuthUserInfo gives already/) });
  });
});
