/**
 * previewInProcess, the host of the preview processes: a child whose one expression keeps its
 * event loop busy (its own timers cannot fire) is killed at the limit and answers PREVIEW_TIMEOUT,
 * and leaves no process behind; one preview over the concurrency limit is refused at once with
 * PREVIEW_BUSY while the others run.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseJobSpec, WeirError } from '@/lib/engine';
import { waitFor } from '@/lib/testing/wait-for';
import { previewInProcess, type PreviewProcessLimits } from './preview-host';

function spec(sql: string): Record<string, unknown> {
  const r = parseJobSpec({
    name: 'p',
    source: { name: 's', type: 'memory', options: { stream: 'p' }, schema: [{ name: 'n', type: 'long' }] },
    sql,
    sink: { type: 'memory', options: { table: 'p' } },
    outputMode: 'append',
    trigger: { type: 'available-now' },
    checkpointLocation: 'memory://p',
  });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.spec as unknown as Record<string, unknown>;
}
// A regexp walk with the largest pattern the limits allow over a 1 MiB value: linear, but several
// seconds of one synchronous call (about 6 s measured), far over the 1 s limit below.
const BUSY_SQL = "SELECT regexp_count(repeat('a', 1000000), '(?i)[a-z]{100}[a-z]{100}c') AS c FROM s";
const request = (sql: string) => ({ spec: spec(sql), sample: [{ n: 1 }], roots: { checkpointRoot: '/nonexistent', filesRoots: [] }, outbound: {} });
const limits: PreviewProcessLimits = { memoryLimitMb: 128, timeoutMs: 1000, maxConcurrent: 1 };

/** This process's children that run a preview process. */
function previewChildren(): string[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    // ps exits 1 when there is no such process
  }
  return out.split('\n').filter((l) => l.includes('preview-process'));
}

describe('previewInProcess', () => {
  it('kills a child whose expression holds its event loop at the time limit: PREVIEW_TIMEOUT, no process left', async () => {
    const err = await previewInProcess(request(BUSY_SQL), limits).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WeirError);
    expect((err as WeirError).code).toBe('PREVIEW_TIMEOUT');
    expect((err as WeirError).message).toMatch(/did not finish within 1000 ms and was stopped/);
    await waitFor('no preview process left', () => previewChildren().length === 0, 10_000);
  }, 60_000);

  it('refuses one preview over WEIR_PREVIEW_CONCURRENCY with PREVIEW_BUSY while the other runs', async () => {
    const first = previewInProcess(request(BUSY_SQL), limits).catch((e: unknown) => e);
    const second = await previewInProcess(request('SELECT n FROM s'), limits).catch((e: unknown) => e);
    expect((second as WeirError).code).toBe('PREVIEW_BUSY');
    expect((second as WeirError).message).toMatch(/WEIR_PREVIEW_CONCURRENCY.*Try again/);
    expect(((await first) as WeirError).code).toBe('PREVIEW_TIMEOUT');
    // The slot is free again.
    const third = await previewInProcess(request('SELECT n FROM s'), limits);
    expect(third.rows).toEqual([{ n: 1 }]);
  }, 60_000);
});
