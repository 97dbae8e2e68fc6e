/**
 * Avro in Confluent's wire format on a Kafka source or sink, with a schema registry.
 *
 * How a Spark user writes it: Spark's own from_avro reads plain Avro with one schema, so with
 * Confluent's serializers Spark users strip the 5-byte header and fetch the schema themselves,
 * or use ABRiS (`schema.registry.url`, a value subject) or Databricks' from_avro with a
 * registry address. Weir keeps the SQL Spark's own, `from_avro(value, '<schema>')`, and puts the
 * registry where the bytes come and go, as ABRiS's config does:
 *
 * - Source (`schemaRegistryUrl`, `valueAvroSchema`): each value's writer schema is found by the
 *   id in its header (once per id) and the value is read with Avro's schema resolution into
 *   `valueAvroSchema`, the reader schema, then handed to the SQL as plain Avro of that schema.
 *   Values written by every version of the subject so read as one type, and the reader schema
 *   is part of the spec, so a batch replayed after a producer registers a new version reads the
 *   same. A value without the header, or written with a schema the reader cannot resolve, is a
 *   bad record (source.onBadRecord); a registry that cannot be reached fails the batch, which is
 *   retried.
 * - Sink (`schemaRegistryUrl`, `valueSubject`, optional `valueAvroSchema`): the value column
 *   must be Avro binary (to_avro(..., '<schema>')); it is framed with the id of `valueAvroSchema`
 *   registered under the subject (the registry answers the existing id when it has it), or
 *   without one, of the subject's latest version, looked up once per run.
 * - Keys the same way, as Confluent's serializers frame them: `keyAvroSchema` on the source,
 *   `keySubject` (Confluent's default names it <topic>-key) and optional `keyAvroSchema` on the
 *   sink. A key and a value each say their own schema id; one client serves both.
 * - Credentials: HTTP Basic, spelled as Confluent's clients spell them
 *   (`basic.auth.credentials.source` USER_INFO with `basic.auth.user.info` user:password, a
 *   secret; or SASL_INHERIT, the Kafka connection's SASL user and password). Credentials inside
 *   the URL are refused: the URL is shown on the job page, a secret is masked.
 */
import { z } from 'zod';
import { AvroCodec, AvroError, type OutboundPolicy } from '../../engine';
import { frameConfluent, SchemaRegistryClient, unframeConfluent, type SchemaRegistryOptions } from './schema-registry';

/** The registry's address and credentials, as the source and the sink take them. */
export const schemaRegistryConnectionOptions = {
  schemaRegistryUrl: z.url({ protocol: /^https?$/ }).optional().meta({ examples: ['http://schema-registry:8081'] }).describe("Confluent Schema Registry, for keys and values in Confluent's wire format (magic byte 0, a 4-byte schema id, Avro). Spark's (ABRiS's) spelling schema.registry.url is taken too."),
  basicAuthCredentialsSource: z.enum(['USER_INFO', 'SASL_INHERIT', 'URL']).optional().meta({ examples: ['USER_INFO'] }).describe("Where the registry's HTTP Basic credentials come from, as Confluent's basic.auth.credentials.source: USER_INFO (basicAuthUserInfo; implied when that is given), SASL_INHERIT (the Kafka connection's saslUsername and saslPassword). URL is refused: give USER_INFO."),
  basicAuthUserInfo: z.string().min(1).optional().meta({ examples: ['user:password'] }).describe("The registry's credentials as user:password (Confluent's basic.auth.user.info); stored as a secret."),
};

type RegistryConnection = { [K in keyof typeof schemaRegistryConnectionOptions]?: z.infer<(typeof schemaRegistryConnectionOptions)[K]> } & { saslUsername?: string; saslPassword?: string; securityProtocol?: string };

/** What is wrong with a source's or sink's registry settings (never quoting a credential), as issues. */
export function schemaRegistryProblems(o: RegistryConnection): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  if (o.schemaRegistryUrl !== undefined) {
    const u = URL.parse(o.schemaRegistryUrl);
    if (u && (u.username || u.password)) out.push({ path: 'schemaRegistryUrl', message: 'has credentials in it; the URL is shown on the job page, a secret is not: remove them from the URL and give basicAuthUserInfo (user:password)' });
  }
  const given = o.basicAuthCredentialsSource !== undefined || o.basicAuthUserInfo !== undefined;
  if (given && o.schemaRegistryUrl === undefined) out.push({ path: o.basicAuthUserInfo !== undefined ? 'basicAuthUserInfo' : 'basicAuthCredentialsSource', message: "is the schema registry's credentials: it is read only with schemaRegistryUrl" });
  const source = o.basicAuthCredentialsSource ?? (o.basicAuthUserInfo !== undefined ? 'USER_INFO' : undefined);
  if (source === 'URL') out.push({ path: 'basicAuthCredentialsSource', message: 'URL takes the credentials from schemaRegistryUrl, which is shown on the job page: give USER_INFO with basicAuthUserInfo (user:password), stored as a secret' });
  if (source === 'USER_INFO') {
    if (o.basicAuthUserInfo === undefined) out.push({ path: 'basicAuthUserInfo', message: 'basicAuthCredentialsSource USER_INFO needs basicAuthUserInfo (user:password)' });
    else if (!o.basicAuthUserInfo.includes(':')) out.push({ path: 'basicAuthUserInfo', message: 'must be user:password (Confluent\'s basic.auth.user.info form), with a colon after the user name' });
  }
  if (source === 'SASL_INHERIT') {
    if (o.basicAuthUserInfo !== undefined) out.push({ path: 'basicAuthUserInfo', message: 'is read only with basicAuthCredentialsSource USER_INFO; SASL_INHERIT takes saslUsername and saslPassword: remove one' });
    if (!o.saslUsername || !o.saslPassword) out.push({ path: 'basicAuthCredentialsSource', message: 'SASL_INHERIT sends the Kafka connection\'s saslUsername and saslPassword to the registry: give them (securityProtocol SASL_PLAINTEXT or SASL_SSL), or use USER_INFO with basicAuthUserInfo' });
  }
  return out;
}

/** The registry client's options for a source's or sink's settings (after validation). */
export function schemaRegistryClientOptions(o: RegistryConnection): SchemaRegistryOptions {
  const source = o.basicAuthCredentialsSource ?? (o.basicAuthUserInfo !== undefined ? 'USER_INFO' : undefined);
  if (source === 'USER_INFO' && o.basicAuthUserInfo) {
    const i = o.basicAuthUserInfo.indexOf(':');
    return { auth: { username: o.basicAuthUserInfo.slice(0, i), password: o.basicAuthUserInfo.slice(i + 1) } };
  }
  if (source === 'SASL_INHERIT' && o.saslUsername && o.saslPassword) return { auth: { username: o.saslUsername, password: o.saslPassword } };
  return {};
}

/** An Avro schema option's problem, if it does not parse. */
export function avroSchemaProblem(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const c = AvroCodec.parse(text);
  return typeof c === 'string' ? c : undefined;
}

type Column = 'key' | 'value';

type Resolver = ReturnType<AvroCodec['type']['createResolver']>;

/** The source's side: Confluent-framed keys or values as plain Avro of the reader schema. */
export class ConfluentAvroReader {
  private readonly resolvers = new Map<number, Resolver | string>();

  /** `client` may be shared by the key's and the value's reader (one fetch per id). */
  constructor(private readonly client: SchemaRegistryClient, private readonly reader: AvroCodec, private readonly column: Column = 'value') {}

  /** Fetches (once) the writer schema of every id these values name, so `read` needs no I/O. */
  async prepare(values: (Uint8Array | null)[]): Promise<void> {
    const ids = new Set<number>();
    for (const v of values) {
      if (v === null) continue;
      const f = unframeConfluent(v);
      if (typeof f !== 'string' && !this.resolvers.has(f.id)) ids.add(f.id);
    }
    await Promise.all([...ids].map(async (id) => {
      const writer = await this.client.schemaById(id);
      this.resolvers.set(id, this.reader.resolverFrom(writer));
    }));
  }

  /** A key or value as plain Avro of the reader schema, or why it is a bad record (after `prepare`). */
  read(value: Uint8Array | null): Buffer | null | { bad: string } {
    if (value === null) return null;
    const f = unframeConfluent(value);
    if (typeof f === 'string') return { bad: `the ${this.column} is not in Confluent's wire format: ${f}` };
    const resolver = this.resolvers.get(f.id);
    if (resolver === undefined) throw new Error(`schema id ${f.id} was not prepared`);
    if (typeof resolver === 'string') return { bad: `schema id ${f.id}: ${resolver} (${this.column}AvroSchema)` };
    try {
      return this.reader.type.toBuffer(this.reader.type.decode(f.payload, 0, resolver).value);
    } catch (e) {
      return { bad: `the ${this.column} is not Avro of schema id ${f.id} (${(e as Error).message})` };
    }
  }
}

/** A registry client for a source's or sink's settings, through the outbound policy. */
export function schemaRegistryClient(o: RegistryConnection & { schemaRegistryUrl: string }, policy: OutboundPolicy): SchemaRegistryClient {
  return new SchemaRegistryClient(o.schemaRegistryUrl, policy, schemaRegistryClientOptions(o));
}

/** The sink's side: Avro keys or values framed with their schema's id. */
export class ConfluentAvroWriter {
  private id: Promise<number> | null = null;

  constructor(private readonly client: SchemaRegistryClient, private readonly subject: string, private readonly schema: AvroCodec | undefined, private readonly column: Column = 'value') {}

  /** The id values are framed with: the schema registered under the subject, or its latest version's. */
  schemaId(): Promise<number> {
    if (!this.id) {
      const p = this.schema ? this.client.register(this.subject, this.schema) : this.client.latest(this.subject).then((l) => l.id);
      this.id = p;
      p.catch(() => {
        if (this.id === p) this.id = null;
      });
    }
    return this.id;
  }

  frame(id: number, value: unknown): Buffer | null {
    if (value === null || value === undefined) return null;
    if (!(value instanceof Uint8Array)) throw new AvroError(`with ${this.column}Subject the ${this.column} column must be Avro binary, such as to_avro(struct(...), '<the subject's schema>'), not ${typeof value}`);
    return frameConfluent(id, value);
  }
}
