/**
 * RedisStreamSink: XADD each output row to a Redis stream, one entry per row with fields
 * `batchId` and `data` (the row as JSON).
 *
 * At-least-once: a batch's XADDs go in one MULTI/EXEC so a batch lands whole or not at all, but
 * nothing recognizes a replay: a batch re-run after a crash between EXEC and the engine's
 * `commits/N` is appended again. Consumers that cannot tolerate that deduplicate by the
 * `batchId` field (each batch's rows arrive contiguously, so "skip a batchId already seen" is
 * enough), which is why the field is there.
 */
import { z } from 'zod';
import type { Redis } from 'ioredis';
import { exactKeys, jsonWriter, type OutputMode, parseJsonRecord, registerSink, type Row, type Sink, type SinkBatchContext, type SinkDefinition, SinkError, type SinkSignature } from '../../engine';
import { redact, secretsOf } from '../postgres/pg-util';
import { createRedis } from './redis-util';

const redisStreamSinkOptions = z.strictObject({
  url: z.string().min(1).default('redis://127.0.0.1:6379'),
  stream: z.string().min(1).meta({ examples: ['results'] }),
  maxLen: z.number().int().min(1).optional().describe('Approximate MAXLEN applied on each XADD; empty: unbounded.'),
});
export type RedisStreamSinkOptions = z.infer<typeof redisStreamSinkOptions>;

const signatureOf = (o: RedisStreamSinkOptions) => ({
  signature: 'at-least-once' as SinkSignature,
  reason: `XADD to ${o.stream} appends: a batch re-run after a crash before its commit is appended again (entries carry batchId so consumers can drop the repeat).`,
});

export class RedisStreamSink implements Sink {
  readonly description: string;
  readonly signature: SinkSignature;
  readonly signatureReason: string;
  readonly supportedOutputModes: readonly OutputMode[] = ['append', 'update'];
  private readonly redis: Redis;
  private readonly secrets: string[];

  constructor(private readonly opts: RedisStreamSinkOptions) {
    ({ signature: this.signature, reason: this.signatureReason } = signatureOf(opts));
    this.description = `RedisStreamSink[${opts.stream}]`;
    this.redis = createRedis(opts.url);
    this.secrets = secretsOf(opts.url);
  }

  async addBatch(batchId: number, rows: Row[], ctx: SinkBatchContext): Promise<void> {
    if (rows.length === 0) return;
    const tx = this.redis.multi();
    const json = jsonWriter(ctx.schema);
    for (const row of rows) {
      if (this.opts.maxLen) tx.xadd(this.opts.stream, 'MAXLEN', '~', this.opts.maxLen, '*', 'batchId', String(batchId), 'data', json.stringify(json.row(row)));
      else tx.xadd(this.opts.stream, '*', 'batchId', String(batchId), 'data', json.stringify(json.row(row)));
    }
    try {
      const res = await tx.exec();
      const failed = res?.find(([err]) => err);
      if (!res || failed) throw failed?.[0] ?? new Error('transaction aborted');
    } catch (e) {
      throw new SinkError(`Redis stream sink could not write batch ${batchId} to ${this.opts.stream}: ${redact((e as Error)?.message ?? String(e), this.secrets)}. The batch is not committed and will be re-run; check Redis is reachable.`, { batchId });
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

const redisStreamSinkDefinition: SinkDefinition<RedisStreamSinkOptions> = {
  type: 'redis-stream',
  options: redisStreamSinkOptions,
  signature: signatureOf,
  supportedOutputModes: () => ['append', 'update'],
  create: (o) => new RedisStreamSink(o),
  readRows: async (o, outputSchema, warn) => {
    const redis = createRedis(o.url);
    try {
      const entries = (await redis.xrange(o.stream, '-', '+')) as [string, string[]][];
      const names = outputSchema?.map((f) => f.name) ?? [];
      return entries.map(([id, f]) => {
        const data = f[f.indexOf('data') + 1];
        const raw = JSON.parse(data) as Row;
        // An entry of the query's columns as the engine holds its values (read as the
        // redis-stream source reads a record), so that it prints as the sink wrote it; one of
        // other columns (another writer's) as it is.
        if (!outputSchema || !exactKeys(raw, names)) return raw;
        const r = parseJsonRecord(data, outputSchema);
        if ('reason' in r) {
          warn?.(`entry ${id} of stream ${o.stream} does not hold the query's output (${r.reason}); printed as read`, raw);
          return raw;
        }
        return r.row;
      });
    } finally {
      redis.disconnect();
    }
  },
  secretOptions: ['url'],
  destinations: [{ option: 'url', kind: 'redis' }],
};

registerSink(redisStreamSinkDefinition);
