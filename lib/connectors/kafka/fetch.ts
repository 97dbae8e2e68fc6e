/**
 * Reading an exact offset range of a partition, as Spark's KafkaConsumer.assign + seek does.
 *
 * KafkaJS's public consumer only reads through a consumer group (subscribe, rebalance, commit),
 * which cannot say "offsets [a, b) of partition p" and would make every batch wait for a group
 * join. Its Cluster and Broker classes, which its own consumer uses, can: this module builds a
 * Cluster with the same options as `createKafka` and sends Fetch requests to each partition's
 * leader. These are KafkaJS internals, so the dependency is pinned to the exact version these
 * tests ran against.
 */
import { createRequire } from 'node:module';
import type { ISocketFactory, SASLOptions } from 'kafkajs';
import type tls from 'node:tls';

const require = createRequire(import.meta.url);

export interface FetchedRecord {
  offset: number;
  key: Buffer | null;
  value: Buffer | null;
  timestamp: number;
  /** 0 CreateTime, 1 LogAppendTime (Spark's timestampType). */
  timestampType: number;
  headers: { key: string; value: Buffer | null }[];
}

interface RawMessage {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  timestamp: string;
  headers?: Record<string, Buffer | Buffer[] | null | undefined>;
  isControlRecord?: boolean;
  batchContext?: { timestampType?: number };
}

interface RawBroker {
  fetch(req: {
    replicaId: number;
    isolationLevel: number;
    maxWaitTime: number;
    minBytes: number;
    maxBytes: number;
    topics: { topic: string; partitions: { partition: number; fetchOffset: string; maxBytes: number }[] }[];
  }): Promise<{ responses: { topicName: string; partitions: { partition: number; highWatermark: string; messages: RawMessage[] }[] }[] }>;
}

interface RawCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  addMultipleTargetTopics(topics: string[]): Promise<void>;
  refreshMetadata(): Promise<void>;
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
  findBroker(q: { nodeId: string }): Promise<RawBroker>;
}

export interface ClusterOptions {
  brokers: string[];
  ssl: tls.ConnectionOptions | false;
  sasl?: SASLOptions;
  clientId: string;
  requestTimeout: number;
  socketFactory: ISocketFactory;
}

/** Fetch isolation level: read_committed, so aborted transactional records are never read. */
const READ_COMMITTED = 1;

export class PartitionReader {
  private cluster: RawCluster;
  private connected = false;

  constructor(opts: ClusterOptions, private readonly maxBytesPerFetch: number) {
    const Cluster = require('kafkajs/src/cluster') as new (o: unknown) => RawCluster;
    const { createLogger, LEVELS } = require('kafkajs/src/loggers') as { createLogger: (o: unknown) => unknown; LEVELS: { NOTHING: number } };
    this.cluster = new Cluster({
      logger: createLogger({ level: LEVELS.NOTHING, logCreator: () => () => undefined }),
      retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 5_000 },
      offsets: new Map(),
      socketFactory: opts.socketFactory,
      brokers: opts.brokers,
      ssl: opts.ssl,
      sasl: opts.sasl,
      clientId: opts.clientId,
      connectionTimeout: 10_000,
      requestTimeout: opts.requestTimeout,
      enforceRequestTimeout: true,
      metadataMaxAge: 300_000,
      allowAutoTopicCreation: false,
      isolationLevel: READ_COMMITTED,
    });
  }

  private async ready(topics: string[]): Promise<void> {
    if (!this.connected) {
      await this.cluster.connect();
      this.connected = true;
    }
    await this.cluster.addMultipleTargetTopics(topics);
  }

  /**
   * Records with offsets in [from, to) of one partition, in offset order. Stops early (returning
   * what it has) when the partition's high watermark is below `to`; the caller decides whether
   * that is data loss. Offsets inside the range may be missing (compaction, transaction markers).
   */
  async read(topic: string, partition: number, from: number, to: number): Promise<{ records: FetchedRecord[]; highWatermark: number }> {
    await this.ready([topic]);
    const out: FetchedRecord[] = [];
    let next = from;
    let high = Number.MAX_SAFE_INTEGER;
    let refreshed = false;
    // A broker may answer a fetch with nothing even though records exist (a leader change, a
    // busy broker): ask again a few times before giving up on the batch.
    let emptyFetches = 0;
    while (next < to && next < high) {
      const leaders = this.cluster.findLeaderForPartitions(topic, [partition]);
      const nodeId = Object.keys(leaders)[0];
      if (nodeId === undefined) {
        if (refreshed) throw new Error(`partition ${topic}-${partition} has no leader in the cluster metadata`);
        await this.cluster.refreshMetadata();
        refreshed = true;
        continue;
      }
      const broker = await this.cluster.findBroker({ nodeId });
      const res = await broker.fetch({
        replicaId: -1,
        isolationLevel: READ_COMMITTED,
        maxWaitTime: 100,
        minBytes: 1,
        maxBytes: this.maxBytesPerFetch,
        topics: [{ topic, partitions: [{ partition, fetchOffset: String(next), maxBytes: this.maxBytesPerFetch }] }],
      });
      const p = res.responses.find((r) => r.topicName === topic)?.partitions.find((x) => x.partition === partition);
      if (!p) throw new Error(`the broker did not answer for ${topic}-${partition}`);
      high = Number(p.highWatermark);
      let advanced = false;
      for (const m of p.messages) {
        const off = Number(m.offset);
        // A fetch returns whole record batches: skip what lies before `next` or past `to`.
        if (off < next || off >= to) continue;
        next = off + 1;
        advanced = true;
        if (m.isControlRecord) continue;
        out.push({
          offset: off,
          key: m.key ?? null,
          value: m.value ?? null,
          timestamp: Number(m.timestamp),
          timestampType: m.batchContext?.timestampType ?? 0,
          headers: Object.entries(m.headers ?? {}).flatMap(([key, v]) => (Array.isArray(v) ? v : [v ?? null]).map((value) => ({ key, value }))),
        });
      }
      if (!advanced) {
        // Nothing in range came back (only records before `next`, or nothing at all): step past
        // what did come, or stop rather than ask the same question again.
        const past = Math.max(-1, ...p.messages.map((m) => Number(m.offset))) + 1;
        if (past > next) next = past;
        else if (++emptyFetches >= 5) {
          // Offsets below the high watermark always come back (compacted or aborted ones as the
          // record batch holding later offsets), so repeated empty answers are a broker problem,
          // not a gap: fail the batch (it is retried) rather than return it short.
          throw new Error(`the broker answered ${emptyFetches} fetches of ${topic}-${partition} at offset ${next} with no records while its high watermark is ${high}`);
        }
      } else emptyFetches = 0;
    }
    return { records: out, highWatermark: high };
  }

  async close(): Promise<void> {
    if (this.connected) await this.cluster.disconnect();
    this.connected = false;
  }
}
