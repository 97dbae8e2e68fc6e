/**
 * The OpenAPI 3.1 document served at /api/openapi.json. Request bodies and query parameters are
 * generated from the same zod schemas the handlers parse with (api-schemas.ts); the table of
 * operations below is checked against the route files under app/api by openapi.test.ts, so a
 * route without its entry (or an entry without its route) fails the build.
 */
import { z } from 'zod';
import {
  auditQuerySchema,
  deleteJobQuerySchema,
  batchesQuerySchema,
  taskPlacementQuerySchema,
  checkpointFileQuerySchema,
  changePasswordSchema,
  contractsQuerySchema,
  demoInputSchema,
  createTokenSchema,
  jobInputSchema,
  jobsQuerySchema,
  resetCheckpointSchema,
  runsQuerySchema,
  signInSchema,
  validateInputSchema,
  draftCheckInputSchema,
  previewInputSchema,
  createSavepointSchema,
  newJobFromSavepointSchema,
  restoreSavepointSchema,
} from './api-schemas';
import { RESPONSES } from '../api-responses';
import type { Role } from '../auth';
import { alertRuleInputSchema, alertRuleUpdateSchema, alertsQuerySchema } from '../alerts/rule-kinds';

type Method = 'get' | 'post' | 'put' | 'delete';

export interface Operation {
  method: Method;
  path: string;
  summary: string;
  /** Minimum role; 'public' needs no credentials. */
  role: Role | 'public';
  tag: string;
  body?: z.ZodType;
  query?: z.ZodObject;
  /** Success status and what it returns. */
  success: { status: number; description: string; contentType?: string };
  /** The success body's schema (api-responses.ts); absent only for 204 and event streams. */
  response?: z.ZodType;
  /** Error statuses this operation may answer with, besides 401/403 from auth. */
  errors?: number[];
}

const ok = (description: string, status = 200) => ({ status, description });

export const OPERATIONS: Operation[] = [
  { method: 'get', path: '/api/health', summary: 'Database, queue backend and live workers', role: 'public', tag: 'health', success: ok('Health report (503 when the database is down)'), response: RESPONSES.health },
  { method: 'get', path: '/api/openapi.json', summary: 'This document', role: 'public', tag: 'meta', success: ok('OpenAPI 3.1 document'), response: RESPONSES.openapi },
  { method: 'post', path: '/api/auth/signin', summary: 'Sign in with an API token or a username and password; sets an HttpOnly session cookie', role: 'public', tag: 'auth', body: signInSchema, success: ok('{actor, role, expiresAt, mustChangePassword}'), errors: [400, 401], response: RESPONSES.signIn },
  { method: 'post', path: '/api/auth/signout', summary: 'End the session and clear the cookie', role: 'public', tag: 'auth', success: ok('{ok: true}'), response: RESPONSES.ok },
  { method: 'get', path: '/api/auth/me', summary: 'Who is calling and with which role (answers before a one-time password is replaced, too)', role: 'viewer', tag: 'auth', success: ok('{actor, role, via, name, mustChangePassword}'), response: RESPONSES.me },
  { method: 'post', path: '/api/auth/password', summary: "Set the signed-in user's password, proving the current one (the first start's one-time password must be replaced so before anything else); ends the user's other sessions; audited", role: 'viewer', tag: 'auth', body: changePasswordSchema, success: ok('{ok: true}'), errors: [400], response: RESPONSES.ok },
  { method: 'get', path: '/api/tokens', summary: 'List API tokens (never their values)', role: 'admin', tag: 'auth', success: ok('{items: Token[]}'), response: RESPONSES.tokens },
  { method: 'post', path: '/api/tokens', summary: 'Create an API token; its value is in this response only', role: 'admin', tag: 'auth', body: createTokenSchema, success: ok('Token with its plain `token`', 201), errors: [400], response: RESPONSES.tokenCreated },
  { method: 'delete', path: '/api/tokens/{id}', summary: 'Revoke an API token (and the sessions signed in with it)', role: 'admin', tag: 'auth', success: ok('The revoked token'), errors: [404], response: RESPONSES.token },
  { method: 'get', path: '/api/jobs', summary: 'One page of jobs: filter (q, status, guarantee, firing), sort, keyset cursor, totals per status', role: 'viewer', tag: 'jobs', query: jobsQuerySchema, success: ok('{items: JobOverview[], nextCursor, totals, matching}: one keyset page with each row’s figures'), errors: [400], response: RESPONSES.jobPage },
  { method: 'post', path: '/api/jobs', summary: 'Create a job from a job spec (validated by the engine; not started)', role: 'admin', tag: 'jobs', body: jobInputSchema, success: ok('{job, warnings}', 201), errors: [400, 409, 422], response: RESPONSES.jobWrite },
  { method: 'post', path: '/api/jobs/validate', summary: "The engine's analysis and the exactly-once contract of a spec, without saving", role: 'viewer', tag: 'jobs', body: validateInputSchema, success: ok('{ok, errors, warnings, explain, outputSchema, outputColumns, contract, guarantee}'), errors: [400], response: RESPONSES.validation },
  { method: 'get', path: '/api/connectors', summary: 'Source and sink types a job can use, each with its options (name, label, kind, required, default, enum values, secret, description), from the schemas that validate them', role: 'viewer', tag: 'jobs', success: ok('{sources: Connector[], sinks: Connector[]}'), response: RESPONSES.connectors },
  { method: 'post', path: '/api/jobs/draft-check', summary: "The job editor's live check: validation, operators (stateful ones with their reason), each output mode's legality; saves nothing", role: 'viewer', tag: 'jobs', body: draftCheckInputSchema, success: ok('DraftCheck (lib/server/presenters/job-draft-presenter.ts), with restartCheck when jobId is given'), errors: [400, 404], response: RESPONSES.draftCheck },
  { method: 'post', path: '/api/jobs/preview', summary: "Preview: the query over a pasted sample (viewer), or without one over the most recent records of the spec's source (admin: reading a source is reading its data; a viewer or operator gets 403 naming the role), at most 1000 records, 4 MiB, 5 s, no checkpoint, no sink; output schema and the first 100 rows (a stateful query: its result table after the records). Runs in a separate process with a bounded heap (WEIR_PREVIEW_MEMORY_MB), killed at the time limit: 422 PREVIEW_TIMEOUT, PREVIEW_RESOURCE_EXHAUSTED or PREVIEW_BAD_RECORD naming what to change; 429 PREVIEW_BUSY when WEIR_PREVIEW_CONCURRENCY previews are running", role: 'viewer', tag: 'jobs', body: previewInputSchema, success: ok('QueryPreview'), errors: [400, 422, 424, 429, 503], response: RESPONSES.preview },
  { method: 'get', path: '/api/jobs/{id}', summary: 'One job, secrets masked', role: 'viewer', tag: 'jobs', success: ok('JobDetail'), errors: [404], response: RESPONSES.job },
  { method: 'put', path: '/api/jobs/{id}', summary: 'Replace a stopped job’s spec (secrets sent back as ******** are kept); a new checkpointLocation needs acknowledgeReprocessing: true when the sink holds rows it would not recognize (409 REPROCESSING_NOT_ACKNOWLEDGED); a change its checkpoint cannot restart with is refused, 409 INCOMPATIBLE_QUERY_CHANGE', role: 'admin', tag: 'jobs', body: jobInputSchema, success: ok('{job, warnings}'), errors: [400, 404, 409, 422], response: RESPONSES.jobWrite },
  { method: 'delete', path: '/api/jobs/{id}', summary: 'Delete a stopped job and its history; its checkpoint stays unless ?deleteCheckpoint=true&confirm=<job name> (then 200 {deletedCheckpointFiles}; 409 if another job shares the location, or REPROCESSING_NOT_ACKNOWLEDGED without &acknowledgeReprocessing=true when the sink holds rows it would not recognize)', role: 'admin', tag: 'jobs', query: deleteJobQuerySchema, success: ok('Deleted (204), or {deletedCheckpointFiles} with deleteCheckpoint'), errors: [400, 404, 409], response: RESPONSES.deleted },
  { method: 'post', path: '/api/jobs/{id}/start', summary: 'Start: desired state RUNNING, status PENDING, a run is enqueued', role: 'operator', tag: 'lifecycle', success: ok('JobDetail'), errors: [404, 409], response: RESPONSES.job },
  { method: 'post', path: '/api/jobs/{id}/stop', summary: 'Graceful stop: the running batch finishes and commits (idempotent)', role: 'operator', tag: 'lifecycle', success: ok('JobDetail'), errors: [404], response: RESPONSES.job },
  { method: 'post', path: '/api/jobs/{id}/restart', summary: 'Stop gracefully and start again', role: 'operator', tag: 'lifecycle', success: ok('JobDetail'), errors: [404, 409], response: RESPONSES.job },
  { method: 'post', path: '/api/jobs/{id}/reset-checkpoint', summary: 'Delete the checkpoint and the batch history of a stopped job; confirm with its name. 409 REPROCESSING_NOT_ACKNOWLEDGED when the sink already holds rows and would not recognize them (at-least-once, or a new query id on transactional postgres) unless acknowledgeReprocessing: true', role: 'admin', tag: 'lifecycle', body: resetCheckpointSchema, success: ok('{job, deletedFiles, deletedBatches}'), errors: [400, 404, 409], response: RESPONSES.reset },
  { method: 'get', path: '/api/jobs/{id}/savepoints', summary: 'Savepoints of a job, newest first', role: 'viewer', tag: 'checkpoint', success: ok('{items: Savepoint[]}'), errors: [404], response: RESPONSES.savepoints },
  { method: 'post', path: '/api/jobs/{id}/savepoints', summary: 'Savepoint: a consistent copy of the job’s checkpoint at its last commit, running or stopped (the job is not paused), every file checksummed (audited)', role: 'operator', tag: 'checkpoint', body: createSavepointSchema, success: ok('Savepoint', 201), errors: [400, 404, 409, 503], response: RESPONSES.savepoint },
  { method: 'post', path: '/api/jobs/{id}/savepoints/{savepointId}/restore', summary: 'Reset a stopped job’s checkpoint to the savepoint (confirm with its name), the old one kept as a savepoint; the restored checkpoint has a new query id, so the sink writes the batches after the savepoint again: 409 REPROCESSING_NOT_ACKNOWLEDGED unless acknowledgeReprocessing: true when the history after it wrote rows (audited)', role: 'admin', tag: 'checkpoint', body: restoreSavepointSchema, success: ok('{job, savepoint, queryId, nextBatchId, reEmittedBatches, backup, message}'), errors: [400, 404, 409, 503], response: RESPONSES.restore },
  { method: 'post', path: '/api/jobs/{id}/savepoints/{savepointId}/new-job', summary: 'A new stopped job with this job’s spec and a checkpoint restored from the savepoint under a new query id; same sink, so the batches after the savepoint are written again: 409 REPROCESSING_NOT_ACKNOWLEDGED unless acknowledgeReprocessing: true (audited)', role: 'admin', tag: 'checkpoint', body: newJobFromSavepointSchema, success: ok('{job, savepoint, queryId, nextBatchId, reEmittedBatches, message}', 201), errors: [400, 404, 409, 503], response: RESPONSES.restore },
  { method: 'get', path: '/api/jobs/{id}/runs', summary: 'Runs of a job, newest first, keyset pages (?before=<nextBefore>)', role: 'viewer', tag: 'history', query: runsQuerySchema, success: ok('{items: Run[], nextBefore}'), errors: [400, 404], response: RESPONSES.runs },
  { method: 'get', path: '/api/jobs/{id}/plan', summary: 'The job\'s plan as the engine explains it: its operators (depth in the tree, text, stateless / stateful with why / source), the job page\'s plan graph; problem says why there is none', role: 'viewer', tag: 'jobs', success: ok('JobPlan (lib/server/presenters/job-plan-presenter.ts)'), errors: [404], response: RESPONSES.plan },
  { method: 'get', path: '/api/jobs/{id}/tasks', summary: 'Where the job\'s reduce tasks ran over its newest batches: per worker, tasks, batches, rows, time, retries; and its parallelism', role: 'viewer', tag: 'history', query: taskPlacementQuerySchema, success: ok('TaskPlacement (lib/server/presenters/task-placement-presenter.ts)'), errors: [400, 404], response: RESPONSES.taskPlacement },
  { method: 'get', path: '/api/jobs/{id}/batches', summary: 'Committed batches, newest first, keyset-paginated (?before=<nextBefore>)', role: 'viewer', tag: 'history', query: batchesQuerySchema, success: ok('{items: BatchSummary[], nextBefore}'), errors: [400, 404], response: RESPONSES.batches },
  { method: 'get', path: '/api/jobs/{id}/batches/{batchId}', summary: 'One batch with its full StreamingQueryProgress', role: 'viewer', tag: 'history', success: ok('BatchDetail'), errors: [400, 404], response: RESPONSES.batch },
  { method: 'get', path: '/api/jobs/{id}/charts', summary: 'Chart series of the batch history, downsampled to at most `points` buckets over [from, to] (epoch ms)', role: 'viewer', tag: 'history', query: z.object({ from: z.coerce.number().int().nonnegative().optional(), to: z.coerce.number().int().nonnegative().optional(), points: z.coerce.number().int().min(1).max(2000).optional() }), success: ok('BatchCharts (lib/server/presenters/batch-chart-presenter.ts)'), errors: [400, 404], response: RESPONSES.charts },
  { method: 'get', path: '/api/jobs/{id}/checkpoint', summary: 'The checkpoint’s files with sizes, and the pending batch', role: 'viewer', tag: 'checkpoint', success: ok('CheckpointTree'), errors: [404], response: RESPONSES.checkpoint },
  { method: 'get', path: '/api/jobs/{id}/checkpoint/file', summary: 'One checkpoint file’s contents (paths outside the checkpoint are refused)', role: 'viewer', tag: 'checkpoint', query: checkpointFileQuerySchema, success: ok('{path, size, encoding, content, truncated}'), errors: [400, 404], response: RESPONSES.checkpointFile },
  { method: 'get', path: '/api/jobs/{id}/progress/stream', summary: 'Server-sent events: each committed batch’s progress; a heartbeat comment every 15 s', role: 'viewer', tag: 'history', success: { status: 200, description: 'event: progress, data: BatchDetail', contentType: 'text/event-stream' }, errors: [404] },
  { method: 'get', path: '/api/jobs/{id}/drills', summary: 'Incident drills of a job, newest first, with their duplicate audits', role: 'viewer', tag: 'drills', success: ok('{items: Drill[]}'), errors: [404], response: RESPONSES.drills },
  { method: 'post', path: '/api/jobs/{id}/drills', summary: 'Drill a RUNNING job: crash its run at a point (after-offsets, after-sink, after-commit) or kill its worker (kill-worker), then recover', role: 'operator', tag: 'drills', body: z.object({ point: z.enum(['after-offsets', 'after-sink', 'after-commit', 'kill-worker']) }), success: ok('Drill', 201), errors: [400, 404, 409], response: RESPONSES.drill },
  { method: 'get', path: '/api/jobs/{id}/sink-audit', summary: 'Duplicate audit: rows per batch id in the sink against what each committed batch wrote', role: 'viewer', tag: 'drills', success: ok('SinkAudit'), errors: [404, 409], response: RESPONSES.sinkAudit },
  { method: 'get', path: '/api/jobs/{id}/duplicate-diagnosis', summary: 'Duplicate diagnosis: the duplicate audit classified as replay-window (a recovery re-ran a batch), savepoint-restore (a reset to a savepoint re-ran the batches after it, as announced), checkpoint-loss (a reset, a moved checkpoint or a new query id reprocessed history) or unexplained, with the time span, batches, rows, matching event and fix', role: 'viewer', tag: 'drills', success: ok('DuplicateDiagnosis (lib/server/contracts/duplicate-diagnosis.ts)'), errors: [404, 409], response: RESPONSES.duplicateDiagnosis },
  { method: 'get', path: '/api/contracts', summary: 'The fleet’s contract audit: every job’s guarantee, missing signatures with reasons, sink mode, rows a replay would double (median and max of recent batches), last restart and fix; ?format=csv exports it', role: 'viewer', tag: 'audit', query: contractsQuerySchema, success: ok('{items: ContractRow[], counts, recentBatches} or text/csv'), errors: [400], response: RESPONSES.contracts },
  { method: 'get', path: '/api/contracts/summary', summary: 'How many jobs are at-least-once (the navigation’s count)', role: 'viewer', tag: 'audit', success: ok('{atLeastOnce}'), response: RESPONSES.contractsSummary },
  { method: 'get', path: '/api/demo', summary: 'The demo: each demo job’s revenue per region from its sink table, its duplicate audit and drills', role: 'viewer', tag: 'drills', success: ok('{ready, jobs: DemoJobStatus[]}'), response: RESPONSES.demo },
  { method: 'post', path: '/api/demo', summary: 'Set up and start the demo’s two jobs (bare-append and transactional postgres sinks over one orders source); {addFiles: n} adds orders; {loseCheckpoint: true} resets the bare-append job’s checkpoint and restarts it', role: 'admin', tag: 'drills', body: demoInputSchema, success: ok('{jobIds, created}, {orders} or {jobId, deletedFiles}'), errors: [400, 409, 422], response: RESPONSES.demo },
  { method: 'get', path: '/api/alerts', summary: 'Alerts, FIRING first then resolved history, newest first', role: 'viewer', tag: 'alerts', query: alertsQuerySchema, success: ok('{items: Alert[]}'), errors: [400], response: RESPONSES.alerts },
  { method: 'get', path: '/api/alerts/summary', summary: 'Firing alerts overall, not yet acknowledged, and per job (the navigation and job badges)', role: 'viewer', tag: 'alerts', success: ok('{firing, unacknowledged, byJob: {jobId: count}}'), response: RESPONSES.alertSummary },
  { method: 'get', path: '/api/alerts/{id}', summary: 'One alert with its webhook delivery log', role: 'viewer', tag: 'alerts', success: ok('Alert with deliveries[]'), errors: [404], response: RESPONSES.alertWithDeliveries },
  { method: 'post', path: '/api/alerts/{id}/acknowledge', summary: 'Acknowledge a firing alert (audited; repeating it changes nothing); it keeps firing until its condition clears', role: 'operator', tag: 'alerts', success: ok('Alert'), errors: [404, 409], response: RESPONSES.alert },
  { method: 'get', path: '/api/alert-rules', summary: 'Alert rules (webhook secrets masked); ?jobId= gives the job’s own and the global ones', role: 'viewer', tag: 'alerts', query: z.object({ jobId: z.string().min(1).optional() }), success: ok('{items: AlertRule[]}'), errors: [400], response: RESPONSES.alertRules },
  { method: 'post', path: '/api/alert-rules', summary: 'Create an alert rule (per job, or global without jobId); see docs/alerts.md for the kinds and params', role: 'admin', tag: 'alerts', body: alertRuleInputSchema, success: ok('AlertRule', 201), errors: [400], response: RESPONSES.alertRule },
  { method: 'get', path: '/api/alert-rules/{id}', summary: 'One alert rule', role: 'viewer', tag: 'alerts', success: ok('AlertRule'), errors: [404], response: RESPONSES.alertRule },
  { method: 'put', path: '/api/alert-rules/{id}', summary: 'Edit a rule’s name, params, enabled flag or webhook (a secret sent back as ******** is kept)', role: 'admin', tag: 'alerts', body: alertRuleUpdateSchema, success: ok('AlertRule'), errors: [400, 404], response: RESPONSES.alertRule },
  { method: 'delete', path: '/api/alert-rules/{id}', summary: 'Delete a rule; its firing alerts resolve', role: 'admin', tag: 'alerts', success: ok('Deleted', 204), errors: [404] },
  { method: 'get', path: '/api/audit', summary: 'Audit events, newest first (who, what, when, before, after)', role: 'viewer', tag: 'audit', query: auditQuerySchema, success: ok('{items: AuditEvent[], nextCursor}'), errors: [400], response: RESPONSES.audit },
];

const errorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string', description: 'Stable error code' }, message: { type: 'string', description: 'What went wrong and what to do next' }, details: {} },
    },
  },
};

const ERROR_TEXT: Record<number, string> = {
  400: 'Malformed request (details.issues name the fields)',
  401: 'No valid credentials',
  403: 'The role may not do this',
  404: 'Not found',
  409: 'Conflicts with the current state',
  413: 'The body is over 1 MiB',
  422: 'The job spec is invalid (details.errors: path, message, line, column)',
  424: 'A system the request needs (a preview\'s source) could not be read; the message names it',
  429: 'Too many of these are running on this server; try again after Retry-After seconds',
  503: 'Try again later: the checkpoint storage refused a write (CHECKPOINT_WRITE_FAILED: full, read-only, no permission; the message says what was left and what to do), or a preview process did not start or died (after Retry-After seconds)',
};

function jsonSchema(s: z.ZodType): unknown {
  return z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' });
}

/** What a client receives: the schema's output side, unknown JSON left open. */
function responseSchema(s: z.ZodType): unknown {
  return z.toJSONSchema(s, { io: 'output', unrepresentable: 'any' });
}

function operationObject(op: Operation) {
  const pathParams = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  const queryParams = op.query
    ? Object.entries(op.query.shape).map(([name, s]) => ({ name, in: 'query', required: !(s as z.ZodType).safeParse(undefined).success, schema: jsonSchema(s as z.ZodType) }))
    : [];
  const errors = [...new Set([...(op.role === 'public' ? [] : [401, 403]), ...(op.body ? [400, 413] : []), ...(op.errors ?? [])])].sort();
  return {
    summary: op.summary,
    tags: [op.tag],
    'x-weir-role': op.role,
    security: op.role === 'public' ? [] : [{ bearer: [] }, { session: [] }],
    parameters: [...pathParams, ...queryParams],
    ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(op.body) } } } } : {}),
    responses: {
      [String(op.success.status)]: {
        description: op.success.description,
        ...(op.success.status === 204 ? {} : { content: { [op.success.contentType ?? 'application/json']: { schema: op.response ? responseSchema(op.response) : { type: 'string' } } } }),
      },
      ...Object.fromEntries(errors.map((s) => [String(s), { description: ERROR_TEXT[s], content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } }])),
    },
  };
}

export function openApiDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = operationObject(op);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Weir control plane API',
      version: '1',
      description: 'Jobs, runs, batches and checkpoints of Weir streaming queries. Roles: viewer reads; operator starts, stops and restarts; admin creates, edits, deletes, resets checkpoints and manages tokens.',
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API token (POST /api/tokens)' },
        session: { type: 'apiKey', in: 'cookie', name: 'weir_session', description: 'Set by POST /api/auth/signin' },
      },
      schemas: { Error: errorSchema },
    },
    paths,
  };
}
