import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { ManualClock } from '../clock';
import { RateSource } from './rate-source';
import { getSourceDefinition } from './index';

const schema = [{ name: 'timestamp', type: 'timestamp' as const }, { name: 'value', type: 'long' as const }];

describe('RateSource', () => {
  it('derives rows from the offset and the recorded start time, identically after a restart', async () => {
    const clock = new ManualClock(10_000);
    const checkpoint = new InMemoryCheckpointFileManager();
    const ctx = { name: 'r', schema, checkpoint, metadataPath: 'sources/0', clock };
    const a = new RateSource({ rowsPerSecond: 4 }, ctx);
    await a.open();
    expect(await a.latestOffset(null)).toBeNull();
    clock.advance(2500);
    const end = await a.latestOffset(null);
    expect(end).toBe(2);
    const rows = (await a.getBatch(null, end!)).rows;
    expect(rows.map((r) => r.value)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(rows.map((r) => r.timestamp)).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((i) => 10_000 + i * 250));
    clock.advance(60_000);
    const b = new RateSource({ rowsPerSecond: 4 }, ctx);
    await b.open();
    expect((await b.getBatch(null, end!)).rows).toEqual(rows);
    expect(b.offsetLag(end, await b.reportLatestOffset())).toBe(60 * 4);
  });

  it('accepts only its own columns in source.schema', () => {
    const def = getSourceDefinition('rate')!;
    expect(def.checkSchema!(schema)).toBeUndefined();
    expect(def.checkSchema!([{ name: 'value', type: 'string' }])).toMatch(/produces only timestamp \(timestamp\) and value \(long\)/);
  });
});
