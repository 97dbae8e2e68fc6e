/**
 * Whether a rule's condition holds for one job, as a pure function of the job's recent history
 * (committed batches and runs, newest first), its deploy-time warnings and the current time. No
 * database here, so every rule is tested over synthetic histories; `alert-evaluator.ts` loads the
 * history and `alert-transitions.ts` turns a change of `holds` into FIRING/RESOLVED.
 *
 * When a rule fires, relative to the moment its condition starts to hold:
 * - state-rows, state-bytes, commit-lag (batches=1): at that batch's commit (same evaluation).
 * - commit-lag (batches=N), lag-rising, falling-behind: at the Nth batch in a row that shows it.
 * - state-growth: at the first committed batch at least `windowMs` after the growth began (it
 *   needs a full window of history to tell growth from a warm-up).
 * - no-progress: at the first scheduled tick after `afterMs` without a commit (tick interval late
 *   at most), unless the source is quiet (see sourceQuiet): no data means no batch, not a stuck job.
 * - source-idle (opt-in): the same wait, when the source is quiet.
 * - run-failed: at the run's status change (FAILED, RECOVERING).
 * - data-loss: at the commit of the batch that skipped records (same evaluation); it resolves
 *   once the last `batches` batches skipped none.
 * - deploy-warning: at the job's first evaluation (any batch, run change or tick).
 */
import { DEFAULT_NO_DATA_PROGRESS_EVENT_INTERVAL_MS, parseDuration } from '@/lib/engine';
import { paramsSchemaOf, type RuleKind, type RuleParams } from './rule-kinds';

type Num = number | bigint;

/** One committed batch, the columns of BatchProgress the rules read. */
export interface BatchSample {
  batchId: number;
  timestamp: Date;
  stateRowsTotal: Num;
  stateMemoryBytes: Num;
  stateDiskBytes: Num;
  commitLag: Num | null;
  batchDurationMs: number;
}

/**
 * What one committed batch skipped because its source no longer had it (failOnDataLoss false),
 * from its progress: the sources' `dataLossSkippedOffsets` and `dataLossWarning` metrics.
 */
export interface DataLossSample {
  batchId: number;
  skippedOffsets: number;
  warnings: string[];
}

/** A batch's data loss as its StreamingQueryProgress JSON reports it (zero when it lost nothing). */
export function dataLossOf(batchId: number, progress: unknown): DataLossSample {
  const sources = (progress as { sources?: unknown } | null)?.sources;
  const out: DataLossSample = { batchId, skippedOffsets: 0, warnings: [] };
  if (!Array.isArray(sources)) return out;
  for (const s of sources) {
    const m = (s as { metrics?: Record<string, unknown> } | null)?.metrics;
    const skipped = Number(m?.dataLossSkippedOffsets ?? 0);
    if (!Number.isFinite(skipped) || skipped <= 0) continue;
    out.skippedOffsets += skipped;
    if (typeof m?.dataLossWarning === 'string') out.warnings.push(m.dataLossWarning);
  }
  return out;
}

export interface RunSample {
  status: string;
  startedAt: Date;
}

interface JobSnapshot {
  id: string;
  name: string;
  status: string;
  trigger: unknown;
  lastCommittedAt: Date | null;
  /** When the run last polled its source and found no new data (Spark's QueryIdleEvent). */
  sourceIdleAt?: Date | null;
}

export interface EvaluationContext {
  job: JobSnapshot;
  /** Newest first. */
  batches: BatchSample[];
  /** Newest first. */
  runs: RunSample[];
  /** Deploy-time warnings of the job's spec (validateJob(spec).warnings), as messages. */
  deployWarnings: string[];
  /** The data loss of the newest batches, newest first (loaded only for a data-loss rule). */
  dataLoss?: DataLossSample[];
  /**
   * Growth windows computed by the database, by windowMs (null: history too short); when absent
   * for a window, the rule computes it from `batches`.
   */
  growth?: Record<number, GrowthWindow | null>;
  now: Date;
}

export interface Condition {
  holds: boolean;
  /** The measured figure the rule compares (rows, bytes, %/h, records, ms), when there is one. */
  value: number | null;
  message: string;
  details?: Record<string, unknown>;
}

const n = (v: Num | null | undefined): number => (v === null || v === undefined ? 0 : Number(v));
const no = (message: string, value: number | null = null, details?: Record<string, unknown>): Condition => ({ holds: false, value, message, details });

/** Evaluates a stored rule; params that no longer parse never fire, and say why. */
export function evaluateRule(kind: string, rawParams: unknown, ctx: EvaluationContext): Condition {
  const schema = paramsSchemaOf(kind);
  if (!schema) return no(`Unknown rule kind "${kind}": edit or delete this rule.`);
  const parsed = schema.safeParse(rawParams ?? {});
  if (!parsed.success) return no(`The rule's params are invalid (${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}): edit the rule.`);
  return EVALUATORS[kind as RuleKind](parsed.data as never, ctx);
}

/**
 * An idle report at most this old (three report intervals, or three triggers of a slower
 * trigger) means the run is alive, polling its source, and finding nothing.
 */
export function idleReportFreshMs(trigger: unknown): number {
  return 3 * Math.max(DEFAULT_NO_DATA_PROGRESS_EVENT_INTERVAL_MS, triggerIntervalMs(trigger) ?? 0);
}

/**
 * How long a RUNNING job has gone without a commit (from the later of its last commit and its
 * run's start), and whether its source is quiet: the run reported an idle poll after that point,
 * recently. Without a fresh idle report the job is not known to be idle: data may be waiting.
 */
function waitWithoutCommit(ctx: EvaluationContext): string | { waitedMs: number; quiet: boolean; idleAt: string | null; details: Record<string, unknown> } {
  if (ctx.job.status !== 'RUNNING') return `The job is ${ctx.job.status}, not RUNNING.`;
  const since = Math.max(ctx.job.lastCommittedAt?.getTime() ?? 0, ctx.batches[0]?.timestamp.getTime() ?? 0, ctx.runs[0]?.startedAt.getTime() ?? 0);
  if (!since) return 'No run or batch to measure from.';
  const now = ctx.now.getTime();
  const idle = ctx.job.sourceIdleAt?.getTime();
  const quiet = idle !== undefined && idle >= since && now - idle <= idleReportFreshMs(ctx.job.trigger);
  const idleAt = idle === undefined ? null : new Date(idle).toISOString();
  return { waitedMs: now - since, quiet, idleAt, details: { since: new Date(since).toISOString(), sourceIdleAt: idleAt } };
}

function lastN(ctx: EvaluationContext, count: number): BatchSample[] | null {
  return ctx.batches.length >= count ? ctx.batches.slice(0, count) : null;
}

function triggerIntervalMs(trigger: unknown): number | null {
  const t = trigger as { type?: string; interval?: string | number } | null;
  if (!t || t.type !== 'processing-time' || t.interval === undefined) return null;
  const ms = typeof t.interval === 'number' ? t.interval : parseDuration(t.interval);
  return ms && ms > 0 ? ms : null;
}

/** The state rows over the last `windowMs` of batches, as the state-growth rule reads them. */
export interface GrowthWindow {
  first: number;
  last: number;
  spanMs: number;
  percentPerHour: number;
  /**
   * The rate in each half of the window (relative to that half's first value): growth must go on
   * through the whole window, so a warm-up (state filling its first watermark windows, then
   * flat) does not fire.
   */
  halves: [number, number];
  /** Largest drop below the running maximum within the window, in % of that maximum. */
  maxDropPercent: number;
  fromBatch: number;
  midBatch: number;
  toBatch: number;
}

export interface GrowthPoint {
  batchId: number;
  timestamp: Date;
  rows: number;
}

const ratePerHour = (a: GrowthPoint, b: GrowthPoint) => {
  const spanMs = b.timestamp.getTime() - a.timestamp.getTime();
  return spanMs > 0 ? (((b.rows - a.rows) / Math.max(a.rows, 1)) * 100 * 3_600_000) / spanMs : 0;
};

export function growthWindow(anchor: GrowthPoint, mid: GrowthPoint, latest: BatchSample, maxDropPercent: number): GrowthWindow {
  const end = { batchId: latest.batchId, timestamp: latest.timestamp, rows: n(latest.stateRowsTotal) };
  return {
    first: anchor.rows,
    last: end.rows,
    spanMs: end.timestamp.getTime() - anchor.timestamp.getTime(),
    percentPerHour: ratePerHour(anchor, end),
    halves: [ratePerHour(anchor, mid), ratePerHour(mid, end)],
    maxDropPercent,
    fromBatch: anchor.batchId,
    midBatch: mid.batchId,
    toBatch: end.batchId,
  };
}

/**
 * The growth window from a full history in memory (newest first): the anchor is the newest batch
 * at least `windowMs` older than the latest one, the midpoint the newest at least `windowMs / 2`
 * older. The evaluator computes the same in SQL (`loadGrowthWindow`, checked against this by a
 * differential test) so it need not load an hour of batches after every commit.
 */
export function stateGrowth(batches: BatchSample[], windowMs: number): GrowthWindow | null {
  if (batches.length < 2) return null;
  const latest = batches[0];
  const at = (ms: number) => batches.findIndex((b) => b.timestamp.getTime() <= latest.timestamp.getTime() - ms);
  const anchorIdx = at(windowMs);
  if (anchorIdx < 0) return null;
  const midIdx = at(windowMs / 2);
  const window = batches.slice(0, anchorIdx + 1).reverse();
  let runMax = 0;
  let maxDropPercent = 0;
  for (const b of window) {
    const v = n(b.stateRowsTotal);
    runMax = Math.max(runMax, v);
    if (runMax > 0) maxDropPercent = Math.max(maxDropPercent, ((runMax - v) / runMax) * 100);
  }
  const point = (b: BatchSample): GrowthPoint => ({ batchId: b.batchId, timestamp: b.timestamp, rows: n(b.stateRowsTotal) });
  return growthWindow(point(batches[anchorIdx]), point(batches[midIdx]), latest, maxDropPercent);
}

const EVALUATORS: { [K in RuleKind]: (p: RuleParams<K>, ctx: EvaluationContext) => Condition } = {
  'state-rows': (p, ctx) => {
    const b = ctx.batches[0];
    if (!b) return no('No committed batch yet.');
    const v = n(b.stateRowsTotal);
    return { holds: v > p.threshold, value: v, message: `State rows ${v} at batch ${b.batchId} (threshold ${p.threshold}).`, details: { batchId: b.batchId } };
  },
  'state-bytes': (p, ctx) => {
    const b = ctx.batches[0];
    if (!b) return no('No committed batch yet.');
    const v = n(b.stateMemoryBytes) + n(b.stateDiskBytes);
    return { holds: v > p.threshold, value: v, message: `State bytes ${v} (memory + disk) at batch ${b.batchId} (threshold ${p.threshold}).`, details: { batchId: b.batchId } };
  },
  'state-growth': (p, ctx) => {
    const g = ctx.growth && p.windowMs in ctx.growth ? ctx.growth[p.windowMs] : stateGrowth(ctx.batches, p.windowMs);
    if (!g) return no(`Not enough history yet: the batches do not span ${p.windowMs} ms.`);
    const holds = g.last >= p.minRows && g.last > g.first && Math.min(...g.halves) > p.percentPerHour && g.maxDropPercent <= p.dropTolerancePercent;
    const rate = Math.round(Math.min(...g.halves) * 10) / 10;
    const message = holds
      ? `State grew from ${g.first} to ${g.last} rows over ${g.spanMs} ms (batches ${g.fromBatch}–${g.toBatch}): ${rate}%/h, above ${p.percentPerHour}%/h, and nothing evicted it. A stateful operator with no watermark keeps every key forever: add a watermark (the source's Event-time column and Watermark delay) and aggregate over event-time windows.`
      : `State ${g.first} → ${g.last} rows over ${g.spanMs} ms: ${rate}%/h in the slower half of the window, largest drop ${Math.round(g.maxDropPercent)}% (fires above ${p.percentPerHour}%/h in both halves with drops ≤ ${p.dropTolerancePercent}%).`;
    return { holds, value: rate, message, details: { ...g } };
  },
  'commit-lag': (p, ctx) => {
    const w = lastN(ctx, p.batches);
    if (!w) return no(`Fewer than ${p.batches} committed batches.`, ctx.batches[0] ? n(ctx.batches[0].commitLag) : null);
    const lags = w.map((b) => (b.commitLag === null ? null : n(b.commitLag)));
    const holds = lags.every((l) => l !== null && l > p.threshold);
    return { holds, value: lags[0], message: `Commit lag ${lags[0] ?? 'unknown'} records at batch ${w[0].batchId} (threshold ${p.threshold} for ${p.batches} batch(es); last: ${lags.join(', ')}).`, details: { lags } };
  },
  'lag-rising': (p, ctx) => {
    const w = lastN(ctx, p.batches + 1);
    if (!w) return no(`Fewer than ${p.batches + 1} committed batches.`);
    const lags = w.map((b) => (b.commitLag === null ? null : n(b.commitLag)));
    const holds = lags.every((l) => l !== null) && lags.slice(0, p.batches).every((l, i) => (l as number) > (lags[i + 1] as number));
    return { holds, value: lags[0], message: `Commit lag over the last ${p.batches + 1} batches, newest first: ${lags.join(', ')}${holds ? ': rising at every batch, the job is not keeping up with its source.' : '.'}`, details: { lags } };
  },
  'falling-behind': (p, ctx) => {
    const interval = triggerIntervalMs(ctx.job.trigger);
    if (interval === null) return no('The trigger has no processing-time interval to fall behind.');
    const w = lastN(ctx, p.batches);
    if (!w) return no(`Fewer than ${p.batches} committed batches.`);
    const durations = w.map((b) => b.batchDurationMs);
    const holds = durations.every((d) => d > interval);
    return { holds, value: durations[0], message: `Batch durations ${durations.join(', ')} ms against a ${interval} ms trigger interval${holds ? `: ${p.batches} batch(es) in a row took longer than the interval, the job is falling behind.` : '.'}`, details: { durations, intervalMs: interval } };
  },
  'no-progress': (p, ctx) => {
    const w = waitWithoutCommit(ctx);
    if (typeof w === 'string') return no(w);
    if (w.waitedMs <= p.afterMs) return no(`Last commit ${w.waitedMs} ms ago (threshold ${p.afterMs} ms).`, w.waitedMs, w.details);
    if (w.quiet) {
      return no(
        `Source quiet, not stuck: no committed batch for ${w.waitedMs} ms, but the run polled its source at ${w.idleAt} and found no new data (no data means no batch). A "source-idle" rule reports quiet sources, if you want to know.`,
        w.waitedMs,
        { ...w.details, verdict: 'source-quiet' },
      );
    }
    return {
      holds: true,
      value: w.waitedMs,
      message: `Stuck: no committed batch for ${w.waitedMs} ms while RUNNING (threshold ${p.afterMs} ms), and the run has not reported a quiet source ${w.idleAt ? `since ${w.idleAt}` : 'at all'}: data is waiting or the run is hung. See the job's Runs tab and docs/runbook.md.`,
      details: { ...w.details, verdict: 'stuck' },
    };
  },
  'source-idle': (p, ctx) => {
    const w = waitWithoutCommit(ctx);
    if (typeof w === 'string') return no(w);
    const holds = w.quiet && w.waitedMs > p.afterMs;
    return {
      holds,
      value: w.waitedMs,
      message: holds
        ? `Source quiet: no new data for ${w.waitedMs} ms (threshold ${p.afterMs} ms); the run polled its source at ${w.idleAt} and found nothing. The job itself is healthy.`
        : w.quiet
          ? `Source quiet for ${w.waitedMs} ms (threshold ${p.afterMs} ms).`
          : 'The source is not known to be quiet.',
      details: { ...w.details, verdict: w.quiet ? 'source-quiet' : 'not-quiet' },
    };
  },
  'run-failed': (_p, ctx) => {
    const [latest, previous] = ctx.runs;
    if (!latest) return no('No run yet.');
    const retrying = (latest.status === 'PENDING' || latest.status === 'STARTING') && previous?.status === 'FAILED';
    const holds = latest.status === 'FAILED' || latest.status === 'RECOVERING' || retrying;
    const message = retrying ? 'The last run FAILED; a retry has not reached RUNNING yet.' : `The latest run is ${latest.status}.`;
    return { holds, value: null, message, details: { status: latest.status } };
  },
  'data-loss': (p, ctx) => {
    const recent = (ctx.dataLoss ?? []).slice(0, p.batches);
    if (!recent.length) return no('No committed batch yet.');
    const lossy = recent.filter((b) => b.skippedOffsets > 0);
    const skipped = lossy.reduce((a, b) => a + b.skippedOffsets, 0);
    if (!lossy.length) return no(`No data lost in the last ${recent.length} batch(es).`, 0);
    const newest = lossy[0];
    return {
      holds: true,
      value: skipped,
      message:
        `Data loss: batch ${newest.batchId} skipped ${newest.skippedOffsets} offset(s) its source no longer had, and went on (failOnDataLoss is false). ${newest.warnings.join(' ')} ` +
        'Those records are not in the output: replay them from elsewhere if they matter, and raise the topic\'s retention so it outlasts a stopped job.',
      details: { batches: lossy.map((b) => ({ batchId: b.batchId, skippedOffsets: b.skippedOffsets })) },
    };
  },
  'deploy-warning': (_p, ctx) => {
    const holds = ctx.deployWarnings.length > 0;
    return { holds, value: ctx.deployWarnings.length, message: holds ? ctx.deployWarnings.join(' ') : 'No deploy-time warnings.', details: { warnings: ctx.deployWarnings } };
  },
};
