/**
 * KafkaSink: Spark's Kafka sink. Each output row is one record: `value` (string or binary, or any
 * other value as JSON), optional `key`, `topic` (the `topic` option wins over the column, as in
 * Spark), `partition` and `headers` (Spark's ARRAY<STRUCT<key: STRING, value: BINARY>>, or JSON
 * text: an object {"k":"v"} or an array [{"key","value"}]). Every
 * record also carries the `weir-batch-id` header (and `weir-query-id`), so readers and the
 * duplicate audit can attribute records to batches.
 *
 * At-least-once: a batch re-run after a crash between the broker's acknowledgement and the
 * engine's commits/N is produced again; nothing on the broker recognizes the repeat. Consumers
 * that cannot tolerate that drop records whose (weir-query-id, weir-batch-id) they already saw.
 *
 * Why no exactly-once (Kafka transactions): one transaction per batch, fenced by a
 * transactional.id derived from the query id, with the batch id committed inside it, would make
 * a replay recognizable. But the only broker these tests can run (librdkafka's mock cluster in
 * kcat 1.7/librdkafka 2.0.2) acknowledges every transactional request and implements none of
 * them: no commit or abort markers (read_committed readers read aborted records), no fencing of
 * an older producer with the same transactional.id, and offsets committed in a transaction are
 * not stored (kafka-mock-transactions.integration.test.ts shows each). A transactional sink would pass its
 * tests there whether or not it were right; shipping it would be a claim, not a feature. It
 * waits for a broker in the tests that runs transactions.
 */
import { z } from 'zod';
import type { Message, Producer } from 'kafkajs';
import { AvroCodec, jsonWriter, outboundPolicy, type OutboundPolicy, type OutputMode, registerSink, type Row, type Schema, type Sink, type SinkBatchContext, type SinkDefinition, SinkError, type SinkSignature } from '../../engine';
import { createKafka, kafkaClusterOptions, kafkaConnectionOptions, kafkaSecurityProblem, KAFKA_SECRET_OPTIONS, redactKafka, type KafkaConnectionOptions } from './client';
import { PartitionReader } from './fetch';
import { canonicalKafkaOptions } from './spark-options';
import { avroSchemaProblem, ConfluentAvroWriter, schemaRegistryClient, schemaRegistryConnectionOptions, schemaRegistryProblems } from './confluent-avro';

const BATCH_ID_HEADER = 'weir-batch-id';
const QUERY_ID_HEADER = 'weir-query-id';

export const kafkaSinkOptions = z
  .strictObject({
    ...kafkaConnectionOptions,
    topic: z.string().min(1).optional().meta({ examples: ['orders-out'] }).describe('Topic for every record; without it each row\'s topic column says.'),
    acks: z.number().int().min(-1).max(1).default(-1).meta({ examples: [-1] }).describe('-1: every in-sync replica (default, what an at-least-once sink needs); 1: the leader; 0: none.'),
    maxRecordsPerRequest: z.number().int().min(1).max(100_000).default(5_000),
    ...schemaRegistryConnectionOptions,
    valueSubject: z.string().min(1).optional().meta({ examples: ['orders-value'] }).describe('With schemaRegistryUrl: each value (Avro binary, from to_avro) is written in Confluent\'s wire format with the id of its schema under this subject (Confluent\'s default names it <topic>-value).'),
    valueAvroSchema: z.string().min(1).optional().meta({ examples: ['{"type":"record","name":"Order","fields":[{"name":"id","type":"long"}]}'] }).describe('With valueSubject: the schema the values are written with (the one given to to_avro), registered under valueSubject; without it, the subject\'s latest version.'),
    keySubject: z.string().min(1).optional().meta({ examples: ['orders-key'] }).describe('With schemaRegistryUrl: each key (Avro binary, from to_avro) is framed too, with the id of its schema under this subject (Confluent\'s default names it <topic>-key).'),
    keyAvroSchema: z.string().min(1).optional().meta({ examples: ['"string"'] }).describe('With keySubject: the schema the keys are written with, registered under keySubject; without it, the subject\'s latest version.'),
  })
  .superRefine((o, ctx) => {
    const sec = kafkaSecurityProblem(o);
    if (sec) ctx.addIssue({ code: 'custom', path: [sec.path], message: sec.message });
    const subjects = o.valueSubject !== undefined || o.keySubject !== undefined;
    if ((o.schemaRegistryUrl === undefined) === subjects) {
      const path = o.schemaRegistryUrl === undefined ? 'schemaRegistryUrl' : 'valueSubject';
      ctx.addIssue({ code: 'custom', path: [path], message: 'give schemaRegistryUrl with valueSubject (or keySubject, or both): the subject names the values\' (keys\') schema in the registry' });
    }
    for (const [schema, subject] of [['valueAvroSchema', 'valueSubject'], ['keyAvroSchema', 'keySubject']] as const) {
      const c = avroSchemaProblem(o[schema]);
      if (c) ctx.addIssue({ code: 'custom', path: [schema], message: c });
      if (o[schema] !== undefined && o[subject] === undefined) ctx.addIssue({ code: 'custom', path: [schema], message: `is read only with schemaRegistryUrl and ${subject}` });
    }
    for (const p of schemaRegistryProblems(o)) ctx.addIssue({ code: 'custom', path: [p.path], message: p.message });
  });
export type KafkaSinkOptions = z.infer<typeof kafkaSinkOptions>;

const SINK_COLUMNS = ['key', 'value', 'topic', 'partition', 'headers'];

const signatureOf = (o: KafkaSinkOptions) => ({
  signature: 'at-least-once' as SinkSignature,
  reason: `Producing to ${o.topic ?? 'the rows\' topics'} appends: a batch re-run after a crash before its commit is produced again (records carry the ${BATCH_ID_HEADER} header so consumers can drop the repeat).`,
});

/** A key or value as bytes: strings and bytes as they are, anything else as its JSON text (a decimal with its exact digits). */
function toBuffer(v: unknown, stringify: (v: unknown) => string): Buffer | null {
  if (v === null || v === undefined) return null;
  if (Buffer.isBuffer(v)) return v;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  return Buffer.from(stringify(v), 'utf8');
}

type HeaderValue = Buffer | string;

/**
 * A record's headers from the row's `headers`: Spark's ARRAY<STRUCT<key: STRING, value: BINARY>>
 * (a Kafka source's column passed through; a value's bytes as they are, a repeated key kept in
 * order), or its JSON text (`{"name":"value"}` or `[{"key","value"}]`).
 */
function headersOf(v: unknown): Record<string, HeaderValue | HeaderValue[]> {
  if (v === null || v === undefined) return {};
  let h: unknown = v;
  if (typeof v === 'string') {
    try {
      h = JSON.parse(v);
    } catch {
      throw new Error(`headers ${JSON.stringify(v.slice(0, 80))} is not JSON: give {"name":"value"} or [{"key":"name","value":"value"}]`);
    }
  }
  const value = (x: unknown): HeaderValue => (x === null || x === undefined ? '' : x instanceof Uint8Array ? Buffer.from(x.buffer, x.byteOffset, x.byteLength) : String(x));
  const out: Record<string, HeaderValue | HeaderValue[]> = {};
  if (Array.isArray(h)) {
    for (const e of h as ({ key?: unknown; value?: unknown } | null)[]) {
      if (!e || typeof e.key !== 'string') continue;
      const prev = out[e.key];
      out[e.key] = prev === undefined ? value(e.value) : [...(Array.isArray(prev) ? prev : [prev]), value(e.value)];
    }
  } else if (h && typeof h === 'object') {
    for (const [k, x] of Object.entries(h)) out[k] = value(x);
  }
  return out;
}

class KafkaSink implements Sink {
  readonly description: string;
  readonly signature: SinkSignature;
  readonly signatureReason: string;
  readonly supportedOutputModes: readonly OutputMode[] = ['append', 'update', 'complete'];
  private producer: Producer | null = null;
  /** With schemaRegistryUrl: the writers of the framed key and value (null: written as they are). */
  private readonly avro: { key: ConfluentAvroWriter | null; value: ConfluentAvroWriter | null };

  constructor(private readonly opts: KafkaSinkOptions, private readonly outbound: OutboundPolicy = outboundPolicy()) {
    ({ signature: this.signature, reason: this.signatureReason } = signatureOf(opts));
    this.description = `KafkaSink[${opts.topic ?? 'topic column'}]`;
    const registry = opts.schemaRegistryUrl ? schemaRegistryClient({ ...opts, schemaRegistryUrl: opts.schemaRegistryUrl }, outbound) : null;
    const writer = (subject: string | undefined, schema: string | undefined, column: 'key' | 'value') =>
      registry && subject ? new ConfluentAvroWriter(registry, subject, schema === undefined ? undefined : (AvroCodec.parse(schema) as AvroCodec), column) : null;
    this.avro = { key: writer(opts.keySubject, opts.keyAvroSchema, 'key'), value: writer(opts.valueSubject, opts.valueAvroSchema, 'value') };
  }

  private async connect(): Promise<Producer> {
    if (!this.producer) {
      const p = createKafka(this.opts, this.outbound).producer({ allowAutoTopicCreation: true });
      await p.connect();
      this.producer = p;
    }
    return this.producer;
  }

  async addBatch(batchId: number, rows: Row[], ctx: SinkBatchContext): Promise<void> {
    if (rows.length === 0) return;
    try {
      const byTopic = new Map<string, Message[]>();
      const json = jsonWriter(ctx.schema);
      const [keyId, valueId] = await Promise.all([this.avro.key?.schemaId() ?? 0, this.avro.value?.schemaId() ?? 0]);
      for (const row of rows) {
        const r = json.row(row);
        const topic = this.opts.topic ?? (typeof r.topic === 'string' && r.topic !== '' ? r.topic : null);
        if (topic === null) throw new Error('a row has no topic: give sink.options.topic, or a topic column in the SELECT');
        // An array of structs as the row holds it (the rendered row has binary values as base64 text).
        const headers = { ...headersOf(Array.isArray(row.headers) ? row.headers : r.headers), [BATCH_ID_HEADER]: String(batchId), [QUERY_ID_HEADER]: ctx.queryId };
        // A binary key or value is the record's bytes as they are (the rendered row has them as base64 text).
        const bytes = (name: 'key' | 'value') => (row[name] instanceof Uint8Array ? row[name] : r[name]);
        const value = this.avro.value ? this.avro.value.frame(valueId, row.value) : toBuffer(bytes('value'), json.stringify);
        const key = this.avro.key ? this.avro.key.frame(keyId, row.key) : toBuffer(bytes('key'), json.stringify);
        const m: Message = { key, value, headers };
        if (row.partition !== null && row.partition !== undefined) m.partition = Number(row.partition);
        let list = byTopic.get(topic);
        if (!list) byTopic.set(topic, (list = []));
        list.push(m);
      }
      const producer = await this.connect();
      for (const [topic, messages] of byTopic) {
        for (let i = 0; i < messages.length; i += this.opts.maxRecordsPerRequest) {
          await producer.send({ topic, acks: this.opts.acks, messages: messages.slice(i, i + this.opts.maxRecordsPerRequest) });
        }
      }
    } catch (e) {
      throw new SinkError(`Kafka sink could not write batch ${batchId}: ${redactKafka((e as Error)?.message ?? String(e), this.opts)}. The batch is not committed and will be re-run; check the brokers in bootstrapServers are reachable.`, { batchId });
    }
  }

  async close(): Promise<void> {
    const p = this.producer;
    this.producer = null;
    await p?.disconnect();
  }
}

export interface KafkaTopicRecord {
  topic: string;
  partition: number;
  offset: number;
  key: string | null;
  value: string | null;
  headers: Record<string, string>;
}

/** Every record a topic holds now, partition by partition (the duplicate audit and `weir sink read`). */
export async function readKafkaTopic(o: KafkaConnectionOptions, topic: string, policy: OutboundPolicy = outboundPolicy()): Promise<KafkaTopicRecord[]> {
  const admin = createKafka(o, policy).admin();
  const reader = new PartitionReader(kafkaClusterOptions(o, policy), 4 * 1024 * 1024);
  await admin.connect();
  try {
    const out: KafkaTopicRecord[] = [];
    const parts = (await admin.fetchTopicOffsets(topic)).sort((a, b) => a.partition - b.partition);
    for (const p of parts) {
      const { records } = await reader.read(topic, p.partition, Number(p.low), Number(p.high));
      for (const r of records) {
        const headers: Record<string, string> = {};
        for (const h of r.headers) headers[h.key] = h.value?.toString('utf8') ?? '';
        out.push({ topic, partition: p.partition, offset: r.offset, key: r.key?.toString('utf8') ?? null, value: r.value?.toString('utf8') ?? null, headers });
      }
    }
    return out;
  } finally {
    await Promise.allSettled([admin.disconnect(), reader.close()]);
  }
}

/** Records per weir-batch-id header in a topic (records without the header are left out). */
export async function countKafkaRecordsPerBatch(o: KafkaSinkOptions, policy?: OutboundPolicy): Promise<{ perBatch: Map<number, number>; total: number }> {
  if (!o.topic) throw new Error('the duplicate audit reads sink.options.topic; a sink that takes the topic from a column names no single topic to read');
  const records = await readKafkaTopic(o, o.topic, policy);
  const perBatch = new Map<number, number>();
  for (const r of records) {
    const b = r.headers[BATCH_ID_HEADER];
    if (b !== undefined) perBatch.set(Number(b), (perBatch.get(Number(b)) ?? 0) + 1);
  }
  return { perBatch, total: records.length };
}

const kafkaSinkDefinition: SinkDefinition<KafkaSinkOptions> = {
  type: 'kafka',
  options: kafkaSinkOptions,
  signature: signatureOf,
  supportedOutputModes: () => ['append', 'update', 'complete'],
  create: (o, ctx) => new KafkaSink(o, ctx.outbound),
  checkOutput: (o, schema: Schema) => {
    const names = schema.map((f) => f.name);
    if (!names.includes('value')) return { path: 'sql', message: 'the kafka sink writes the value column: SELECT ... AS value (a string, binary, or to_json(...))' };
    const extra = names.filter((n) => !SINK_COLUMNS.includes(n));
    if (extra.length) return { path: 'sql', message: `the kafka sink takes only the columns ${SINK_COLUMNS.join(', ')}; ${extra.join(', ')} would be dropped: fold them into value` };
    if (!o.topic && !names.includes('topic')) return { path: 'sink.options.topic', message: 'give sink.options.topic, or SELECT a topic column' };
    return undefined;
  },
  readRows: async (o) => {
    if (!o.topic) throw new Error('weir sink read needs sink.options.topic');
    return (await readKafkaTopic(o, o.topic)).map((r) => ({ topic: r.topic, partition: r.partition, offset: r.offset, key: r.key, value: r.value, batchId: r.headers[BATCH_ID_HEADER] === undefined ? null : Number(r.headers[BATCH_ID_HEADER]) }));
  },
  secretOptions: KAFKA_SECRET_OPTIONS,
  canonicalOptions: (raw) => canonicalKafkaOptions(raw, kafkaSinkOptions, 'sink'),
  destinations: [{ option: 'bootstrapServers', kind: 'kafka' }, { option: 'schemaRegistryUrl', kind: 'http' }],
};

registerSink(kafkaSinkDefinition);
