/**
 * Test support: a stream named `events` of a given schema, and a runner of a stateless query over
 * rows of it — one batch through the operators the real compilation path makes — for the
 * property tests of the value types (their oracles compare values, not plans).
 */
import type { Row, Schema } from '../../types';
import type { StreamingRelation } from '../logical-plan';
import { compileStreamingQuery } from '../streaming-query';

export function eventsQuery(schema: Schema): { rel: StreamingRelation; run: (sql: string, input: Row[]) => Promise<Row[]> } {
  const rel: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'events', schema, watermarkDelayMs: 0 };
  const run = async (sql: string, input: Row[]): Promise<Row[]> => {
    const q = compileStreamingQuery(sql, rel);
    let out = input;
    for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
    return out;
  };
  return { rel, run };
}
