/**
 * The schema registry client against a local FIXTURE that serves the registry's REST subset
 * (testing/schema-registry-fixture.ts; not Confluent Schema Registry): ids, the latest version,
 * registration, one fetch per id, errors and timeouts said for the user, the outbound policy
 * before any request; and Confluent's 5-byte wire format.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AvroCodec } from '../../engine/avro/avro-codec';
import { outboundPolicy, parseAllowList } from '../../engine/outbound/outbound-policy';
import { frameConfluent, SchemaRegistryClient, unframeConfluent } from './schema-registry';
import { startSchemaRegistryFixture, type SchemaRegistryFixture } from './testing/schema-registry-fixture';

const USER_V1 = { type: 'record', name: 'User', fields: [{ name: 'id', type: 'long' }] };
const USER_V2 = { type: 'record', name: 'User', fields: [{ name: 'id', type: 'long' }, { name: 'country', type: 'string', default: 'NL' }] };
let reg: SchemaRegistryFixture;
const policy = outboundPolicy();

beforeAll(async () => {
  reg = await startSchemaRegistryFixture();
});
afterAll(async () => reg?.close());

describe('SchemaRegistryClient (against the fixture registry)', () => {
  it('registers, reads the latest version, and fetches a schema by id once', async () => {
    const client = new SchemaRegistryClient(reg.url, policy);
    const v1 = await client.register('users-value', AvroCodec.parse(JSON.stringify(USER_V1)) as AvroCodec);
    // Registering the same schema again answers the same id, as the registry does.
    expect(await client.register('users-value', AvroCodec.parse(JSON.stringify(USER_V1)) as AvroCodec)).toBe(v1);
    const v2 = reg.register('users-value', USER_V2);
    const latest = await client.latest('users-value');
    expect(latest).toMatchObject({ id: v2, version: 2 });
    expect(latest.codec.field.fields!.map((f) => f.name)).toEqual(['id', 'country']);

    const fresh = new SchemaRegistryClient(`${reg.url}/`, policy);
    const before = reg.requests.length;
    const [a, b] = await Promise.all([fresh.schemaById(v1), fresh.schemaById(v1)]);
    expect(a).toBe(b);
    await fresh.schemaById(v1);
    expect(reg.requests.slice(before)).toEqual([`GET /schemas/ids/${v1}`]);
  });

  it('says what went wrong: an unknown id or subject, a registry that does not answer in time', async () => {
    const client = new SchemaRegistryClient(reg.url, policy, { timeoutMs: 300 });
    await expect(client.schemaById(999)).rejects.toThrow(/answered GET \/schemas\/ids\/999 with HTTP 404: Schema not found/);
    await expect(client.latest('nope-value')).rejects.toThrow(/HTTP 404: Subject 'nope-value' not found/);
    const id = reg.register('slow-value', USER_V1);
    reg.hang = true;
    try {
      await expect(client.schemaById(id)).rejects.toThrow(/no answer within 300 ms.*Check schemaRegistryUrl/);
    } finally {
      reg.hang = false;
    }
    // A failure is not cached: asked again, the registry answers.
    expect((await client.schemaById(id)).field.type).toBe('struct');
  });

  it('sends HTTP Basic credentials, and says what to do when the registry refuses the request', async () => {
    reg.basicAuth = 'weir:s3cret:with-colon';
    try {
      const id = reg.register('auth-value', USER_V1);
      await expect(new SchemaRegistryClient(reg.url, policy).schemaById(id)).rejects.toThrow(/HTTP 401: Unauthorized\. The registry wants credentials: give basicAuthUserInfo/);
      await expect(new SchemaRegistryClient(reg.url, policy, { auth: { username: 'weir', password: 'wrong' } }).latest('auth-value')).rejects.toThrow(/HTTP 401.*Check basicAuthUserInfo/);
      const client = new SchemaRegistryClient(reg.url, policy, { auth: { username: 'weir', password: 's3cret:with-colon' } });
      expect((await client.latest('auth-value')).id).toBe(id);
      expect(await client.register('auth-value', AvroCodec.parse(JSON.stringify(USER_V1)) as AvroCodec)).toBe(id);
    } finally {
      reg.basicAuth = null;
    }
  });

  it('a registry address the outbound policy refuses is refused before any request', async () => {
    const before = reg.requests.length;
    const client = new SchemaRegistryClient(reg.url, { ...policy, allow: parseAllowList('10.0.0.0/8') });
    await expect(client.schemaById(1)).rejects.toThrow(/refused/i);
    const metadata = new SchemaRegistryClient('http://169.254.169.254', policy);
    await expect(metadata.latest('x')).rejects.toThrow(/refused/i);
    expect(reg.requests.length).toBe(before);
  });
});

describe("Confluent's wire format", () => {
  it('is magic byte 0, a 4-byte big-endian schema id, then the Avro bytes', () => {
    const framed = frameConfluent(258, Buffer.from([7, 8]));
    expect([...framed]).toEqual([0, 0, 0, 1, 2, 7, 8]);
    expect(unframeConfluent(framed)).toEqual({ id: 258, payload: Buffer.from([7, 8]) });
    expect(unframeConfluent(Buffer.from([1, 0, 0, 0, 1, 9]))).toMatch(/not Confluent's magic byte 0/);
    expect(unframeConfluent(Buffer.from([0, 0]))).toMatch(/fewer than the 5/);
  });
});
