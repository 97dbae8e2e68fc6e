/**
 * The zod schemas of the API's requests: route handlers parse with them and the OpenAPI
 * document (openapi.ts) is generated from them, so the two cannot drift apart.
 */
import { MAX_PREVIEW_SAMPLE_RECORDS } from './body-limits';
import { z } from 'zod';
import { STATE_STORE_PROVIDERS } from '@/lib/engine';
import { JOB_STATUSES, type JobStatus } from '../job-lifecycle';

/** Batch ids are stored as PostgreSQL integers: a larger cursor could never match and must not reach the query. */
const MAX_BATCH_ID = 2_147_483_647;
/** The largest instant a JavaScript Date holds (ms since the epoch). */
const MAX_DATE_MS = 8_640_000_000_000_000;

const roleSchema = z.enum(['viewer', 'operator', 'admin']);

/**
 * `acknowledgeReprocessing`: the caller has read that this change makes the next start read the
 * source from its beginning into a sink that already holds the job's output (409
 * REPROCESSING_NOT_ACKNOWLEDGED says how many rows and from where).
 */
const acknowledgeReprocessingField = z
  .boolean()
  .optional()
  .describe('Acknowledge that the next start reprocesses the source from its start position into a sink that already holds rows (asked by a 409 REPROCESSING_NOT_ACKNOWLEDGED)');

const restartPolicySchema = z
  .object({
    maxRestarts: z.number().int().min(0).max(100),
    backoffMs: z.number().int().min(0).max(3_600_000),
  })
  .strict();

/**
 * Create/update body: either `{spec, description?, restartPolicy?}` or the bare job spec (so
 * `curl -d @job.json` works). The spec itself is checked by the engine's validateJob (422).
 */
export const jobInputSchema = z.union([
  z
    .object({
      spec: z.union([z.record(z.string(), z.unknown()), z.string()]).describe('The job spec (lib/engine/spec/job-spec.ts), as an object or JSON text'),
      description: z.string().max(2000).nullable().optional(),
      restartPolicy: restartPolicySchema.nullable().optional(),
      acknowledgeReprocessing: acknowledgeReprocessingField,
    })
    .strict(),
  z
    .record(z.string(), z.unknown())
    .refine((o) => !('spec' in o), 'a bare job spec has no "spec" field')
    .transform((spec) => ({ spec, description: undefined, restartPolicy: undefined, acknowledgeReprocessing: undefined })),
]);

export const validateInputSchema = z.union([
  z.object({ spec: z.union([z.record(z.string(), z.unknown()), z.string()]) }).strict(),
  z.record(z.string(), z.unknown()).refine((o) => !('spec' in o)).transform((spec) => ({ spec })),
]);

/** The editor's live check: `jobId` when editing a job, to check the spec against its checkpoint too. */
export const draftCheckInputSchema = z.union([
  z
    .object({
      spec: z.union([z.record(z.string(), z.unknown()), z.string()]),
      jobId: z.string().min(1).max(100).optional().describe('The job being edited: the verdict then includes restartCheck against its checkpoint'),
    })
    .strict(),
  z
    .record(z.string(), z.unknown())
    .refine((o) => !('spec' in o))
    .transform((spec) => ({ spec, jobId: undefined as string | undefined })),
]);

export const previewInputSchema = z
  .object({
    spec: z.union([z.record(z.string(), z.unknown()), z.string()]),
    sample: z
      .array(z.unknown())
      .max(MAX_PREVIEW_SAMPLE_RECORDS)
      .optional()
      .describe("Source records (JSON objects by the source schema), at most 1000. Without it: the most recent records of the spec's own source (at most 1000 records and 4 MiB, within 5 s)"),
  })
  .strict();

export const createSavepointSchema = z
  .object({ name: z.string().trim().regex(/^[\w.-]{1,200}$/, 'up to 200 letters, digits, ".", "_" or "-"').optional().describe('Default: savepoint-<time>') })
  .strict();

const acknowledgeReEmitField = z
  .boolean()
  .optional()
  .describe('Acknowledge that the output of the batches after the savepoint is written again under a new query id (asked by a 409 REPROCESSING_NOT_ACKNOWLEDGED)');

export const restoreSavepointSchema = z
  .object({ confirm: z.string().min(1).describe("The job's name, typed as confirmation"), acknowledgeReprocessing: acknowledgeReEmitField })
  .strict();

export const newJobFromSavepointSchema = z
  .object({
    name: z.string().trim().min(1).max(200).describe('The new job’s name'),
    acknowledgeReprocessing: acknowledgeReEmitField,
    stateStoreProvider: z
      .enum(STATE_STORE_PROVIDERS)
      .optional()
      .describe('The state store provider of the new job (default: the savepoint’s job’s); another one converts the restored state to it, as `weir checkpoint convert-state` does'),
  })
  .strict();

export const resetCheckpointSchema = z.object({ confirm: z.string().min(1).describe("The job's name, typed as confirmation"), acknowledgeReprocessing: acknowledgeReprocessingField }).strict();

/** Columns the jobs list can sort by: Job columns, so a keyset cursor pages them through an index or one scan. */
export const JOB_SORT_KEYS = ['name', 'status', 'lastCommittedAt', 'updatedAt', 'createdAt'] as const;
export type JobSortColumn = (typeof JOB_SORT_KEYS)[number];
export const GUARANTEES = ['exactly-once', 'at-least-once', 'at-most-once'] as const;
/** The largest page of the jobs list: its figures are read per page, so a page bounds the work. */
export const MAX_JOBS_PAGE = 500;

export const jobsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_JOBS_PAGE).default(50).describe('Jobs per page (at most 500)'),
  cursor: z.string().max(2000).optional().describe('The previous page’s nextCursor (opaque); sort and dir must stay the same'),
  q: z.string().max(200).optional().describe('Case-insensitive substring of the name or the description'),
  status: z.enum(JOB_STATUSES as [JobStatus, ...JobStatus[]]).optional(),
  guarantee: z.enum(GUARANTEES).optional(),
  firing: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .describe('true: only jobs with a firing alert; false: only jobs without one'),
  sort: z.enum(JOB_SORT_KEYS).default('name'),
  dir: z.enum(['asc', 'desc']).default('asc').describe('Nulls (no batch yet) sort last either way'),
});
export type JobsQuery = z.infer<typeof jobsQuerySchema>;

export const taskPlacementQuerySchema = z.object({
  batches: z.coerce.number().int().min(1).max(200).optional().describe('How many of the newest committed batches to read (default 20)'),
});

export const batchesQuerySchema = z.object({
  before: z.coerce.number().int().min(0).max(MAX_BATCH_ID).optional().describe('Return batches with batchId < before (the previous page’s nextBefore)'),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

export const deleteJobQuerySchema = z.object({
  deleteCheckpoint: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe('Also delete the job’s checkpoint (offsets, commits, state); needs confirm'),
  confirm: z.string().optional().describe('The job’s name, typed back, when deleteCheckpoint=true'),
  acknowledgeReprocessing: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe('With deleteCheckpoint: acknowledge that a job recreated on this sink reprocesses the source into rows it already holds (asked by a 409 REPROCESSING_NOT_ACKNOWLEDGED)'),
});

export const runsQuerySchema = z.object({
  before: z
    .string()
    .regex(/^\d{1,16}_[^\s]+$/, 'a cursor from a previous page’s nextBefore')
    .refine((c) => Number(c.slice(0, c.indexOf('_'))) <= MAX_DATE_MS, 'a cursor from a previous page’s nextBefore')
    .optional()
    .describe('Return runs older than this cursor (the previous page’s nextBefore)'),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

export const batchParamsSchema = z.object({ id: z.string().min(1), batchId: z.coerce.number().int().min(0).max(MAX_BATCH_ID) });

export const checkpointFileQuerySchema = z.object({ path: z.string().min(1).describe('A path relative to the checkpoint, e.g. offsets/0') });

export const auditQuerySchema = z.object({
  targetType: z.string().optional(),
  targetId: z.string().optional(),
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

export const signInSchema = z.union([
  z.object({ token: z.string().min(1) }).strict(),
  z.object({ username: z.string().min(1), password: z.string().min(1) }).strict(),
]);

export const changePasswordSchema = z.object({ currentPassword: z.string().min(1), newPassword: z.string().min(1) }).strict();

export const createTokenSchema = z.object({ name: z.string().min(1).max(200), role: roleSchema }).strict();

/** The contract audit's sortable columns (contracts/contract-audit-presenter.ts). */
export const CONTRACT_SORT_KEYS = ['name', 'guarantee', 'sinkType', 'sinkMode', 'medianRows', 'maxRows', 'lastRestartAt', 'status'] as const;

export const contractsQuerySchema = z.object({
  sort: z.enum(CONTRACT_SORT_KEYS).optional().describe('Sort key; default: most at risk first (at-least-once, then rows a replay would double)'),
  dir: z.enum(['asc', 'desc']).default('asc'),
  guarantee: z.enum(['exactly-once', 'at-least-once', 'at-most-once', 'unknown']).optional(),
  sinkType: z.string().max(100).optional(),
  q: z.string().max(200).optional().describe('Part of the job name'),
  format: z.enum(['json', 'csv']).default('json').describe('csv: the same rows as text/csv, for a postmortem spreadsheet'),
});


export const demoInputSchema = z.object({
  addFiles: z.number().int().min(1).max(100).optional().describe('Add this many files of orders to the demo source'),
  loseCheckpoint: z.literal(true).optional().describe('Stop the bare-append demo job, reset its checkpoint (acknowledged) and start it again: the checkpoint-loss incident'),
});
