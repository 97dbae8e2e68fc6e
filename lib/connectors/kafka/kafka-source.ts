/**
 * KafkaSource: Spark's Kafka source (spark-sql-kafka), read by offset ranges.
 *
 * Offset: Spark's JSON, `{"orders":{"0":120,"1":98}}`: per topic and partition the NEXT offset to
 * read, so a batch (start, end] is the records with start[tp] <= offset < end[tp]. Offsets only
 * grow within a partition and a broker returns the same records for the same offsets while they
 * are retained, so a batch re-reads exactly on replay.
 * - First batch: `startingOffsets` (earliest, latest, or per-partition JSON with -2 = earliest and
 *   -1 = latest) or `startingTimestamp` are resolved once and written to `sources/0/0` before
 *   offsets/0 (as Spark's KafkaSourceInitialOffsetWriter does), so a replay of batch 0 starts at
 *   the same place. They apply only to a new checkpoint: on restart the checkpoint wins.
 * - Partitions that appear while running (a new matching topic, partitions added to a topic) are
 *   read from offset 0, their earliest possible offset.
 * - Data loss: records retention deleted before they were read (the partition's earliest offset
 *   is past the batch's start), or a partition whose latest offset went backwards (the topic was
 *   deleted and recreated) fail the batch with DATA_LOSS naming the topic, partition and missing
 *   range, unless `failOnDataLoss` is false: then the missing offsets are skipped, counted in the
 *   batch's progress metrics, described in its `dataLossWarning` (the batch's detail on the job
 *   page shows it) and returned as a batch warning that the execution logs (the CLI's stderr, the
 *   worker's log). Both say it as Weir does and as Spark does ("Partition t-0's offset was changed
 *   from 6 to 2, some data may have been missed."), since that is what Spark users look for.
 */
import { z } from 'zod';
import type { Admin } from 'kafkajs';
import { AvroCodec, type BadRecord, compileRegex, DataLossError, type Offset, outboundPolicy, type OutboundPolicy, OutboundRefusedError, type ReadLimit, type RecentRecords, type RecentRecordsLimit, registerSource, type Row, type Schema, type Source, type SourceBatch, type SourceColumn, type SourceContext, type SourceDefinition, simpleTypeString, WeirError } from '../../engine';
import { createKafka, kafkaClusterOptions, kafkaConnectionOptions, kafkaSecurityProblem, KAFKA_SECRET_OPTIONS, redactKafka } from './client';
import { PartitionReader, type FetchedRecord } from './fetch';
import { formatKafkaOffsets, parseAssign, parseKafkaOffsets, parseOffsetsByTimestamp, parseStartingOffsets, tpKey, type KafkaOffsets, type StartingOffsets } from './offsets';
import { canonicalKafkaOptions } from './spark-options';
import { avroSchemaProblem, ConfluentAvroReader, schemaRegistryClient, schemaRegistryConnectionOptions, schemaRegistryProblems } from './confluent-avro';

/** Long.MaxValue as a JavaScript number: 2^63 (9223372036854775807 is not representable). */
const LONG_MAX_AS_NUMBER = 2 ** 63;

export const kafkaSourceOptions = z
  .strictObject({
    ...kafkaConnectionOptions,
    subscribe: z.string().min(1).optional().meta({ examples: ['orders'] }).describe('Comma-separated topics to read (one of subscribe, subscribePattern, assign).'),
    subscribePattern: z.string().min(1).optional().describe('A regular expression over topic names (RE2: linear time); topics created later that match are read too.'),
    assign: z.string().min(1).optional().meta({ examples: ['{"orders":[0,1]}'] }).describe('JSON of the exact partitions to read: {"topic":[0,1]}.'),
    startingOffsets: z.string().min(1).default('latest').meta({ examples: ['earliest'] }).describe('earliest, latest, or JSON {"topic":{"0":23,"1":-2}} (-2 earliest, -1 latest). Only on a new checkpoint.'),
    startingTimestamp: z.number().int().min(0).optional().describe('Epoch ms: start each partition at its first record at or after this time. Only on a new checkpoint; wins over startingOffsetsByTimestamp and startingOffsets.'),
    startingOffsetsByTimestamp: z.string().min(1).optional().meta({ examples: ['{"orders":{"0":1700000000000,"1":1700000000000}}'] }).describe('JSON of an epoch-ms time per partition, every partition read listed: start each at its first record at or after its time. Only on a new checkpoint; wins over startingOffsets.'),
    startingOffsetsByTimestampStrategy: z.enum(['error', 'latest']).default('error').describe('When a partition has no record at or after the starting time: error fails the query\'s first batch; latest starts that partition at its end.'),
    maxOffsetsPerTrigger: z
      .number()
      // Any integer up to Spark's Long.MaxValue (9223372036854775807, which a JSON number rounds to 2^63).
      .refine((n) => Number.isInteger(n) && n >= 1 && n <= LONG_MAX_AS_NUMBER, 'must be an integer from 1 to 9223372036854775807 (Long.MaxValue)')
      .optional()
      // At 2^53 and above no batch can be that large, and the value is no longer exact: no limit, as Spark users mean by Long.MaxValue.
      .transform((n) => (n !== undefined && n >= 2 ** 53 ? undefined : n))
      .describe('At most this many offsets per batch, split over partitions by how far behind each is (a partition with records gets at least one). 9223372036854775807 (Long.MaxValue), or anything from 2^53 up: no limit.'),
    failOnDataLoss: z.boolean().default(true).describe('Fail, or skip with a warning, when records a batch needs are gone (retention, topic recreated).'),
    groupIdPrefix: z.string().min(1).optional().describe('Taken from Spark jobs, with no effect: Weir reads partitions by offset and never joins or commits a consumer group (the offsets live in the checkpoint, as in Spark), so no group appears on the brokers.'),
    groupId: z.string().min(1).optional().describe('Spark\'s kafka.group.id, taken with no effect: Weir reads partitions by offset and never joins or commits a consumer group, so group-based authorization does not apply to it.'),
    includeHeaders: z.boolean().default(false).describe('Add the headers column: ARRAY<STRUCT<key: STRING, value: BINARY>>, as Spark gives it.'),
    maxBytesPerFetch: z.number().int().min(1024).max(64 * 1024 * 1024).default(4 * 1024 * 1024).meta({ examples: [4 * 1024 * 1024] }),
    ...schemaRegistryConnectionOptions,
    valueAvroSchema: z.string().min(1).optional().meta({ examples: ['{"type":"record","name":"Order","fields":[{"name":"id","type":"long"}]}'] }).describe('With schemaRegistryUrl: values are in Confluent\'s wire format, each read with its writer\'s schema (found by id) into this reader schema (Avro JSON), whichever version wrote it; read the value in the SQL with from_avro(value, \'<the same schema>\').'),
    keyAvroSchema: z.string().min(1).optional().meta({ examples: ['"string"'] }).describe('With schemaRegistryUrl: keys are in Confluent\'s wire format too, read into this reader schema; read the key in the SQL with from_avro(key, \'<the same schema>\').'),
  })
  .superRefine((o, ctx) => {
    const modes = (['subscribe', 'subscribePattern', 'assign'] as const).filter((k) => o[k] !== undefined);
    if (modes.length !== 1) {
      ctx.addIssue({ code: 'custom', path: ['subscribe'], message: modes.length ? `give only one of subscribe, subscribePattern and assign, not ${modes.join(' and ')}` : 'give one of subscribe (topics), subscribePattern (a regex) or assign (JSON partitions)' });
    }
    if (o.subscribePattern !== undefined) {
      const re = compileRegex(o.subscribePattern);
      if (typeof re === 'string') ctx.addIssue({ code: 'custom', path: ['subscribePattern'], message: re });
    }
    if (o.assign !== undefined) {
      const a = parseAssign(o.assign);
      if (typeof a === 'string') ctx.addIssue({ code: 'custom', path: ['assign'], message: a });
    }
    if (o.startingOffsetsByTimestamp !== undefined) {
      const t = parseOffsetsByTimestamp(o.startingOffsetsByTimestamp);
      if (typeof t === 'string') ctx.addIssue({ code: 'custom', path: ['startingOffsetsByTimestamp'], message: t });
    }
    const s = parseStartingOffsets(o.startingOffsets);
    if (typeof s === 'object' && 'error' in s && typeof s.error === 'string') ctx.addIssue({ code: 'custom', path: ['startingOffsets'], message: s.error });
    const sec = kafkaSecurityProblem(o);
    if (sec) ctx.addIssue({ code: 'custom', path: [sec.path], message: sec.message });
    const framed = o.valueAvroSchema !== undefined || o.keyAvroSchema !== undefined;
    if ((o.schemaRegistryUrl === undefined) === framed) {
      const path = o.schemaRegistryUrl === undefined ? 'schemaRegistryUrl' : 'valueAvroSchema';
      ctx.addIssue({ code: 'custom', path: [path], message: 'give schemaRegistryUrl with valueAvroSchema (or keyAvroSchema, or both): the registry finds each value\'s (key\'s) writer schema, valueAvroSchema (keyAvroSchema) is the schema it is read as' });
    }
    for (const k of ['valueAvroSchema', 'keyAvroSchema'] as const) {
      const c = avroSchemaProblem(o[k]);
      if (c) ctx.addIssue({ code: 'custom', path: [k], message: c });
    }
    for (const p of schemaRegistryProblems(o)) ctx.addIssue({ code: 'custom', path: [p.path], message: p.message });
  });
export type KafkaSourceOptions = z.infer<typeof kafkaSourceOptions>;

/**
 * Spark's Kafka source columns, in Spark's order, with Spark's types: `partition` and
 * `timestampType` are INT, `offset` BIGINT, `headers` ARRAY<STRUCT<key: STRING, value: BINARY>>
 * (a header may repeat, in the record's order).
 *
 * Before, `partition` and `timestampType` were BIGINT. A checkpoint written then restarts: the
 * state schema check compares column types by kind (an INT and a BIGINT are both integral
 * `long`s, holding the same numbers), and the same values key the same state.
 */
const KAFKA_SOURCE_COLUMNS: Record<string, Omit<SourceColumn, 'name'>> = {
  key: { type: 'binary' },
  value: { type: 'binary' },
  topic: { type: 'string' },
  partition: { type: 'long', integral: 32 },
  offset: { type: 'long' },
  timestamp: { type: 'timestamp' },
  timestampType: { type: 'long', integral: 32 },
  headers: {
    type: 'array',
    elementType: { name: 'element', type: 'struct', nullable: true, fields: [{ name: 'key', type: 'string', nullable: true }, { name: 'value', type: 'binary', nullable: true }] },
  },
};

/**
 * `headers` listed as a STRING in source.schema, as Weir gave it before it had Spark's type: a
 * JSON array of {"key","value"} with the values as UTF-8, so such specs keep their queries.
 */
const HEADERS_AS_JSON_TEXT = 'string';

/**
 * The columns a Kafka source has when source.schema lists none, as Spark gives them without
 * being asked: all of them, headers only with includeHeaders (Spark's fixed schema).
 */
export function kafkaSourceSchema(includeHeaders: boolean): SourceColumn[] {
  return Object.entries(KAFKA_SOURCE_COLUMNS)
    .filter(([n]) => includeHeaders || n !== 'headers')
    .map(([name, t]) => ({ name, ...t }));
}

const REASON = 'Kafka offsets only grow within a partition and a fetch of [start, end) returns the same records while retained; a replay whose records retention deleted fails with DATA_LOSS.';

const INITIAL_OFFSETS_VERSION = 'v1';

interface PartitionWatermarks {
  low: number;
  high: number;
}

export class KafkaSource implements Source {
  readonly description: string;
  readonly replayable = true;
  readonly replayableReason = REASON;
  private admin: Admin | null = null;
  private connecting: Promise<Admin> | null = null;
  /** Set by prepareForTriggerAvailableNow: the partitions and offsets this run reads up to. */
  private availableNowEnd: Map<string, PartitionWatermarks & { topic: string; partition: number }> | null = null;
  private reader: PartitionReader | null = null;
  private readonly pattern: { test(s: string): boolean } | null;
  /** What the last getBatch skipped under failOnDataLoss=false, for that batch's metrics. */
  private lastSkipped: { offsets: number; warnings: string[]; logged: string[] } = { offsets: 0, warnings: [], logged: [] };
  /** With schemaRegistryUrl: Confluent-framed values (keys) into plain Avro of valueAvroSchema (keyAvroSchema). */
  private readonly avro: { column: 'key' | 'value'; reader: ConfluentAvroReader }[];
  /** source.schema lists headers as a STRING: the JSON text Weir gave before. */
  private readonly headersAsJsonText: boolean;

  constructor(
    private readonly opts: KafkaSourceOptions,
    readonly schema: Schema,
    private readonly ctx: Pick<SourceContext, 'checkpoint' | 'metadataPath'>,
    private readonly outbound: OutboundPolicy = outboundPolicy(),
  ) {
    const what = opts.subscribe ?? (opts.subscribePattern !== undefined ? `pattern ${opts.subscribePattern}` : `assign ${opts.assign}`);
    this.description = `KafkaV2[${what}]`;
    this.headersAsJsonText = schema.find((f) => f.name === 'headers')?.type === HEADERS_AS_JSON_TEXT;
    const re = opts.subscribePattern !== undefined ? compileRegex(opts.subscribePattern) : null;
    this.pattern = typeof re === 'string' ? null : re;
    const registry = opts.schemaRegistryUrl ? schemaRegistryClient({ ...opts, schemaRegistryUrl: opts.schemaRegistryUrl }, outbound) : null;
    this.avro = registry
      ? (['key', 'value'] as const).flatMap((column) => {
        const text = column === 'key' ? opts.keyAvroSchema : opts.valueAvroSchema;
        return text === undefined ? [] : [{ column, reader: new ConfluentAvroReader(registry, AvroCodec.parse(text) as AvroCodec, column) }];
      })
      : [];
  }

  /** The rows with their keys and values read through the schema registry (when configured); the ones that do not read are bad records. */
  private async readAvroValues(rows: Row[]): Promise<{ rows: Row[]; badRecords: BadRecord[] }> {
    const readers = this.avro.filter((a) => rows.some((r) => a.column in r));
    if (readers.length === 0) return { rows, badRecords: [] };
    try {
      await Promise.all(readers.map((a) => a.reader.prepare(rows.map((r) => r[a.column] as Uint8Array | null))));
    } catch (e) {
      this.fail('read the schemas of its keys or values from the schema registry', e);
    }
    const kept: Row[] = [];
    const badRecords: BadRecord[] = [];
    for (const r of rows) {
      const out: Row = { ...r };
      let bad: BadRecord | undefined;
      for (const { column, reader } of readers) {
        const v = reader.read(r[column] as Uint8Array | null);
        if (v !== null && 'bad' in v) {
          const tp = `${String(r.topic)}-${String(r.partition)}`;
          bad = { raw: Buffer.from(r[column] as Uint8Array).toString('base64'), reason: v.bad, location: { source: `${tp}@${String(r.offset)}`, offset: { [String(r.topic)]: { [String(r.partition)]: r.offset } } } };
          break;
        }
        out[column] = v;
      }
      if (bad) badRecords.push(bad);
      else kept.push(out);
    }
    return { rows: kept, badRecords };
  }

  private fail(what: string, e: unknown): never {
    if (e instanceof WeirError || e instanceof OutboundRefusedError) throw e;
    const msg = redactKafka((e as Error)?.message ?? String(e), this.opts);
    throw new WeirError('SOURCE_ERROR', `Kafka source ${this.description} could not ${what}: ${msg}. Check the brokers in bootstrapServers are reachable and the topics exist; the batch will be retried from the checkpoint.`);
  }

  /**
   * The one admin client of this source. The promise is kept, not only the connected client: a
   * re-run batch reads its range and the latest offsets at once, before anything else connected,
   * and two callers that each made their own client left one connected after stop() (its
   * sockets kept the process alive after the run ended).
   */
  private client(): Promise<Admin> {
    if (this.admin) return Promise.resolve(this.admin);
    if (!this.connecting) {
      const connecting = this.connectAdmin();
      this.connecting = connecting;
      // Cleared once settled (after the assignment above, even when creating the client threw).
      const settled = () => {
        if (this.connecting === connecting) this.connecting = null;
      };
      connecting.then(settled, settled);
    }
    return this.connecting;
  }

  private async connectAdmin(): Promise<Admin> {
    const admin = createKafka(this.opts, this.outbound).admin();
    try {
      await admin.connect();
    } catch (e) {
      await admin.disconnect().catch(() => undefined);
      throw e;
    }
    this.admin = admin;
    return admin;
  }

  private partitionReader(): PartitionReader {
    this.reader ??= new PartitionReader(kafkaClusterOptions(this.opts, this.outbound), this.opts.maxBytesPerFetch);
    return this.reader;
  }

  /** The topics this query reads now (subscribe: as listed; pattern: every matching topic that exists). */
  private async topics(admin: Admin): Promise<string[]> {
    if (this.opts.subscribe !== undefined) return this.opts.subscribe.split(',').map((t) => t.trim()).filter(Boolean);
    if (this.opts.assign !== undefined) return Object.keys(parseAssign(this.opts.assign) as Record<string, number[]>);
    const all = await admin.listTopics();
    return all.filter((t) => !t.startsWith('__') && this.pattern!.test(t)).sort();
  }

  /** Low and high watermarks of every partition the query reads now. */
  private async watermarks(): Promise<Map<string, PartitionWatermarks & { topic: string; partition: number }>> {
    const admin = await this.client();
    const out = new Map<string, PartitionWatermarks & { topic: string; partition: number }>();
    const assigned = this.opts.assign !== undefined ? (parseAssign(this.opts.assign) as Record<string, number[]>) : null;
    for (const topic of await this.topics(admin)) {
      let parts: { partition: number; high: string; low: string }[];
      try {
        parts = await admin.fetchTopicOffsets(topic);
      } catch (e) {
        // A subscribed topic that does not exist yet has no partitions (Spark waits for it too).
        if (/does not host this topic-partition|UNKNOWN_TOPIC_OR_PARTITION|not found/i.test((e as Error).message)) continue;
        throw e;
      }
      for (const p of parts) {
        if (assigned && !assigned[topic].includes(p.partition)) continue;
        out.set(tpKey(topic, p.partition), { topic, partition: p.partition, low: Number(p.low), high: Number(p.high) });
      }
    }
    return out;
  }

  async reportLatestOffset(): Promise<Offset | null> {
    try {
      const wm = await this.watermarks();
      if (wm.size === 0) return null;
      const o: KafkaOffsets = {};
      for (const w of wm.values()) (o[w.topic] ??= {})[String(w.partition)] = w.high;
      return o;
    } catch (e) {
      this.fail('read the latest offsets', e);
    }
  }

  /** The first batch's start: read from sources/0/0, or resolved now and written there. */
  private async initialOffsets(wm: Map<string, PartitionWatermarks & { topic: string; partition: number }>, create: boolean): Promise<KafkaOffsets | null> {
    const path = `${this.ctx.metadataPath}/0`;
    if (await this.ctx.checkpoint.exists(path)) {
      const text = (await this.ctx.checkpoint.read(path)).toString('utf8');
      const nl = text.indexOf('\n');
      const parsed = parseKafkaOffsets(JSON.parse(text.slice(nl + 1)));
      if (typeof parsed === 'string') throw new WeirError('BAD_OFFSET', `${path} in the checkpoint is not a Kafka source's initial offsets (${parsed}). The checkpoint belongs to another query: use a new checkpointLocation.`);
      return parsed;
    }
    if (!create) return null;
    const initial = await this.resolveStart(wm);
    await this.ctx.checkpoint.createAtomic(path, `${INITIAL_OFFSETS_VERSION}\n${formatKafkaOffsets(initial)}`);
    return initial;
  }

  private async resolveStart(wm: Map<string, PartitionWatermarks & { topic: string; partition: number }>): Promise<KafkaOffsets> {
    const out: KafkaOffsets = {};
    const byTimestamp = this.opts.startingTimestamp !== undefined ? null : this.opts.startingOffsetsByTimestamp !== undefined ? (parseOffsetsByTimestamp(this.opts.startingOffsetsByTimestamp) as KafkaOffsets) : undefined;
    if (byTimestamp !== undefined) {
      // Per partition, the time to look up: one for all (startingTimestamp) or each its own.
      const times = new Map<string, number>();
      for (const [k, w] of wm) {
        const t = byTimestamp === null ? this.opts.startingTimestamp! : byTimestamp[w.topic]?.[String(w.partition)];
        if (t === undefined) {
          throw new WeirError('VALIDATION_ERROR', `startingOffsetsByTimestamp gives no time for ${w.topic} partition ${w.partition}, which the query reads. As in Spark, list every partition of every topic read, or use startingTimestamp for one time for all.`);
        }
        times.set(k, t);
      }
      const admin = await this.client();
      // ListOffsets by timestamp asks one time per topic: one request per topic and distinct time.
      const asks = new Map<string, { topic: string; time: number }>();
      for (const [k, t] of times) asks.set(`${wm.get(k)!.topic}\u0000${t}`, { topic: wm.get(k)!.topic, time: t });
      for (const { topic, time } of asks.values()) {
        for (const p of await admin.fetchTopicOffsetsByTimestamp(topic, time)) {
          const k = tpKey(topic, p.partition);
          const w = wm.get(k);
          if (!w || times.get(k) !== time) continue;
          const o = Number(p.offset);
          if (o < 0 && this.opts.startingOffsetsByTimestampStrategy === 'error') {
            throw new WeirError(
              'VALIDATION_ERROR',
              `No offset matched from request of topic-partition ${topic}-${p.partition} and timestamp ${time}: it has no record at or after that time. ` +
                'Choose an earlier starting time, or set startingOffsetsByTimestampStrategy to "latest" to start such partitions at their end.',
            );
          }
          (out[topic] ??= {})[String(p.partition)] = o < 0 ? w.high : o;
        }
      }
      return out;
    }
    const s = parseStartingOffsets(this.opts.startingOffsets) as StartingOffsets;
    for (const w of wm.values()) {
      let o: number;
      if (s === 'earliest') o = w.low;
      else if (s === 'latest') o = w.high;
      else {
        const given = s[w.topic]?.[String(w.partition)];
        // Partitions the JSON leaves out start at earliest... unless it lists the topic: then, as in Spark, they must all be there.
        if (given === undefined) {
          if (s[w.topic]) throw new WeirError('VALIDATION_ERROR', `startingOffsets gives ${w.topic} but not its partition ${w.partition}. List every partition of the topic, or use -2 (earliest) / -1 (latest) for it.`);
          o = w.low;
        } else o = given === -2 ? w.low : given === -1 ? w.high : given;
      }
      (out[w.topic] ??= {})[String(w.partition)] = o;
    }
    return out;
  }

  /**
   * Trigger.AvailableNow (Spark's allDataForTriggerAvailableNow): the latest offsets now are the
   * run's end, so a topic produced to without pause cannot keep an available-now run going.
   */
  async prepareForTriggerAvailableNow(): Promise<void> {
    try {
      this.availableNowEnd = await this.watermarks();
    } catch (e) {
      this.fail('read the latest offsets', e);
    }
  }

  async latestOffset(start?: Offset | null, limit: ReadLimit = 'default'): Promise<Offset | null> {
    let wm: Map<string, PartitionWatermarks & { topic: string; partition: number }>;
    try {
      wm = this.availableNowEnd ?? (await this.watermarks());
    } catch (e) {
      this.fail('plan its next batch', e);
    }
    const base: KafkaOffsets = start ? this.offsetsOf(start) : ((await this.initialOffsets(wm, wm.size > 0)) ?? {});
    if (wm.size === 0 && !start) return null;
    // Every partition the source knows or sees now; a new one starts at 0 (its earliest possible).
    const from = new Map<string, number>();
    for (const [topic, ps] of Object.entries(base)) for (const [p, o] of Object.entries(ps)) from.set(tpKey(topic, Number(p)), o);
    for (const k of wm.keys()) if (!from.has(k)) from.set(k, 0);
    const end = new Map<string, number>();
    for (const [k, f] of from) {
      const w = wm.get(k);
      // A partition no longer listed keeps its offset (nothing more to read from it).
      end.set(k, w ? w.high : f);
    }
    const max = this.opts.maxOffsetsPerTrigger;
    if (max && limit !== 'all') this.rateLimit(from, end, max);
    const out: KafkaOffsets = {};
    for (const [k, e] of end) {
      const [topic, p] = splitTp(k);
      (out[topic] ??= {})[p] = e;
    }
    return out;
  }

  /**
   * Spark's maxOffsetsPerTrigger (KafkaMicroBatchStream.rateLimit): each partition gets the
   * budget's share in proportion to its backlog, rounded down, but a share below one offset is
   * rounded up so that no partition with records waits for the large ones to drain. A batch can
   * so exceed the limit by at most one offset per partition, as in Spark.
   */
  private rateLimit(from: Map<string, number>, end: Map<string, number>, limit: number): void {
    const sizes = [...end].map(([k, e]) => [k, e - (from.get(k) ?? 0)] as const).filter(([, n]) => n > 0);
    const total = sizes.reduce((s, [, n]) => s + n, 0);
    if (total < 1) return;
    for (const [k, size] of sizes) {
      const prorate = limit * (size / total);
      const share = prorate < 1 ? Math.ceil(prorate) : Math.floor(prorate);
      end.set(k, Math.min(end.get(k)!, (from.get(k) ?? 0) + share));
    }
  }

  private offsetsOf(o: Offset): KafkaOffsets {
    const parsed = parseKafkaOffsets(o);
    if (typeof parsed === 'string') {
      throw new WeirError('BAD_OFFSET', `Offset ${JSON.stringify(o)} was not written by a Kafka source (${parsed}). The checkpoint belongs to another query: use a new checkpointLocation.`);
    }
    return parsed;
  }

  /** Where (start, end] starts: `start`, or for a first batch the starting offsets the source logged. */
  private async startOffsets(start: Offset | null): Promise<KafkaOffsets> {
    if (start !== null) return this.offsetsOf(start);
    const initial = await this.initialOffsets(new Map(), false);
    if (!initial) throw new WeirError('BAD_OFFSET', `The checkpoint has offsets for a first batch but no ${this.ctx.metadataPath}/0 with the Kafka source's starting offsets. It was not written by this source: use a new checkpointLocation.`);
    return initial;
  }

  /** One split per topic partition whose offsets moved, in the order getBatch reads them. */
  async planInputPartitions(start: Offset | null, end: Offset): Promise<{ start: Offset | null; end: Offset }[]> {
    const e = this.offsetsOf(end);
    const s = await this.startOffsets(start);
    const splits: { start: Offset | null; end: Offset }[] = [];
    for (const topic of Object.keys(e).sort()) {
      for (const p of Object.keys(e[topic]).sort((a, b) => Number(a) - Number(b))) {
        const from = s[topic]?.[p] ?? 0;
        if (from !== e[topic][p]) splits.push({ start: { [topic]: { [p]: from } }, end: { [topic]: { [p]: e[topic][p] } } });
      }
    }
    return splits;
  }

  async getBatch(start: Offset | null, end: Offset): Promise<SourceBatch> {
    const e = this.offsetsOf(end);
    const s = await this.startOffsets(start);
    this.lastSkipped = { offsets: 0, warnings: [], logged: [] };
    const ranges: { topic: string; partition: number; from: number; to: number }[] = [];
    for (const topic of Object.keys(e).sort()) {
      for (const p of Object.keys(e[topic]).sort((a, b) => Number(a) - Number(b))) {
        ranges.push({ topic, partition: Number(p), from: s[topic]?.[p] ?? 0, to: e[topic][p] });
      }
    }
    const rows: Row[] = [];
    let wm: Map<string, PartitionWatermarks & { topic: string; partition: number }> | null = null;
    for (const r of ranges) {
      const tp = tpKey(r.topic, r.partition);
      if (r.to < r.from) {
        this.dataLoss(r.topic, r.partition, r.to, r.from, `its offset went back from ${r.from} to ${r.to} (the topic was deleted and recreated, or the partition truncated)`, offsetChanged(tp, r.from, r.to));
        continue;
      }
      if (r.to === r.from) continue;
      try {
        wm ??= await this.watermarks();
      } catch (err) {
        this.fail('read a batch', err);
      }
      const w = wm.get(tpKey(r.topic, r.partition));
      let from = r.from;
      if (!w) {
        this.dataLoss(r.topic, r.partition, r.from, r.to, 'the partition no longer exists', `Partition ${tp} is gone. Some data may have been missed.`);
        continue;
      }
      if (w.low > from) {
        const lostTo = Math.min(w.low, r.to);
        this.dataLoss(r.topic, r.partition, from, lostTo, `retention deleted them (the partition now starts at ${w.low})`, `Cannot fetch offset ${from} of ${tp}: the earliest available offset is ${w.low}, some data may have been missed.`);
        from = lostTo;
        if (from >= r.to) continue;
      }
      let got: { records: FetchedRecord[]; highWatermark: number };
      try {
        got = await this.partitionReader().read(r.topic, r.partition, from, r.to);
      } catch (err) {
        this.fail(`read ${r.topic}-${r.partition} offsets [${from}, ${r.to})`, err);
      }
      if (got.highWatermark < r.to) {
        const readTo = got.records.length ? got.records[got.records.length - 1].offset + 1 : from;
        this.dataLoss(r.topic, r.partition, Math.max(readTo, got.highWatermark), r.to, `the partition now ends at ${got.highWatermark} (the topic was deleted and recreated, or the partition truncated)`, offsetChanged(tp, r.to, got.highWatermark));
      }
      for (const rec of got.records) rows.push(this.toRow(r.topic, r.partition, rec));
    }
    const read = await this.readAvroValues(rows);
    return this.lastSkipped.logged.length ? { ...read, warnings: [...this.lastSkipped.logged] } : read;
  }

  /**
   * The preview's look at the newest records: per partition the last ceil(n / partitions)
   * offsets below its high watermark (ListOffsets, then Fetch by offset, as a batch reads: no
   * consumer group, nothing committed), then the newest n of them by timestamp within the byte
   * bound, oldest first. Nothing is written to the checkpoint (no initial offsets).
   */
  async sampleRecent(limit: RecentRecordsLimit): Promise<RecentRecords> {
    let wm: Map<string, PartitionWatermarks & { topic: string; partition: number }>;
    try {
      wm = await this.watermarks();
    } catch (e) {
      this.fail('read its latest offsets', e);
    }
    const parts = [...wm.values()].filter((w) => w.high > w.low).sort((a, b) => (tpKey(a.topic, a.partition) < tpKey(b.topic, b.partition) ? -1 : 1));
    const per = parts.length ? Math.ceil(limit.records / parts.length) : 0;
    // A fetch of at most the byte bound (the broker still returns one whole record batch past it).
    this.reader ??= new PartitionReader(kafkaClusterOptions(this.opts, this.outbound), Math.max(1024, Math.min(this.opts.maxBytesPerFetch, limit.bytes)));
    const found: { row: Row; size: number }[] = [];
    let fetched = 0;
    let stoppedAtBytes = false;
    for (const w of parts) {
      if (limit.signal.aborted) break;
      if (fetched >= limit.bytes) {
        stoppedAtBytes = true;
        break;
      }
      const from = Math.max(w.low, w.high - per);
      let got: { records: FetchedRecord[] };
      try {
        got = await this.reader.read(w.topic, w.partition, from, w.high);
      } catch (e) {
        this.fail(`read ${w.topic}-${w.partition} offsets [${from}, ${w.high})`, e);
      }
      for (const rec of got.records) {
        const size = (rec.key?.length ?? 0) + (rec.value?.length ?? 0) + rec.headers.reduce((n, h) => n + h.key.length + (h.value?.length ?? 0), 0);
        fetched += size;
        found.push({ row: this.toRow(w.topic, w.partition, rec), size });
      }
    }
    found.sort((a, b) => (a.row.timestamp as number) - (b.row.timestamp as number));
    const kept: Row[] = [];
    let bytesRead = 0;
    for (let i = found.length - 1; i >= 0 && kept.length < limit.records; i--) {
      if (bytesRead + found[i].size > limit.bytes) {
        stoppedAtBytes = true;
        break;
      }
      bytesRead += found[i].size;
      kept.push(found[i].row);
    }
    return { ...(await this.readAvroValues(kept.reverse())), bytesRead, stoppedAtBytes };
  }

  /**
   * Records a batch needs that are gone. `spark` is Spark's sentence for the case (what users of
   * Spark search their logs for), said beside Weir's: in the error with failOnDataLoss true, and
   * with false in the warning the execution logs and in the batch's progress.
   */
  private dataLoss(topic: string, partition: number, from: number, to: number, why: string, spark: string): void {
    const range = `[${Math.min(from, to)}, ${Math.max(from, to)})`;
    if (this.opts.failOnDataLoss) {
      throw new DataLossError(
        `Kafka topic ${topic} partition ${partition}: offsets ${range} a batch needs are gone: ${why}. Some data may have been lost. ${spark} ` +
          'Raise the topic\'s retention so it outlasts a restart, or set source.options.failOnDataLoss to false to skip what is gone.',
        { topic, partition, from: Math.min(from, to), to: Math.max(from, to) },
      );
    }
    this.lastSkipped.offsets += Math.abs(to - from);
    this.lastSkipped.warnings.push(`${topic}-${partition} ${range}: ${why}. ${spark}`);
    this.lastSkipped.logged.push(`Kafka source ${this.description} skipped offsets ${range} of ${topic}-${partition} (${why}). ${spark} ${SKIPPED_BECAUSE_FAIL_ON_DATA_LOSS_FALSE}`);
  }

  private toRow(topic: string, partition: number, r: FetchedRecord): Row {
    const row: Row = { key: r.key, value: r.value, topic, partition, offset: r.offset, timestamp: r.timestamp, timestampType: r.timestampType };
    if (this.opts.includeHeaders) {
      row.headers = this.headersAsJsonText
        ? JSON.stringify(r.headers.map((h) => ({ key: h.key, value: h.value === null ? null : h.value.toString('utf8') })))
        : r.headers.map((h) => ({ key: h.key, value: h.value }));
    }
    return row;
  }

  offsetLag(from: Offset | null, to: Offset | null): number | null {
    if (to === null) return null;
    const t = parseKafkaOffsets(to);
    const f = from === null ? {} : parseKafkaOffsets(from);
    if (typeof t === 'string' || typeof f === 'string') return null;
    let lag = 0;
    for (const [topic, ps] of Object.entries(t)) for (const [p, o] of Object.entries(ps)) lag += Math.max(0, o - (f[topic]?.[p] ?? 0));
    return lag;
  }

  /** Per-partition offsets and lag (latest minus processed), Spark's offsets-behind-latest figures, and what data loss skipped. */
  metrics(_start: Offset | null, end: Offset, latest: Offset | null): Record<string, string> {
    const e = parseKafkaOffsets(end);
    const l = latest === null ? null : parseKafkaOffsets(latest);
    if (typeof e === 'string' || typeof l === 'string') return {};
    const lag: Record<string, number> = {};
    for (const [topic, ps] of Object.entries(e)) for (const [p, o] of Object.entries(ps)) lag[tpKey(topic, Number(p))] = Math.max(0, (l?.[topic]?.[p] ?? o) - o);
    const lags = Object.values(lag);
    const m: Record<string, string> = {
      offsetsByPartition: formatKafkaOffsets(e),
      lagByPartition: JSON.stringify(lag),
    };
    if (lags.length) {
      m.minOffsetsBehindLatest = String(Math.min(...lags));
      m.maxOffsetsBehindLatest = String(Math.max(...lags));
      m.avgOffsetsBehindLatest = String(lags.reduce((a, b) => a + b, 0) / lags.length);
    }
    if (this.lastSkipped.offsets > 0) {
      m.dataLossSkippedOffsets = String(this.lastSkipped.offsets);
      m.dataLossWarning = `Skipped offsets that are gone (failOnDataLoss is false): ${this.lastSkipped.warnings.join('; ')}`;
    }
    return m;
  }

  async stop(): Promise<void> {
    // A connect still in flight ends connected: wait for it so that its client is closed too.
    await this.connecting?.catch(() => undefined);
    const admin = this.admin;
    const reader = this.reader;
    this.admin = null;
    this.reader = null;
    await Promise.allSettled([admin?.disconnect(), reader?.close()]);
  }
}

/** Spark's sentence for a partition whose offset went back (KafkaMicroBatchStream's reportDataLoss). */
function offsetChanged(tp: string, from: number, to: number): string {
  return `Partition ${tp}'s offset was changed from ${from} to ${to}, some data may have been missed.`;
}

/** What Spark adds to a data-loss warning when failOnDataLoss is false. */
const SKIPPED_BECAUSE_FAIL_ON_DATA_LOSS_FALSE =
  'Some data may have been lost because they are not available in Kafka any more; either the data was aged out by Kafka or the topic may have been deleted before all the data in the topic was processed. ' +
  'If you want your streaming query to fail on such cases, set the source option "failOnDataLoss" to "true".';

function splitTp(k: string): [string, string] {
  const i = k.lastIndexOf('-');
  return [k.slice(0, i), k.slice(i + 1)];
}

const kafkaSourceDefinition: SourceDefinition<KafkaSourceOptions> = {
  type: 'kafka',
  options: kafkaSourceOptions,
  replayable: () => ({ replayable: true, reason: REASON }),
  create: (o, ctx) => new KafkaSource(o, ctx.schema, ctx),
  // Before validation includeHeaders may still be Spark's string ("true"): canonicalKafkaOptions has typed it.
  defaultSchema: (o) => kafkaSourceSchema(o.includeHeaders === true),
  checkSchema: (schema) => {
    for (const f of schema) {
      const t = KAFKA_SOURCE_COLUMNS[f.name];
      if (t === undefined) return `the kafka source has the columns ${Object.keys(KAFKA_SOURCE_COLUMNS).join(', ')}; "${f.name}" is not one of them (parse value with CAST(value AS STRING) and get_json_object in the SQL)`;
      // A BIGINT partition or timestampType is taken too: it holds every INT, and specs written
      // when Weir gave these columns as BIGINT list them so.
      const same = f.name === 'headers'
        ? f.type === HEADERS_AS_JSON_TEXT || simpleTypeString(f) === simpleTypeString({ name: f.name, ...t })
        : t.type === f.type && (f.integral === t.integral || (f.type === 'long' && f.integral === undefined));
      if (!same) return `the kafka source's column ${f.name} is ${simpleTypeString({ name: f.name, ...t })}, not ${simpleTypeString(f)}`;
    }
    return undefined;
  },
  secretOptions: KAFKA_SECRET_OPTIONS,
  canonicalOptions: (raw) => canonicalKafkaOptions(raw, kafkaSourceOptions, 'source'),
  destinations: [{ option: 'bootstrapServers', kind: 'kafka' }, { option: 'schemaRegistryUrl', kind: 'http' }],
};

registerSource(kafkaSourceDefinition);
