/**
 * react-query keys, from one factory so that an invalidation (after an action, or when a batch
 * arrives on the progress stream) reaches every query of that job and nothing else.
 */
export const queryKeys = {
  me: () => ['me'] as const,
  jobs: () => ['jobs'] as const,
  job: (id: string) => ['jobs', id] as const,
  charts: (id: string, range: string) => ['jobs', id, 'charts', range] as const,
  batches: (id: string, before: number | null, limit: number) => ['jobs', id, 'batches', before, limit] as const,
  batch: (id: string, batchId: number) => ['jobs', id, 'batch', batchId] as const,
  tasks: (id: string) => ['jobs', id, 'tasks'] as const,
  plan: (id: string) => ['jobs', id, 'plan'] as const,
  runs: (id: string, before: string | null, limit: number) => ['jobs', id, 'runs', before, limit] as const,
  checkpoint: (id: string) => ['jobs', id, 'checkpoint'] as const,
  duplicateDiagnosis: (id: string) => ['jobs', id, 'duplicate-diagnosis'] as const,
  savepoints: (id: string) => ['jobs', id, 'savepoints'] as const,
  checkpointFile: (id: string, path: string) => ['jobs', id, 'checkpoint', 'file', path] as const,
  /** `jobId`: an edit, checked against the job's checkpoint too. */
  draft: (spec: string, jobId?: string) => ['draft-check', spec, jobId ?? null] as const,
};

/**
 * Rows per page of the batch table. Here, not in the table's module: a server component that
 * imports a value from a 'use client' module gets a client reference, not the number.
 */
export const BATCH_PAGE_SIZE = 20;
/** Rows per page of the runs table (same reason). */
export const RUN_PAGE_SIZE = 20;

/**
 * Points per chart series requested from the server: about one per 2–3 px of a chart's plot
 * width on a laptop screen; more would cost render time without showing anything new.
 */
export const CHART_POINTS = 120;
