/**
 * The zod schemas of the API's success responses, for the OpenAPI document (openapi.ts), so a
 * client generated from it is typed. They are bound to what the handlers return at compile time:
 * `_PresenterChecks` below fails the typecheck when a presenter's type no longer fits its schema
 * (a field renamed, a nullable one made required), so document and handlers cannot drift apart.
 * Open-ended JSON the engine owns (a spec, a progress record, an error's details) stays `unknown`.
 */
import { z } from 'zod';
import type { AlertRuleView, AlertView } from './alerts/alert-view';
import type { DeliveryView } from './alerts/alert-presenter';
import type { AuditEventView } from './presenters/audit-presenter';
import type { BatchDetail, BatchSummary } from './presenters/batches-presenter';
import type { CheckpointFile } from './presenters/checkpoint-presenter';
import type { JobPage } from './presenters/job-page-presenter';
import type { JobDetail, JobListItem } from './job-view';
import type { RunView } from './presenters/runs-presenter';
import type { RestartCheck } from './services/job-service';
import type { QueryPreview } from '@/lib/engine';
import type { RestoreResult, SavepointView } from './services/savepoint-service';

const iso = z.string().describe('ISO 8601 time');
const json = z.unknown();
const jobStatus = z.enum(['PENDING', 'STARTING', 'RUNNING', 'STOPPING', 'STOPPED', 'FAILED', 'RECOVERING']);

const okResponse = z.object({ ok: z.literal(true) });

const jobListItemResponse = z.object({
  id: z.string(),
  name: z.string(),
  status: z.string().describe('PENDING | STARTING | RUNNING | STOPPING | STOPPED | FAILED | RECOVERING'),
  desiredState: z.string(),
  guarantee: z.string().nullable(),
  sourceType: z.string(),
  sinkType: z.string(),
  outputMode: z.string(),
  lastBatchId: z.number().int().nullable(),
  lastCommittedAt: iso.nullable(),
  updatedAt: iso,
});

const jobOverviewResponse = jobListItemResponse.extend({
  inputRowsPerSecond: z.number().nullable().describe('Input rows per second over the last minute'),
  commitLag: z.number().nullable(),
  stateRowsTotal: z.number().nullable(),
  stateRowsSparkline: z.array(z.number()).describe('State rows of the last batches, oldest first'),
  firingAlerts: z.array(z.object({ kind: z.string(), message: z.string() })),
});

const jobPageResponse = z.object({
  items: z.array(jobOverviewResponse),
  nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last'),
  totals: z.object({ all: z.number().int(), byStatus: z.record(jobStatus, z.number().int()) }),
  matching: z.number().int(),
});

const jobDetailResponse = jobListItemResponse.extend({
  description: z.string().nullable(),
  spec: json.describe('The stored spec, secrets as ********'),
  sql: z.string(),
  trigger: json,
  checkpointLocation: z.string(),
  contract: json,
  queryId: z.string().nullable(),
  lastError: json,
  restartPolicy: json,
  createdBy: z.string().nullable(),
  createdAt: iso,
});

const specIssue = z.object({ path: z.string(), message: z.string() }).loose();
const jobWriteResponse = z.object({ job: jobDetailResponse, warnings: z.array(json) });

const validationResponse = z
  .object({
    ok: z.boolean(),
    errors: z.array(specIssue),
    warnings: z.array(json),
    guarantee: z.string().nullable().optional(),
    contract: json.optional(),
    outputColumns: z.array(z.object({ name: z.string(), type: z.string() })).optional().describe('The output columns with their Spark types, once the SQL analyses'),
  })
  .loose();

const restartCheckResponse = z.object({
  compatible: z.boolean(),
  checkpointHasBatches: z.boolean(),
  message: z.string().optional(),
  details: z.record(z.string(), json).optional(),
});

const explainOperators = z.array(z.object({ depth: z.number().int(), operator: z.string(), kind: z.enum(['stateless', 'stateful', 'source', 'other']), reason: z.string().nullable() }));

const draftCheckResponse = validationResponse.extend({
  operators: explainOperators.optional(),
  modes: z.array(z.object({ mode: z.enum(['append', 'update', 'complete']), legal: z.boolean(), decided: z.boolean(), reasons: z.array(z.string()), warnings: z.array(z.string()) })).optional(),
  restartCheck: restartCheckResponse.nullable().optional().describe('With jobId: whether the spec restarts on the job’s checkpoint'),
  completion: z.object({
    relations: z.array(z.object({ name: z.string(), columns: z.array(z.object({ name: z.string(), type: z.string() })) })),
    functions: z.array(z.object({ name: z.string(), signature: z.string(), kind: z.enum(['scalar', 'aggregate', 'generator']) })),
  }).optional().describe("What the SQL editor completes: each source's name and columns, the functions with their signatures"),
});

const runResponse = z.object({
  id: z.string(),
  runId: z.string(),
  workerId: z.string().nullable(),
  status: z.string(),
  attempt: z.number().int(),
  recoveredFromRunId: z.string().nullable(),
  startedAt: iso,
  endedAt: iso.nullable(),
  exitReason: z.string().nullable(),
  error: json,
  leaseEpoch: z.number().int(),
  memoryLimitMb: z.number().int().nullable(),
});

const batchSummaryResponse = z.object({
  batchId: z.number().int(),
  runId: z.string().nullable(),
  timestamp: iso,
  numInputRows: z.number(),
  inputRowsPerSecond: z.number(),
  processedRowsPerSecond: z.number(),
  batchDurationMs: z.number(),
  durationMs: json,
  stateRowsTotal: z.number(),
  stateRowsUpdated: z.number(),
  stateRowsDroppedByWatermark: z.number().describe("Late input rows dropped by the watermark (Spark's numRowsDroppedByWatermark)"),
  stateRowsRemoved: z.number().describe("State rows removed, evictions by the watermark included (Spark's numRowsRemoved)"),
  numOutputRows: z.number().describe("Rows written to the sink (Spark's sink.numOutputRows)"),
  stateMemoryBytes: z.number(),
  stateDiskBytes: z.number(),
  commitLag: z.number().nullable(),
  watermarkMs: z.number().nullable(),
  numBadRecords: z.number(),
});
const batchDetailResponse = batchSummaryResponse.extend({ progress: json.describe('The full StreamingQueryProgress') });

const page = <T extends z.ZodType>(item: T, cursor: 'nextBefore' | 'nextCursor') =>
  z.object({ items: z.array(item), [cursor]: (cursor === 'nextBefore' ? z.number().int() : z.string()).nullable() });

const alertRuleResponse = z.object({
  id: z.string(),
  name: z.string(),
  jobId: z.string().nullable(),
  kind: z.string(),
  params: json,
  enabled: z.boolean(),
  webhookUrl: z.string().nullable(),
  webhookSecret: z.string().nullable().describe('******** when set'),
  createdAt: iso,
  updatedAt: iso,
});

const alertResponse = z.object({
  id: z.string(),
  ruleId: z.string().nullable(),
  ruleName: z.string().nullable(),
  jobId: z.string().nullable(),
  jobName: z.string().nullable(),
  kind: z.string(),
  state: z.enum(['FIRING', 'RESOLVED']),
  dedupKey: z.string(),
  message: z.string(),
  value: z.number().nullable(),
  details: json,
  firedAt: iso,
  resolvedAt: iso.nullable(),
  acknowledgedBy: z.string().nullable(),
  acknowledgedAt: iso.nullable(),
});

const deliveryResponse = z.object({
  id: z.string(),
  event: z.string(),
  url: z.string(),
  status: z.string(),
  attemptCount: z.number().int(),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  attempts: json,
  createdAt: iso,
  deliveredAt: iso.nullable(),
});

const auditEventResponse = z.object({
  id: z.string(),
  actor: z.string(),
  actorRole: z.string(),
  action: z.string(),
  targetType: z.string(),
  targetId: z.string().nullable(),
  before: json,
  after: json,
  createdAt: iso,
});

const checkpointFileResponse = z.object({ path: z.string(), size: z.number().int(), encoding: z.enum(['utf8', 'base64']), content: z.string(), truncated: z.boolean() });

const previewResponse = z.object({
  outputSchema: z.array(z.object({ name: z.string(), type: z.string() })),
  columns: z.array(z.object({ name: z.string(), type: z.string() })).describe("The output columns with their Spark types (bigint, int, decimal(10,2), struct<…>), as Spark prints a schema"),
  rows: z.array(z.record(z.string(), json)).describe('The first rows of the output (at most 100)'),
  truncated: z.boolean(),
  totalRows: z.number().int(),
  inputRows: z.number().int().describe('Records the query ran over'),
  input: z.enum(['sample', 'recent']).describe('sample: the records sent; recent: read from the source'),
  read: z
    .object({
      source: z.string().describe('The source as its progress describes it'),
      records: z.number().int().describe('Records read (at most 1000)'),
      bytes: z.number().int(),
      badRecords: z.number().int().describe('Records that did not fit the source schema, left out'),
      bounded: z.boolean().describe('A bound stopped the read: the source holds more'),
    })
    .optional()
    .describe('With input recent: what was read from the source'),
  stateful: z.boolean(),
  notes: z.array(z.string()),
});

const savepointResponse = z.object({
  id: z.string(),
  jobId: z.string(),
  name: z.string(),
  batchId: z.number().int().describe('The last committed batch the copy holds'),
  location: z.string(),
  sizeBytes: z.number(),
  fileCount: z.number().int(),
  createdBy: z.string(),
  createdAt: iso,
});

const restoreResponse = z.object({
  job: jobDetailResponse.describe('The job reset (or the new job), stopped'),
  savepoint: savepointResponse,
  queryId: z.string().describe("The new query id in the restored checkpoint's metadata: the sink takes the batches after the savepoint as new"),
  nextBatchId: z.number().int().describe("The batch the next start runs: the savepoint's batch + 1"),
  reEmittedBatches: z.number().int().describe('Batches of the history after the savepoint, whose output is written again'),
  backup: savepointResponse.optional().describe('The savepoint kept of the checkpoint as it was before the reset'),
  message: z.string().describe('What the next start re-emits into the sink'),
});

/** The responses the document names but whose shapes are the presenters' own rich trees: typed at the top level. */
const loose = (fields: z.ZodRawShape) => z.object(fields).loose();

const tokenView = loose({ id: z.string(), name: z.string(), role: z.enum(['viewer', 'operator', 'admin']), createdAt: iso });

export const RESPONSES = {
  ok: okResponse,
  health: loose({ status: z.enum(['ok', 'degraded']), database: loose({ ok: z.boolean() }), queue: loose({ backend: z.enum(['postgres', 'redis']), ok: z.boolean() }), workers: z.array(loose({ id: z.string(), hostname: z.string() })), checkedAt: iso }),
  openapi: loose({ openapi: z.string(), paths: z.record(z.string(), json) }),
  signIn: loose({ actor: z.string(), role: z.enum(['viewer', 'operator', 'admin']), expiresAt: iso, mustChangePassword: z.boolean() }),
  me: loose({ actor: z.string(), role: z.enum(['viewer', 'operator', 'admin']), via: z.string(), name: z.string(), mustChangePassword: z.boolean() }),
  tokens: z.object({ items: z.array(tokenView) }),
  token: tokenView,
  tokenCreated: tokenView.extend({ token: z.string().describe('The secret, shown once') }),
  jobPage: jobPageResponse,
  jobWrite: jobWriteResponse,
  validation: validationResponse,
  draftCheck: draftCheckResponse,
  connectors: loose({ sources: z.array(loose({ type: z.string() })), sinks: z.array(loose({ type: z.string() })) }),
  job: jobDetailResponse,
  preview: previewResponse,
  savepoint: savepointResponse,
  savepoints: z.object({ items: z.array(savepointResponse) }),
  restore: restoreResponse,
  deleted: z.object({ deletedCheckpointFiles: z.number().int().nullable(), keptCheckpointEntries: z.array(z.string()).optional(), message: z.string().optional() }),
  reset: loose({ job: jobDetailResponse, deletedFiles: z.number().int(), deletedBatches: z.number().int() }),
  runs: page(runResponse, 'nextBefore'),
  batches: page(batchSummaryResponse, 'nextBefore'),
  batch: batchDetailResponse,
  charts: loose({}),
  plan: z.object({ operators: explainOperators, problem: z.string().nullable() }),
  taskPlacement: loose({ parallelism: z.number(), batches: z.number(), fromBatchId: z.number().nullable(), toBatchId: z.number().nullable(), batchesWithTasks: z.number(), workers: z.array(loose({ workerId: z.string(), tasks: z.number(), batches: z.number(), inputRows: z.number(), rows: z.number(), durationMs: z.number(), retries: z.number() })) }),
  checkpoint: loose({ location: z.string(), files: z.array(z.object({ path: z.string(), size: z.number() }).loose()), totalBytes: z.number(), pendingBatch: z.number().int().nullable() }),
  checkpointFile: checkpointFileResponse,
  drills: z.object({ items: z.array(loose({ id: z.string(), point: z.string(), status: z.string() })) }),
  drill: loose({ id: z.string(), point: z.string(), status: z.string() }),
  sinkAudit: loose({}),
  duplicateDiagnosis: loose({ verdict: z.enum(['none', 'replay-window', 'savepoint-restore', 'checkpoint-loss', 'unexplained', 'not-auditable']), summary: z.string(), findings: z.array(loose({ kind: z.string() })) }),
  contracts: loose({ items: z.array(loose({ name: z.string(), guarantee: z.string().nullable() })) }),
  contractsSummary: loose({ atLeastOnce: z.number().int() }),
  demo: loose({}),
  alerts: z.object({ items: z.array(alertResponse) }),
  alertSummary: loose({ firing: z.number().int(), unacknowledged: z.number().int(), byJob: z.record(z.string(), z.number().int()) }),
  alertWithDeliveries: alertResponse.extend({ deliveries: z.array(deliveryResponse) }),
  alert: alertResponse,
  alertRules: z.object({ items: z.array(alertRuleResponse) }),
  alertRule: alertRuleResponse,
  audit: page(auditEventResponse, 'nextCursor'),
} satisfies Record<string, z.ZodType>;

/** `T` must be assignable to what schema `S` describes: a presenter's type checked against its schema. */
type Fits<S extends z.ZodType, T extends z.output<S>> = T;

/** Compile-time only: each presenter's return type against the schema the document shows for it. */
type _PresenterChecks = [
  Fits<typeof jobListItemResponse, JobListItem>,
  Fits<typeof jobPageResponse, JobPage>,
  Fits<typeof jobDetailResponse, JobDetail>,
  Fits<typeof restartCheckResponse, RestartCheck>,
  Fits<typeof runResponse, RunView>,
  Fits<typeof batchSummaryResponse, BatchSummary>,
  Fits<typeof batchDetailResponse, BatchDetail>,
  Fits<typeof alertRuleResponse, AlertRuleView>,
  Fits<typeof alertResponse, AlertView>,
  Fits<typeof deliveryResponse, DeliveryView>,
  Fits<typeof auditEventResponse, AuditEventView>,
  Fits<typeof checkpointFileResponse, CheckpointFile>,
  Fits<typeof previewResponse, QueryPreview>,
  Fits<typeof savepointResponse, SavepointView>,
  Fits<typeof restoreResponse, RestoreResult>,
];
