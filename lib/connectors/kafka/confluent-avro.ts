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
 */
import { type AvroCodec, AvroError, type OutboundPolicy } from '../../engine';
import { frameConfluent, SchemaRegistryClient, unframeConfluent } from './schema-registry';

type Resolver = ReturnType<AvroCodec['type']['createResolver']>;

/** The source's side: Confluent-framed values as plain Avro of the reader schema. */
export class ConfluentAvroReader {
  private readonly client: SchemaRegistryClient;
  private readonly resolvers = new Map<number, Resolver | string>();

  constructor(url: string, private readonly reader: AvroCodec, policy: OutboundPolicy) {
    this.client = new SchemaRegistryClient(url, policy);
  }

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

  /** A value as plain Avro of the reader schema, or why it is a bad record (after `prepare`). */
  read(value: Uint8Array | null): Buffer | null | { bad: string } {
    if (value === null) return null;
    const f = unframeConfluent(value);
    if (typeof f === 'string') return { bad: `the value is not in Confluent's wire format: ${f}` };
    const resolver = this.resolvers.get(f.id);
    if (resolver === undefined) throw new Error(`schema id ${f.id} was not prepared`);
    if (typeof resolver === 'string') return { bad: `schema id ${f.id}: ${resolver} (valueAvroSchema)` };
    try {
      return this.reader.type.toBuffer(this.reader.type.decode(f.payload, 0, resolver).value);
    } catch (e) {
      return { bad: `the value is not Avro of schema id ${f.id} (${(e as Error).message})` };
    }
  }
}

/** The sink's side: Avro values framed with their schema's id. */
export class ConfluentAvroWriter {
  private readonly client: SchemaRegistryClient;
  private id: Promise<number> | null = null;

  constructor(url: string, private readonly subject: string, private readonly schema: AvroCodec | undefined, policy: OutboundPolicy) {
    this.client = new SchemaRegistryClient(url, policy);
  }

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
    if (!(value instanceof Uint8Array)) throw new AvroError(`with schemaRegistryUrl the value column must be Avro binary, such as to_avro(struct(...), '<the subject's schema>'), not ${typeof value}`);
    return frameConfluent(id, value);
  }
}
