/**
 * previewRecentRecords' time bound and failures, with sources registered here: a source that
 * never answers is aborted and stopped at the time limit (PREVIEW_TIMEOUT), one that throws is
 * PREVIEW_SOURCE_UNAVAILABLE naming it and is stopped too.
 */
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { WeirError } from '../errors';
import { parseJobSpec } from '../spec/job-spec';
import type { RecentRecordsLimit, Source } from '../sources/source';
import { registerSource } from '../sources/index';
import { previewRecentRecords } from './query-preview';

const seen = { aborted: false, stopped: 0 };
function fakeSource(description: string, sampleRecent: (l: RecentRecordsLimit) => Promise<never>): Source {
  return {
    description,
    replayable: true,
    replayableReason: 'test',
    schema: [{ name: 'n', type: 'long' }],
    latestOffset: async () => null,
    getBatch: async () => ({ rows: [], badRecords: [] }),
    sampleRecent,
    stop: async () => void seen.stopped++,
  };
}
registerSource({
  type: 'preview-hang',
  options: z.object({}).strict(),
  replayable: () => ({ replayable: true, reason: 'test' }),
  create: () => fakeSource('Hang[]', (l) => new Promise<never>(() => l.signal.addEventListener('abort', () => (seen.aborted = true)))),
});
registerSource({
  type: 'preview-broken',
  options: z.object({}).strict(),
  replayable: () => ({ replayable: true, reason: 'test' }),
  create: () => fakeSource('Broken[db.internal]', async () => { throw new Error('connect ECONNREFUSED 10.0.0.9:5432'); }),
});

const spec = (type: string) => {
  const r = parseJobSpec({
    name: 'p',
    source: { name: 's', type, options: {}, schema: [{ name: 'n', type: 'long' }] },
    sql: 'SELECT n FROM s',
    sink: { type: 'memory', options: { table: 'p' } },
    outputMode: 'append',
    trigger: { type: 'available-now' },
    checkpointLocation: 'memory://p',
  });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.spec;
};

describe('previewRecentRecords', () => {
  it('aborts and stops a source that does not answer within the time limit', async () => {
    const err = await previewRecentRecords(spec('preview-hang'), { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WeirError);
    expect((err as WeirError).code).toBe('PREVIEW_TIMEOUT');
    expect((err as WeirError).message).toMatch(/Hang\[\].*200 ms/);
    expect(seen.aborted).toBe(true);
    expect(seen.stopped).toBe(1);
  });

  it('names a source that cannot be read and says what to do; the source is stopped', async () => {
    const err = await previewRecentRecords(spec('preview-broken')).catch((e: unknown) => e);
    expect((err as WeirError).code).toBe('PREVIEW_SOURCE_UNAVAILABLE');
    expect((err as WeirError).message).toMatch(/Broken\[db\.internal\]: connect ECONNREFUSED.*paste a sample/);
    expect(seen.stopped).toBe(2);
  });
});
