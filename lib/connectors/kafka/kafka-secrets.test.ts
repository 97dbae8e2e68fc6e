// Kafka's secrets (saslPassword, sslKey, the schema registry's basicAuthUserInfo) are masked like every other secret, and a masked secret
// sent back is kept only while bootstrapServers points at the same brokers.
import { describe, expect, it } from 'vitest';
import { MASKED, maskSpec, unmaskSpec } from '../../server/secret-masking';

const spec = (servers: string) => ({
  name: 'k',
  source: {
    name: 'orders', type: 'kafka',
    options: { bootstrapServers: servers, subscribe: 'orders', securityProtocol: 'SASL_SSL', saslMechanism: 'SCRAM-SHA-512', saslUsername: 'weir', saslPassword: 'hunter2-secret', sslCert: 'CERT', sslKey: 'PRIVATE-KEY-PEM', schemaRegistryUrl: 'https://registry.example', basicAuthUserInfo: 'svc:registry-secret', valueAvroSchema: '"long"' },
    schema: [{ name: 'value', type: 'binary' }],
  },
  sql: 'SELECT value FROM orders',
  sink: { type: 'kafka', options: { bootstrapServers: servers, topic: 'out', securityProtocol: 'SASL_PLAINTEXT', saslMechanism: 'PLAIN', saslUsername: 'u', saslPassword: 'sink-password' } },
  checkpointLocation: '/tmp/cp',
});

describe('kafka secrets', () => {
  it('masks saslPassword and sslKey of the source and sink, and restores them for the same brokers only', () => {
    const stored = spec('b1.example:9092,b2.example:9092');
    const masked = maskSpec(stored);
    expect(masked.source.options).toMatchObject({ saslPassword: MASKED, sslKey: MASKED, basicAuthUserInfo: MASKED, saslUsername: 'weir', bootstrapServers: 'b1.example:9092,b2.example:9092' });
    expect(masked.sink.options.saslPassword).toBe(MASKED);
    expect(JSON.stringify(masked)).not.toMatch(/hunter2|PRIVATE-KEY|sink-password|registry-secret/);
    expect(unmaskSpec(masked, stored)).toEqual(stored);
    // The registry's credentials are kept only while the registry's address is the same.
    const registryMoved = { ...masked, source: { ...masked.source, options: { ...masked.source.options, schemaRegistryUrl: 'https://evil.example' } } };
    expect(() => unmaskSpec(registryMoved, stored)).toThrow(/source\.options\.schemaRegistryUrl now points at/);
    const moved = { ...masked, source: { ...masked.source, options: { ...masked.source.options, bootstrapServers: 'evil.example:9092' } } };
    expect(() => unmaskSpec(moved, stored)).toThrow(/source\.options\.bootstrapServers now points at kafka:\/\/evil\.example:9092/);
  });
});
