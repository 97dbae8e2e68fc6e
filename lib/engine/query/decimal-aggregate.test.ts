/**
 * Decimal sum/avg/min/max in a streaming aggregation: Spark's result types, exact values, and
 * buffers that survive a restart from the checkpoint (the state value codec keeps the bigints).
 */
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { encodeRows } from '../sinks/files-sink';
import type { Schema } from '../types';
import { formatDecimal } from './decimal';
import { StatefulQueryRunner } from './testing/stateful-test-harness';

const schema: Schema = [{ name: 'region', type: 'string' }, { name: 'amount', type: 'string' }];
const relation = { kind: 'StreamingRelation' as const, sourceName: 'orders', schema };
const SQL = `SELECT region, sum(CAST(amount AS DECIMAL(30,2))) AS total, avg(CAST(amount AS DECIMAL(30,2))) AS mean,
  max(CAST(amount AS DECIMAL(30,2))) AS top FROM orders GROUP BY region`;

describe('decimal aggregates', () => {
  it("types sum DECIMAL(p+10,s) and avg DECIMAL(p+4,s+4), exact across a restart", async () => {
    const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), SQL, relation, 'complete');
    // 0.1 + 0.2 + … in doubles drifts; 10^27 + 0.01 is beyond a double's 15 digits.
    await q.runBatch([{ region: 'eu', amount: '0.10' }, { region: 'eu', amount: '0.20' }, { region: 'us', amount: '1000000000000000000000000000.00' }]);
    q.restart();
    const { output } = await q.runBatch([{ region: 'eu', amount: '0.05' }, { region: 'us', amount: '0.01' }, { region: 'us', amount: null }]);
    const out = q.outputSchema();
    expect(out.find((f) => f.name === 'total')).toMatchObject({ type: 'decimal', precision: 38, scale: 2 });
    expect(out.find((f) => f.name === 'mean')).toMatchObject({ type: 'decimal', precision: 34, scale: 6 });
    expect(out.find((f) => f.name === 'top')).toMatchObject({ type: 'decimal', precision: 30, scale: 2 });
    const text = (r: (typeof output)[number], k: string, s: number) => formatDecimal(r[k] as bigint, s);
    const eu = output.find((r) => r.region === 'eu')!;
    const us = output.find((r) => r.region === 'us')!;
    expect([text(eu, 'total', 2), text(eu, 'mean', 6), text(eu, 'top', 2)]).toEqual(['0.35', '0.116667', '0.20']);
    expect([text(us, 'total', 2), text(us, 'mean', 6)]).toEqual(['1000000000000000000000000000.01', '500000000000000000000000000.005000']);
    // Written as Spark's JSON writer writes a decimal: a number with its exact digits.
    expect(encodeRows([us], out, 'json', false)).toBe('{"region":"us","total":1000000000000000000000000000.01,"mean":500000000000000000000000000.005000,"top":1000000000000000000000000000.00}\n');
  });
});
