/**
 * Alert rule kinds and their parameters, as zod schemas: the API parses a rule with
 * `alertRuleInputSchema`, the evaluator re-parses the stored `params` with `paramsSchemaOf(kind)`
 * (a row edited by hand must not crash an evaluation, so a bad one is reported, not thrown).
 *
 * Durations are milliseconds, thresholds are plain numbers; each kind's doc says when it holds.
 */
import { z } from 'zod';

const positiveInt = z.number().int().positive();
/** A window or a wait, in ms: at most 365 days, as a spec's window durations and backoffs (lib/engine/spec/duration.ts). */
const delayMs = z.number().int().positive().max(365 * 86_400_000);
const nonNegative = z.number().nonnegative();

const RULE_PARAMS = {
  /** Latest committed batch's state rows (summed over operators) above `threshold`. */
  'state-rows': z.object({ threshold: nonNegative }).strict(),
  /** Latest committed batch's state bytes (memory + disk) above `threshold`. */
  'state-bytes': z.object({ threshold: nonNegative }).strict(),
  /**
   * State not bounded: over the last `windowMs` of batches the state rows grew faster than
   * `percentPerHour` in each half of the window (relative to that half's first value: a warm-up that flattens does not fire) and never dropped by more than
   * `dropTolerancePercent` below their running maximum (a watermark's evictions make bounded state
   * drop; state that only grows has nothing evicting it). Needs history spanning `windowMs`.
   */
  'state-growth': z
    .object({
      percentPerHour: z.number().positive(),
      windowMs: delayMs,
      minRows: nonNegative.default(0),
      dropTolerancePercent: z.number().min(0).max(100).default(5),
    })
    .strict(),
  /** Commit lag (records behind the source's latest offset) above `threshold` for `batches` batches in a row. */
  'commit-lag': z.object({ threshold: nonNegative, batches: positiveInt.default(1) }).strict(),
  /** Commit lag rose at every one of the last `batches` batches. */
  'lag-rising': z.object({ batches: positiveInt.default(3) }).strict(),
  /** Batch duration above the trigger interval for `batches` batches in a row (falling behind). */
  'falling-behind': z.object({ batches: positiveInt.default(3) }).strict(),
  /**
   * Stuck: no committed batch for `afterMs` while the job is RUNNING, and its source not quiet
   * (checked on the schedule). A run that keeps polling its source and finding nothing is idle,
   * not stuck, and does not fire.
   */
  'no-progress': z.object({ afterMs: delayMs }).strict(),
  /** Opt-in: no committed batch for `afterMs` because the source has had no new data (the job is healthy). */
  'source-idle': z.object({ afterMs: delayMs }).strict(),
  /** The job's latest run FAILED or is RECOVERING (or a retry after a failure has not reached RUNNING yet). */
  'run-failed': z.object({}).strict(),
  /**
   * Data loss: one of the last `batches` committed batches skipped records its source no longer
   * had (a source with failOnDataLoss false: Kafka records retention deleted, a topic deleted and
   * recreated), as that batch's progress reports them. Spark only logs this; a run goes on.
   */
  'data-loss': z.object({ batches: positiveInt.default(1) }).strict(),
  /** Standing: the job's spec has deploy-time warnings (unbounded state, an at-least-once sink). */
  'deploy-warning': z.object({}).strict(),
} as const;

export type RuleKind = keyof typeof RULE_PARAMS;
export const RULE_KINDS = Object.keys(RULE_PARAMS) as RuleKind[];
export type RuleParams<K extends RuleKind> = z.infer<(typeof RULE_PARAMS)[K]>;

export function paramsSchemaOf(kind: string): z.ZodType | undefined {
  return (RULE_PARAMS as Record<string, z.ZodType>)[kind];
}

const webhookUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL');

const common = {
  name: z.string().trim().min(1).max(200),
  /** Omitted or null: a global rule, evaluated for every job. */
  jobId: z.string().min(1).nullable().optional(),
  enabled: z.boolean().default(true),
  webhookUrl: webhookUrl.nullable().optional(),
  /** Signs each delivery (HMAC-SHA256 of the body); needed with a webhook. */
  webhookSecret: z.string().min(8).max(500).nullable().optional(),
};

export const alertRuleInputSchema = z
  .discriminatedUnion(
    'kind',
    RULE_KINDS.map((k) => z.object({ ...common, kind: z.literal(k), params: (RULE_PARAMS[k] as z.ZodType).prefault({}) }).strict()) as unknown as [
      z.ZodObject,
      ...z.ZodObject[],
    ],
  )
  .refine((r) => !(r as { webhookUrl?: string | null }).webhookUrl || !!(r as { webhookSecret?: string | null }).webhookSecret, {
    message: 'a webhook needs a webhookSecret (at least 8 characters) to sign its deliveries',
    path: ['webhookSecret'],
  });

export type AlertRuleInput = {
  name: string;
  jobId?: string | null;
  enabled: boolean;
  kind: RuleKind;
  params: Record<string, unknown>;
  webhookUrl?: string | null;
  webhookSecret?: string | null;
};

/** A partial update; `kind` cannot change (create another rule instead). */
export const alertRuleUpdateSchema = z
  .object({
    name: common.name.optional(),
    enabled: z.boolean().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
    webhookUrl: webhookUrl.nullable().optional(),
    webhookSecret: z.string().min(8).max(500).nullable().optional(),
  })
  .strict();

export type AlertRuleUpdate = z.infer<typeof alertRuleUpdateSchema>;

export const alertsQuerySchema = z.object({
  state: z.enum(['FIRING', 'RESOLVED']).optional(),
  jobId: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
