/**
 * The duplicate audit: read back what a job's sink holds, count rows per batch id, and compare
 * with what each committed batch wrote (BatchProgress: the progress's sink.numOutputRows). The
 * difference is what replays introduced. Shown next to the job's computed guarantee, so a team
 * sees whether the contract held: an exactly-once sink shows zero duplicates after any crash, a
 * bare append shows the replayed batch twice.
 */
import pg from 'pg';
import { guardedRedisConnector } from '@/lib/connectors';
import { assertConnectionOptions, guardedSocket, postgresDatabase, readCommittedRows, type JobSpec } from '@/lib/engine';
import { serverOutboundPolicy } from '../outbound';

interface BatchAudit {
  batchId: number;
  /** Rows the committed batch wrote, from its progress; null if no progress was recorded. */
  expected: number | null;
  /** Rows the sink holds with this batch id. */
  actual: number;
  duplicates: number;
}

export interface SinkAudit {
  sinkType: string;
  /** Whether Weir can read this sink back and attribute rows to batches. */
  readable: boolean;
  perBatch: boolean;
  note: string;
  batches: BatchAudit[];
  /** Rows the committed batches wrote (their progress's numOutputRows). */
  totalExpected: number;
  /** Rows the sink holds: totalExpected - missingRows + duplicateRows + unattributedRows, always. */
  totalActual: number;
  /** Rows a batch id holds beyond what its committed batch wrote: written again by a replay. */
  duplicateRows: number;
  /** Rows a committed batch wrote that its batch id does not hold (a lost write). */
  missingRows: number;
  /**
   * Rows under batch ids no committed batch has: a lost query's batches not re-run yet, or a
   * crashed batch before its recovery commits it. Neither written once nor a counted duplicate.
   */
  unattributedRows: number;
}

export interface CommittedBatch {
  batchId: number;
  numOutputRows: number;
}

/** The parts of what a sink holds, so that they always add up to totalActual. */
function parts(totalExpected: number, totalActual: number, duplicateRows: number, missingRows: number) {
  return { totalExpected, totalActual, duplicateRows, missingRows, unattributedRows: totalActual - (totalExpected - missingRows) - duplicateRows };
}

export function summarizeSinkAudit(sinkType: string, note: string, actualByBatch: Map<number, number> | null, totalActual: number, committed: CommittedBatch[]): SinkAudit {
  const expectedByBatch = new Map(committed.map((b) => [b.batchId, b.numOutputRows]));
  const totalExpected = committed.reduce((n, b) => n + b.numOutputRows, 0);
  if (!actualByBatch) {
    return { sinkType, readable: true, perBatch: false, note, batches: [], ...parts(totalExpected, totalActual, Math.max(0, totalActual - totalExpected), Math.max(0, totalExpected - totalActual)) };
  }
  const ids = [...new Set([...actualByBatch.keys(), ...expectedByBatch.keys()])].sort((a, b) => a - b);
  const batches = ids.map((batchId) => {
    const expected = expectedByBatch.get(batchId) ?? null;
    const actual = actualByBatch.get(batchId) ?? 0;
    return { batchId, expected, actual, duplicates: expected === null ? 0 : Math.max(0, actual - expected) };
  });
  const missing = batches.reduce((n, b) => n + (b.expected === null ? 0 : Math.max(0, b.expected - b.actual)), 0);
  return { sinkType, readable: true, perBatch: true, note, batches, ...parts(totalExpected, totalActual, batches.reduce((n, b) => n + b.duplicates, 0), missing) };
}

const unreadable = (sinkType: string, note: string): SinkAudit => ({ sinkType, readable: false, perBatch: false, note, batches: [], ...parts(0, 0, 0, 0) });

async function withPg<T>(connectionString: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  // The sink's destination came through the API: the outbound policy applies to reading it back.
  assertConnectionOptions('postgres', connectionString);
  const c = new pg.Client({ connectionString, stream: () => guardedSocket(serverOutboundPolicy(), 'postgres', postgresDatabase(connectionString)) });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const qi = (s: string) => `"${s.replace(/"/g, '""')}"`;

export async function auditSink(spec: JobSpec, committed: CommittedBatch[]): Promise<SinkAudit> {
  const type = spec.sink.type;
  const o = spec.sink.options as Record<string, unknown>;
  if (type === 'files') {
    const batches = await readCommittedRows(String(o.path), (o.format as 'json' | 'csv' | 'parquet' | undefined) ?? 'json', { header: o.header as boolean | undefined });
    const m = new Map<number, number>();
    for (const b of batches) m.set(b.batchId, (m.get(b.batchId) ?? 0) + b.rows.length);
    return summarizeSinkAudit(type, 'Read through the _weir_metadata batch log.', m, [...m.values()].reduce((a, b) => a + b, 0), committed);
  }
  if (type === 'postgres' || type === 'postgres-upsert' || type === 'postgres-replace') {
    const table = `${qi(String(o.schema ?? 'public'))}.${qi(String(o.table))}`;
    const col = o.batchIdColumn ? String(o.batchIdColumn) : null;
    return withPg(String(o.connectionString), async (c) => {
      const exists = await c.query(`SELECT to_regclass($1) AS t`, [`${String(o.schema ?? 'public')}.${String(o.table)}`]);
      if (!exists.rows[0].t) return summarizeSinkAudit(type, `Table ${o.table} does not exist yet.`, new Map(), 0, committed);
      const total = Number((await c.query(`SELECT count(*)::bigint AS n FROM ${table}`)).rows[0].n);
      if (col && type === 'postgres') {
        const rows = (await c.query(`SELECT ${qi(col)} AS b, count(*)::bigint AS n FROM ${table} GROUP BY 1`)).rows;
        return summarizeSinkAudit(type, `Rows per batch from the ${col} column.`, new Map(rows.map((r) => [Number(r.b), Number(r.n)])), total, committed);
      }
      if (type === 'postgres') {
        return summarizeSinkAudit(type, 'Totals only: set sink.options.batchIdColumn to count rows per batch.', null, total, committed);
      }
      // Upsert and replace cannot hold a row twice: a replay overwrites by key (the table's primary
      // key) or replaces the whole result. What can be checked is that no key is held twice.
      const keys = (o.keyColumns as string[] | undefined) ?? [];
      const distinct = keys.length
        ? Number((await c.query(`SELECT count(*)::bigint AS n FROM (SELECT DISTINCT ${keys.map(qi).join(', ')} FROM ${table}) k`)).rows[0].n)
        : total;
      const note =
        type === 'postgres-upsert'
          ? `Upsert overwrites by key (${keys.join(', ')}): a replay updates rows instead of adding them. ${total} rows for ${distinct} distinct keys.`
          : 'Replace mode holds the latest complete result only; a replay replaces it again.';
      return { sinkType: type, readable: true, perBatch: false, note, batches: [], ...parts(distinct, total, total - distinct, 0) };
    });
  }
  if (type === 'redis-stream') {
    const { Redis } = await import('ioredis');
    assertConnectionOptions('redis', String(o.url));
    const r = new Redis(String(o.url), { lazyConnect: true, maxRetriesPerRequest: 1, Connector: guardedRedisConnector(serverOutboundPolicy()) });
    try {
      await r.connect();
      // Entries carry their batchId field (redis-stream-sink.ts), so rows can be counted per batch.
      const entries = await r.xrange(String(o.stream), '-', '+', 'COUNT', 1_000_000);
      const m = new Map<number, number>();
      for (const [, fields] of entries) {
        const i = fields.indexOf('batchId');
        if (i >= 0) m.set(Number(fields[i + 1]), (m.get(Number(fields[i + 1])) ?? 0) + 1);
      }
      return summarizeSinkAudit(type, 'Rows per batch from each entry\'s batchId field.', m, entries.length, committed);
    } finally {
      r.disconnect();
    }
  }
  if (type === 'kafka') {
    const { countKafkaRecordsPerBatch, kafkaSinkOptions } = await import('@/lib/connectors/kafka/kafka-sink');
    const opts = kafkaSinkOptions.parse(o);
    if (!opts.topic) return unreadable(type, 'The sink takes each record\'s topic from a column: there is no single topic to read back.');
    // Records carry the weir-batch-id header (kafka-sink.ts), so they can be counted per batch.
    const { perBatch, total } = await countKafkaRecordsPerBatch(opts, serverOutboundPolicy());
    return summarizeSinkAudit(type, `Records per batch from each record's weir-batch-id header in topic ${opts.topic}.`, perBatch, total, committed);
  }
  return unreadable(type, `Weir cannot read a ${type} sink back.`);
}
