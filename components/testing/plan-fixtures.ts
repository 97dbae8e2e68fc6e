/**
 * Plans the explain and plan-graph tests read: the engine's own explain of queries over streams
 * a, b and c, and the explain text of a stream-stream join, kept here so that each test draws
 * from one copy.
 */
import type { StreamingRelation } from '@/lib/engine/query/logical-plan';
import { compileStreamingQuery, type CompiledStreamingQuery } from '@/lib/engine/query/streaming-query';

const stream = (sourceName: string): StreamingRelation => ({
  kind: 'StreamingRelation',
  sourceName,
  schema: [{ name: 'id', type: 'long' }, { name: 'ts', type: 'timestamp' }],
  eventTime: 'ts',
  watermarkDelayMs: 10_000,
});

/** `sql` compiled over the streams a, b and c (id BIGINT, ts TIMESTAMP, a 10 s watermark), as a job's query is. */
export function compiledOverABC(sql: string, outputMode: 'append' | 'update' | 'complete' = 'append'): CompiledStreamingQuery {
  return compileStreamingQuery(sql, [stream('a'), stream('b'), stream('c')], { outputMode });
}

/** The engine's explain of a stream-stream join (job-draft-presenter's parseExplain reads it). */
export const JOIN_EXPLAIN = [
  'Project [i.id AS id] [stateless]',
  '+- Join Inner ((i.id = c.id)) [stateful: buffers both streams by join key; left side evicted 60001 ms behind the watermark]',
  '   +- Project [id AS i.id, ts AS i.ts] [stateless]',
  '      +- StreamingRelation impressions watermark(ts, 10000 ms) [source]',
  '   +- Project [id AS c.id, ts AS c.ts] [stateless]',
  '      +- StreamingRelation clicks watermark(ts, 20000 ms) [source]',
].join('\n');
