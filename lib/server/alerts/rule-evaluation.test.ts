/**
 * Every rule over synthetic histories: it holds exactly from the batch where its condition starts
 * to hold (checked against a hand-written model loop over random histories), and stops when the
 * condition stops.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dataLossOf, evaluateRule, idleReportFreshMs, stateGrowth, type BatchSample, type EvaluationContext, type RunSample } from './rule-evaluation';

const T0 = Date.UTC(2026, 10, 29, 9, 0, 0);

function batches(points: { rows?: number; lag?: number | null; durationMs?: number; bytes?: number; atMs?: number }[], stepMs = 1000): BatchSample[] {
  return points
    .map((p, i) => ({
      batchId: i,
      timestamp: new Date(T0 + (p.atMs ?? i * stepMs)),
      stateRowsTotal: BigInt(p.rows ?? 0),
      stateMemoryBytes: BigInt(p.bytes ?? 0),
      stateDiskBytes: BigInt(Math.floor((p.bytes ?? 0) / 2)),
      commitLag: p.lag === undefined ? 0n : p.lag === null ? null : BigInt(p.lag),
      batchDurationMs: p.durationMs ?? 10,
    }))
    .reverse();
}

function ctx(bs: BatchSample[], extra: Partial<EvaluationContext> = {}): EvaluationContext {
  return {
    job: { id: 'j', name: 'job', status: 'RUNNING', trigger: { type: 'processing-time', interval: '100 milliseconds' }, lastCommittedAt: bs[0]?.timestamp ?? null },
    batches: bs,
    runs: [],
    deployWarnings: [],
    now: new Date(T0),
    ...extra,
  };
}

/** The rule's verdict after each batch of a history, oldest first (as the hook evaluates it). */
function verdicts(kind: string, params: unknown, history: BatchSample[], extra: Partial<EvaluationContext> = {}): boolean[] {
  const oldestFirst = [...history].reverse();
  return oldestFirst.map((_, i) => evaluateRule(kind, params, ctx(oldestFirst.slice(0, i + 1).reverse(), extra)).holds);
}

describe('threshold rules', () => {
  it('state-rows and state-bytes hold exactly while the latest batch is above the threshold (model loop)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(1000), { minLength: 1, maxLength: 30 }), fc.nat(1000), (rows, threshold) => {
        const h = batches(rows.map((r) => ({ rows: r, bytes: r * 3 })));
        expect(verdicts('state-rows', { threshold }, h)).toEqual(rows.map((r) => r > threshold));
        expect(verdicts('state-bytes', { threshold }, h)).toEqual(rows.map((r) => r * 3 + Math.floor((r * 3) / 2) > threshold));
      }),
    );
  });

  it('commit-lag holds from the Nth batch in a row above the threshold, and stops at the first one below (model loop)', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.nat(50), { nil: null }), { minLength: 1, maxLength: 30 }), fc.nat(50), fc.integer({ min: 1, max: 4 }), (lags, threshold, n) => {
        const model = lags.map((_, i) => {
          if (i + 1 < n) return false;
          for (let j = i - n + 1; j <= i; j++) if (lags[j] === null || (lags[j] as number) <= threshold) return false;
          return true;
        });
        expect(verdicts('commit-lag', { threshold, batches: n }, batches(lags.map((lag) => ({ lag }))))).toEqual(model);
      }),
    );
  });

  it('lag-rising holds when the lag rose at each of the last N batches (model loop)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(20), { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 4 }), (lags, n) => {
        const model = lags.map((_, i) => {
          if (i < n) return false;
          for (let j = i - n + 1; j <= i; j++) if (!(lags[j] > lags[j - 1])) return false;
          return true;
        });
        expect(verdicts('lag-rising', { batches: n }, batches(lags.map((lag) => ({ lag }))))).toEqual(model);
      }),
    );
  });

  it('falling-behind compares batch durations with the trigger interval for N batches in a row (model loop)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 4 }), (durations, n) => {
        const model = durations.map((_, i) => i + 1 >= n && durations.slice(i - n + 1, i + 1).every((d) => d > 100));
        expect(verdicts('falling-behind', { batches: n }, batches(durations.map((durationMs) => ({ durationMs }))))).toEqual(model);
      }),
    );
    const h = batches([{ durationMs: 5000 }, { durationMs: 5000 }]);
    const noInterval = evaluateRule('falling-behind', { batches: 1 }, ctx(h, { job: { ...ctx(h).job, trigger: { type: 'available-now' } } }));
    expect(noInterval.holds).toBe(false);
    expect(noInterval.message).toMatch(/no processing-time interval/);
  });
});

describe('state-growth', () => {
  const params = { percentPerHour: 1000, windowMs: 3000 };

  it('fires at the first batch whose full window shows growth above the rate, within a window of the growth starting (model loop)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 8 }), fc.integer({ min: 100, max: 700 }), fc.integer({ min: 1, max: 50 }), (flat, stepMs, perBatch) => {
        // `flat` batches with constant state, then `perBatch` new keys per batch (no watermark).
        const rows = Array.from({ length: flat + 40 }, (_, i) => 10 + Math.max(0, i - flat) * perBatch);
        const v = verdicts('state-growth', params, batches(rows.map((r) => ({ rows: r })), stepMs));
        const rate = (a: number, b: number) => ((rows[b] - rows[a]) / rows[a]) * 100 * (3_600_000 / ((b - a) * stepMs));
        const model = rows.map((r, i) => {
          let anchor = -1;
          let mid = -1;
          for (let j = 0; j < i; j++) {
            if (j * stepMs <= i * stepMs - params.windowMs) anchor = j;
            if (j * stepMs <= i * stepMs - params.windowMs / 2) mid = j;
          }
          if (anchor < 0) return false;
          // Growth in both halves of the window: a warm-up that flattens out does not fire.
          return r > rows[anchor] && mid > anchor && rate(anchor, mid) > params.percentPerHour && rate(mid, i) > params.percentPerHour;
        });
        expect(v).toEqual(model);
        // The first increase is at batch flat+1; a window (plus one batch) later the rule fires.
        const firstFiring = v.indexOf(true);
        expect(firstFiring).toBeGreaterThan(flat);
        expect((firstFiring - (flat + 1)) * stepMs).toBeLessThanOrEqual(params.windowMs + 2 * stepMs);
        expect(v.slice(firstFiring).every(Boolean)).toBe(true);
      }),
    );
  });

  it('never fires for bounded state: a watermark evicts at least once per window', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 5, maxLength: 60 }), fc.integer({ min: 2, max: 5 }), (adds, period) => {
        // Keys accumulate within an event-time window; every `period` batches the watermark passes
        // the window's end and its keys are evicted (state drops back to the open window's keys).
        let state = 0;
        const rows = adds.map((a, i) => (state = i % period === 0 ? 1 + (a % 5) : state + a + 5)); // an eviction drops ≥ 28%
        const stepMs = Math.ceil(params.windowMs / period); // at least one eviction per window
        expect(verdicts('state-growth', params, batches(rows.map((r) => ({ rows: r })), stepMs)).some(Boolean)).toBe(false);
      }),
    );
  });

  it('does not fire for a warm-up: state that fills its first windows, then stays flat', () => {
    // 20 → 40 rows over the first two batches, then 40 for ever (the windowed count's shape).
    const rows = [20, ...Array.from({ length: 30 }, () => 40)];
    expect(verdicts('state-growth', params, batches(rows.map((r) => ({ rows: r })), 200)).some(Boolean)).toBe(false);
  });

  it('needs history spanning the window, respects minRows, and resolves once growth stops', () => {
    const growing = batches(Array.from({ length: 10 }, (_, i) => ({ rows: 100 + i * 10 })));
    expect(evaluateRule('state-growth', { ...params, windowMs: 20_000 }, ctx(growing)).message).toMatch(/Not enough history/);
    expect(evaluateRule('state-growth', { ...params, minRows: 1000 }, ctx(growing)).holds).toBe(false);
    const fired = evaluateRule('state-growth', params, ctx(growing));
    expect(fired.holds).toBe(true);
    expect(fired.message).toMatch(/add a watermark/);
    const plateau = batches([...Array.from({ length: 10 }, (_, i) => ({ rows: 100 + i * 10 })), ...Array.from({ length: 5 }, () => ({ rows: 190 }))]);
    expect(evaluateRule('state-growth', params, ctx(plateau)).holds).toBe(false);
    expect(stateGrowth(plateau, params.windowMs)).toMatchObject({ first: 190, last: 190 });
  });
});

describe('run and schedule rules', () => {
  const runs = (...s: string[]): RunSample[] => s.map((status, i) => ({ status, startedAt: new Date(T0 - i * 1000) }));

  it('run-failed holds for FAILED, RECOVERING and a retry that has not reached RUNNING', () => {
    const at = (...s: string[]) => evaluateRule('run-failed', {}, ctx([], { runs: runs(...s) })).holds;
    expect(at('FAILED')).toBe(true);
    expect(at('RECOVERING', 'FAILED')).toBe(true);
    expect(at('STARTING', 'FAILED')).toBe(true);
    expect(at('RUNNING', 'FAILED')).toBe(false);
    expect(at('STARTING', 'STOPPED')).toBe(false);
    expect(at('STOPPED')).toBe(false);
    expect(at()).toBe(false);
  });

  it('no-progress holds once afterMs passes without a commit while RUNNING, measured from the later of the last commit and the run start', () => {
    const h = batches([{ rows: 1 }]);
    const at = (nowMs: number, status = 'RUNNING', runStart = T0 - 60_000) =>
      evaluateRule('no-progress', { afterMs: 5000 }, ctx(h, { now: new Date(nowMs), runs: [{ status, startedAt: new Date(runStart) }], job: { ...ctx(h).job, status } })).holds;
    expect(at(T0 + 5000)).toBe(false);
    expect(at(T0 + 5001)).toBe(true);
    expect(at(T0 + 60_000, 'STOPPED')).toBe(false);
    expect(at(T0 + 6000, 'RUNNING', T0 + 2000)).toBe(false); // restarted since: measured from the run
  });

  it('no-progress tells a quiet source (idle polls, no data) from a stuck job (no batch, no idle poll), and says which', () => {
    const h = batches([{ rows: 1 }]);
    const runStart = T0 - 60_000;
    const at = (nowMs: number, sourceIdleAt: number | null, kind = 'no-progress') =>
      evaluateRule(kind, { afterMs: 5000 }, ctx(h, { now: new Date(nowMs), runs: [{ status: 'RUNNING', startedAt: new Date(runStart) }], job: { ...ctx(h).job, sourceIdleAt: sourceIdleAt === null ? null : new Date(sourceIdleAt) } }));
    const fresh = idleReportFreshMs(ctx(h).job.trigger);
    expect(fresh).toBe(30_000);
    // Polling and finding nothing, recently: quiet, not stuck; the opt-in rule says so.
    expect(at(T0 + 60_000, T0 + 55_000)).toMatchObject({ holds: false, message: expect.stringMatching(/^Source quiet, not stuck/), details: { verdict: 'source-quiet' } });
    expect(at(T0 + 60_000, T0 + 55_000, 'source-idle')).toMatchObject({ holds: true, message: expect.stringMatching(/^Source quiet: no new data for 60000 ms/) });
    // No idle report ever, or the last one before the last commit, or too old: stuck.
    for (const idle of [null, T0 - 1000, T0 + 60_000 - fresh - 1]) {
      expect(at(T0 + 60_000, idle)).toMatchObject({ holds: true, message: expect.stringMatching(/^Stuck: no committed batch for 60000 ms/), details: { verdict: 'stuck' } });
      expect(at(T0 + 60_000, idle, 'source-idle').holds).toBe(false);
    }
    // Before afterMs neither fires.
    expect(at(T0 + 4000, null).holds).toBe(false);
    expect(at(T0 + 4000, T0 + 3000, 'source-idle').holds).toBe(false);
    // A slow trigger polls less often: its idle report stays fresh for three triggers.
    expect(idleReportFreshMs({ type: 'processing-time', interval: '1 minute' })).toBe(180_000);
  });

  it('deploy-warning is standing while the spec has warnings; bad params and unknown kinds never fire and say why', () => {
    expect(evaluateRule('deploy-warning', {}, ctx([], { deployWarnings: ['sql: unbounded'] }))).toMatchObject({ holds: true, message: 'sql: unbounded' });
    expect(evaluateRule('deploy-warning', {}, ctx([])).holds).toBe(false);
    expect(evaluateRule('state-rows', { threshold: -1 }, ctx(batches([{ rows: 5 }])))).toMatchObject({ holds: false, message: expect.stringMatching(/params are invalid.*threshold/) });
    expect(evaluateRule('nope', {}, ctx([])).message).toMatch(/Unknown rule kind/);
  });
});

describe('data-loss', () => {
  const progress = (skipped: number[]) => ({
    sources: skipped.map((n, i) => ({ description: `src${i}`, metrics: n ? { dataLossSkippedOffsets: String(n), dataLossWarning: `Skipped offsets that are gone (failOnDataLoss is false): t-${i} [0, ${n}): retention deleted them.` } : { offsetsByPartition: '{}' } })),
  });

  it("reads a batch's skipped offsets from its sources' progress metrics", () => {
    expect(dataLossOf(4, progress([3, 0, 2]))).toEqual({ batchId: 4, skippedOffsets: 5, warnings: [expect.stringContaining('t-0 [0, 3)'), expect.stringContaining('t-2 [0, 2)')] });
    expect(dataLossOf(5, progress([0]))).toEqual({ batchId: 5, skippedOffsets: 0, warnings: [] });
    expect(dataLossOf(6, {}).skippedOffsets).toBe(0);
    expect(dataLossOf(7, { sources: [{ metrics: { dataLossSkippedOffsets: 'x' } }] }).skippedOffsets).toBe(0);
  });

  it('holds while one of the last N batches skipped offsets, with the warning in the message, and resolves after (model loop)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 3 }).map((n) => (n === 3 ? 7 : 0)), { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 4 }), (skipped, n) => {
        const history = skipped.map((k, i) => dataLossOf(i, progress([k])));
        skipped.forEach((_, i) => {
          const newestFirst = history.slice(0, i + 1).reverse();
          const c = evaluateRule('data-loss', { batches: n }, ctx([], { dataLoss: newestFirst }));
          const expected = skipped.slice(Math.max(0, i + 1 - n), i + 1).some((k) => k > 0);
          expect(c.holds).toBe(expected);
          if (expected) expect(c.message).toMatch(/^Data loss: batch \d+ skipped 7 offset\(s\) .*retention deleted them/);
        });
      }),
    );
    expect(evaluateRule('data-loss', {}, ctx([])).message).toBe('No committed batch yet.');
  });
});
