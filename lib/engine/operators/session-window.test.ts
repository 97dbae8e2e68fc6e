import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import type { StreamingRelation } from '../query/logical-plan';
import { StatefulQueryRunner } from '../query/testing/stateful-test-harness';
import type { OutputMode, Row } from '../types';

const SEC = 1000;
const lines: StreamingRelation = {
  kind: 'StreamingRelation',
  sourceName: 'events',
  schema: [{ name: 'value', type: 'string' }, { name: 'eventTime', type: 'timestamp' }],
  eventTime: 'eventTime',
  watermarkDelayMs: 30 * SEC,
};
const line = (value: string, seconds: number): Row => ({ value, eventTime: seconds * SEC });
const sorted = (rows: Row[]) => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

const SQL = (gap = "'10 seconds'") =>
  `SELECT sessionId, CAST(session_window.start AS LONG) AS s, CAST(session_window.end AS LONG) AS e, ` +
  `CAST(session_window.end AS LONG) - CAST(session_window.start AS LONG) AS durationMs, count(*) AS numEvents ` +
  `FROM (SELECT explode(split(value, ' ')) AS sessionId, eventTime FROM events) ` +
  `GROUP BY session_window(eventTime, ${gap}), sessionId`;

describe('session windows', () => {
  it('smoke', async () => {
    const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), SQL(), lines, 'complete');
    const b = await q.runBatch([line('hello world spark streaming', 40), line('world hello structured streaming', 41)]);
    console.log(b.output, q.outputSchema());
  });
});
