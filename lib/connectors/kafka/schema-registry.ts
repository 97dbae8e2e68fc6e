/**
 * Confluent Schema Registry, the part a Kafka source and sink need, and Confluent's wire format.
 *
 * Wire format: a record's key or value is magic byte 0, the schema id as a 4-byte big-endian
 * integer, then the Avro binary of the datum written with that schema.
 *
 * REST subset: GET /schemas/ids/{id} (a writer's schema by its id), GET
 * /subjects/{subject}/versions/latest, POST /subjects/{subject}/versions (register a schema: the
 * registry answers the existing id when the subject already has it). Every request goes through
 * Weir's outbound policy on the address actually connected to (outboundFetch, as the webhook sink
 * and alert webhooks do), has a timeout, and a schema is fetched once per id per client: an id
 * names one schema for ever, so the cache never goes stale. With credentials (Confluent's
 * `basic.auth.user.info`), every request carries them as HTTP Basic authentication.
 */
import { AvroCodec, outboundFetch, type OutboundPolicy, OutboundRefusedError, WeirError } from '../../engine';

const MAGIC = 0;
const HEADER_BYTES = 5;

/** Confluent's framing of Avro bytes written with schema `id`. */
export function frameConfluent(id: number, payload: Uint8Array): Buffer {
  const out = Buffer.alloc(HEADER_BYTES + payload.length);
  out[0] = MAGIC;
  out.writeUInt32BE(id, 1);
  out.set(payload, HEADER_BYTES);
  return out;
}

/** The schema id and the Avro bytes of a Confluent-framed record, or why it is not one. */
export function unframeConfluent(bytes: Uint8Array): { id: number; payload: Buffer } | string {
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < HEADER_BYTES) return `it has ${b.length} bytes, fewer than the 5 of Confluent's header (magic byte 0 and a 4-byte schema id)`;
  if (b[0] !== MAGIC) return `its first byte is ${b[0]}, not Confluent's magic byte 0: it was not written with a schema registry's serializer`;
  return { id: b.readUInt32BE(1), payload: b.subarray(HEADER_BYTES) };
}

class SchemaRegistryError extends WeirError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('SCHEMA_REGISTRY_ERROR', message, details);
  }
}

export interface SchemaRegistryOptions {
  /** Per request, connecting and reading included. */
  timeoutMs?: number;
  /** HTTP Basic credentials (Confluent's basic.auth.user.info), sent with every request. */
  auth?: { username: string; password: string };
}

export class SchemaRegistryClient {
  private readonly byId = new Map<number, Promise<AvroCodec>>();
  private readonly base: string;
  private readonly timeoutMs: number;
  private readonly authorization: string | undefined;

  constructor(url: string, private readonly policy: OutboundPolicy, opts: SchemaRegistryOptions = {}) {
    this.base = url.replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.authorization = opts.auth ? `Basic ${Buffer.from(`${opts.auth.username}:${opts.auth.password}`, 'utf8').toString('base64')}` : undefined;
  }

  /** The schema an id names (GET /schemas/ids/{id}), fetched once per id. */
  schemaById(id: number): Promise<AvroCodec> {
    let p = this.byId.get(id);
    if (!p) {
      p = this.request('GET', `/schemas/ids/${id}`).then((body) => this.codecOf(body, `schema id ${id}`));
      this.byId.set(id, p);
      // A failure is not cached: the next batch asks again.
      p.catch(() => this.byId.delete(id));
    }
    return p;
  }

  /** The subject's latest version (GET /subjects/{subject}/versions/latest). */
  async latest(subject: string): Promise<{ id: number; version: number; codec: AvroCodec }> {
    const body = (await this.request('GET', `/subjects/${encodeURIComponent(subject)}/versions/latest`)) as { id?: unknown; version?: unknown };
    if (typeof body.id !== 'number') throw new SchemaRegistryError(`Schema registry ${this.base} answered subject ${subject}'s latest version without an id.`);
    const codec = this.codecOf(body, `subject ${subject}`);
    this.byId.set(body.id, Promise.resolve(codec));
    return { id: body.id, version: Number(body.version), codec };
  }

  /** Registers a schema under a subject (POST /subjects/{subject}/versions): its id, new or existing. */
  async register(subject: string, codec: AvroCodec): Promise<number> {
    const body = (await this.request('POST', `/subjects/${encodeURIComponent(subject)}/versions`, JSON.stringify({ schema: codec.schemaText }))) as { id?: unknown };
    if (typeof body.id !== 'number') throw new SchemaRegistryError(`Schema registry ${this.base} registered a schema under ${subject} without answering its id.`);
    this.byId.set(body.id, Promise.resolve(codec));
    return body.id;
  }

  private codecOf(body: unknown, what: string): AvroCodec {
    const b = body as { schema?: unknown; schemaType?: unknown };
    if (b.schemaType !== undefined && b.schemaType !== 'AVRO') throw new SchemaRegistryError(`${what} in schema registry ${this.base} is a ${String(b.schemaType)} schema; Weir reads Avro ones.`);
    if (typeof b.schema !== 'string') throw new SchemaRegistryError(`Schema registry ${this.base} answered ${what} without a schema.`);
    const codec = AvroCodec.parse(b.schema);
    if (typeof codec === 'string') throw new SchemaRegistryError(`${what} in schema registry ${this.base}: ${codec}.`);
    return codec;
  }

  private async request(method: 'GET' | 'POST', path: string, body?: string): Promise<unknown> {
    let res: Response;
    try {
      res = await outboundFetch(`${this.base}${path}`, {
        method,
        headers: {
          accept: 'application/vnd.schemaregistry.v1+json, application/json',
          ...(body ? { 'content-type': 'application/vnd.schemaregistry.v1+json' } : {}),
          ...(this.authorization ? { authorization: this.authorization } : {}),
        },
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      }, this.policy);
    } catch (e) {
      if (e instanceof OutboundRefusedError) throw e;
      const why = (e as Error)?.name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : (e as Error).message;
      throw new SchemaRegistryError(`Schema registry ${this.base} could not be asked ${method} ${path}: ${why}. Check schemaRegistryUrl and that the registry is up; the batch will be retried.`);
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const msg = (json as { message?: unknown } | undefined)?.message;
      const hint = res.status === 401 ? (this.authorization ? ' Check basicAuthUserInfo: the registry refused those credentials.' : ' The registry wants credentials: give basicAuthUserInfo (user:password).')
        : res.status === 403 ? ' The credentials in basicAuthUserInfo are not allowed this request.' : '';
      throw new SchemaRegistryError(`Schema registry ${this.base} answered ${method} ${path} with HTTP ${res.status}${typeof msg === 'string' ? `: ${msg}` : ''}.${hint}`, { status: res.status });
    }
    if (json === undefined) throw new SchemaRegistryError(`Schema registry ${this.base} answered ${method} ${path} with something that is not JSON.`);
    return json;
  }
}
