import { describe, expect, it } from 'vitest';
import { ConcurrentStreamLogUpdateError, CorruptCheckpointError } from '../errors';
import { CommitLog } from './commit-log';
import { InMemoryCheckpointFileManager } from './in-memory-checkpoint-file-manager';
import { OffsetSeqLog } from './offset-seq-log';
import { getOrCreateStreamMetadata, readStreamMetadata } from './stream-metadata';

describe('OffsetSeqLog', () => {
  it('writes Spark’s offsets/N format: v1, metadata JSON, one line per source, "-" for none, no trailing newline', async () => {
    const fm = new InMemoryCheckpointFileManager();
    const log = new OffsetSeqLog(fm);
    await log.add(0, { metadata: { batchWatermarkMs: 5, batchTimestampMs: 1703081374762, conf: { a: 'b' } }, offsets: [{ logOffset: 0 }, null] });
    const text = (await fm.read('offsets/0')).toString();
    expect(text).toBe('v1\n{"batchWatermarkMs":5,"batchTimestampMs":1703081374762,"conf":{"a":"b"}}\n{"logOffset":0}\n-');
    expect(await log.get(0)).toEqual({ metadata: { batchWatermarkMs: 5, batchTimestampMs: 1703081374762, conf: { a: 'b' } }, offsets: [{ logOffset: 0 }, null] });
  });

  it('fails with CONCURRENT_STREAM_LOG_UPDATE when the batch file exists, keeping the first', async () => {
    const fm = new InMemoryCheckpointFileManager();
    const log = new OffsetSeqLog(fm);
    const seq = { metadata: { batchWatermarkMs: 0, batchTimestampMs: 1, conf: {} }, offsets: [3] };
    await log.add(4, seq);
    const err = await log.add(4, { ...seq, offsets: [9] }).catch((e) => e);
    expect(err).toBeInstanceOf(ConcurrentStreamLogUpdateError);
    expect(err.code).toBe('CONCURRENT_STREAM_LOG_UPDATE');
    expect(err.message).toMatch(/Multiple streaming jobs detected for 4/);
    expect((await log.get(4))!.offsets).toEqual([3]);
  });

  it('finds the latest batch, purges below a threshold, and rejects unknown versions', async () => {
    const fm = new InMemoryCheckpointFileManager();
    const log = new OffsetSeqLog(fm);
    for (const id of [0, 1, 2, 10]) await log.add(id, { metadata: { batchWatermarkMs: 0, batchTimestampMs: id, conf: {} }, offsets: [id] });
    expect((await log.getLatest())!.batchId).toBe(10);
    expect(await log.purge(2)).toEqual([0, 1]);
    expect(await log.batchIds()).toEqual([2, 10]);
    await fm.createAtomic('offsets/11', 'v9\n{}\n1');
    await expect(log.get(11)).rejects.toBeInstanceOf(CorruptCheckpointError);
    await fm.createAtomic('offsets/12', 'v1\n{nope\n1');
    await expect(log.get(12)).rejects.toThrow(/offsets\/12 is corrupt/);
  });
});

describe('CommitLog', () => {
  it('writes v1 and nextBatchWatermarkMs, and reads a missing line 2 as watermark 0', async () => {
    const fm = new InMemoryCheckpointFileManager();
    const log = new CommitLog(fm);
    await log.add(0, { nextBatchWatermarkMs: 1234 });
    expect((await fm.read('commits/0')).toString()).toBe('v1\n{"nextBatchWatermarkMs":1234}');
    await fm.createAtomic('commits/1', 'v1');
    expect(await log.get(1)).toEqual({ nextBatchWatermarkMs: 0 });
    expect(await log.get(2)).toBeUndefined();
  });
});

describe('StreamMetadata', () => {
  it('creates the id once and returns the same id afterwards', async () => {
    const fm = new InMemoryCheckpointFileManager();
    let n = 0;
    const a = await getOrCreateStreamMetadata(fm, () => `id-${++n}`);
    const b = await getOrCreateStreamMetadata(fm, () => `id-${++n}`);
    expect(a).toEqual({ id: 'id-1', created: true });
    expect(b).toEqual({ id: 'id-1', created: false });
    expect((await fm.read('metadata')).toString()).toBe('{"id":"id-1"}');
    await fm.createAtomic('metadata', '{}', { overwrite: true });
    await expect(readStreamMetadata(fm)).rejects.toBeInstanceOf(CorruptCheckpointError);
  });
});
