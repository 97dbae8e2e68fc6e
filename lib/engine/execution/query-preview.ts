/**
 * Preview: a job's query over a sample of records, with no checkpoint and no sink, as Arroyo's
 * and ksqlDB's previews show output before a deploy. The job's own source is replaced by a
 * memory stream holding the sample (converted by the source schema, as the source would) and its
 * sink by a memory table; the checkpoint lives in memory and is dropped. The query runs to the
 * end of the sample (available-now), so a stateful query shows its result table after the
 * sample; an append-mode window is emitted only once the watermark passes its end, and the
 * preview says so.
 *
 * Bounded: at most MAX_PREVIEW_SAMPLE_ROWS records in, the first `maxRows` rows out, and a time
 * limit after which the run is stopped and the preview refused with PREVIEW_TIMEOUT.
 */
import { randomUUID } from 'node:crypto';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { ValidationError, WeirError } from '../errors';
import { parseJobSpec, type JobSpec } from '../spec/job-spec';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import { convertObject } from '../sources/value-conversion';
import { compileStreamingQuery } from '../query/streaming-query';
import type { Row, Schema } from '../types';
import { MicroBatchExecution } from './micro-batch-execution';
import { relationOf } from './query-runtime';

export const MAX_PREVIEW_SAMPLE_ROWS = 1000;
const DEFAULT_PREVIEW_ROWS = 100;
const DEFAULT_PREVIEW_TIMEOUT_MS = 10_000;

export interface QueryPreview {
  outputSchema: Schema;
  /** The first rows of the output (at most maxRows). */
  rows: Row[];
  /** More rows than shown came out. */
  truncated: boolean;
  totalRows: number;
  inputRows: number;
  stateful: boolean;
  /** What to keep in mind reading the rows (windows and the watermark). */
  notes: string[];
}

export async function previewQuery(spec: JobSpec, sample: unknown[], opts: { maxRows?: number; timeoutMs?: number } = {}): Promise<QueryPreview> {
  const maxRows = opts.maxRows ?? DEFAULT_PREVIEW_ROWS;
  if (sample.length > MAX_PREVIEW_SAMPLE_ROWS) {
    throw new ValidationError(`The sample has ${sample.length} records; a preview takes at most ${MAX_PREVIEW_SAMPLE_ROWS}. Send fewer.`, { path: 'sample', max: MAX_PREVIEW_SAMPLE_ROWS });
  }
  const rows: Row[] = sample.map((r, i) => {
    if (r === null || typeof r !== 'object' || Array.isArray(r)) throw new ValidationError(`Sample record ${i + 1} is not a JSON object; send one object per record.`, { path: `sample.${i}` });
    const c = convertObject(r as Record<string, unknown>, spec.source.schema as Schema);
    if ('reason' in c) throw new ValidationError(`Sample record ${i + 1} does not fit the source schema: ${c.reason}.`, { path: `sample.${i}` });
    return c.row;
  });
  const id = `preview-${randomUUID()}`;
  const parsed = parseJobSpec({
    ...spec,
    source: { ...spec.source, type: 'memory', options: { stream: id } },
    sink: { type: 'memory', options: { table: id } },
    trigger: { type: 'available-now' },
    checkpointLocation: `memory://${id}`,
  });
  if (!parsed.ok) throw new ValidationError(`The query cannot be previewed: ${parsed.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  const query = compileStreamingQuery(spec.sql, relationOf(spec), { outputMode: spec.outputMode, dedup: spec.dedup, staticTables: spec.staticTables });
  const stream = MemoryStream.named(id);
  const table = MemorySinkTable.named(id);
  const exec = new MicroBatchExecution({ spec: parsed.spec, checkpoint: new InMemoryCheckpointFileManager() });
  let timer: NodeJS.Timeout | undefined;
  try {
    if (rows.length) stream.addData(...rows);
    const timeoutMs = opts.timeoutMs ?? DEFAULT_PREVIEW_TIMEOUT_MS;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new WeirError('PREVIEW_TIMEOUT', `The preview did not finish within ${timeoutMs} ms; preview a smaller sample.`, { timeoutMs })), timeoutMs);
    });
    await Promise.race([exec.run(), timedOut]);
    const out = table.rows;
    const notes: string[] = [];
    if (query.stateful) notes.push(`The result after all ${rows.length} sample records, as the state holds it (${spec.outputMode} mode).`);
    if (query.stateful && spec.outputMode === 'append') {
      notes.push('Append mode emits a window only once the watermark passes its end: windows still open at the end of the sample are not shown.');
    }
    return { outputSchema: query.outputSchema, rows: out.slice(0, maxRows), truncated: out.length > maxRows, totalRows: out.length, inputRows: rows.length, stateful: query.stateful, notes };
  } finally {
    clearTimeout(timer);
    await exec.stop().catch(() => undefined);
    MemoryStream.drop(id);
    MemorySinkTable.drop(id);
  }
}
