/**
 * The zod schemas of the API's requests: route handlers parse with them and the OpenAPI
 * document (openapi.ts) is generated from them, so the two cannot drift apart.
 */
import { z } from 'zod';
import { JOB_STATUSES, type JobStatus } from '../job-lifecycle';

/** Batch ids are stored as PostgreSQL integers: a larger cursor could never match and must not reach the query. */
const MAX_BATCH_ID = 2_147_483_647;
/** The largest instant a JavaScript Date holds (ms since the epoch). */
const MAX_DATE_MS = 8_640_000_000_000_000;

const roleSchema = z.enum(['viewer', 'operator', 'admin']);

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
    })
    .strict(),
  z.record(z.string(), z.unknown()).refine((o) => !('spec' in o), 'a bare job spec has no "spec" field').transform((spec) => ({ spec, description: undefined, restartPolicy: undefined })),
]);

export const validateInputSchema = z.union([
  z.object({ spec: z.union([z.record(z.string(), z.unknown()), z.string()]) }).strict(),
  z.record(z.string(), z.unknown()).refine((o) => !('spec' in o)).transform((spec) => ({ spec })),
]);

export const resetCheckpointSchema = z.object({ confirm: z.string().min(1).describe("The job's name, typed as confirmation") }).strict();

export const jobsQuerySchema = z.object({ status: z.enum(JOB_STATUSES as [JobStatus, ...JobStatus[]]).optional() });

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
