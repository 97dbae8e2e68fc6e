/**
 * The rate source (Spark's `rate` format): `rowsPerSecond` rows per second of the injected
 * clock, each `{ timestamp, value }` with value = the row's index and timestamp = start time +
 * index / rowsPerSecond. The offset is whole seconds since the start time, which is recorded
 * once in `sources/<i>/0`, so any (start, end] is re-derived exactly: replayable by
 * construction.
 */
import { z } from 'zod';
import { FileAlreadyExistsError } from '../checkpoint/checkpoint-file-manager';
import type { Offset, Row, Schema } from '../types';
import type { RecentRecords, RecentRecordsLimit, Source, SourceBatch } from './source';
import { registerSource, type SourceContext } from './source-registry';

export const RateSourceOptions = z
  .object({
    rowsPerSecond: z.number().int().positive().default(1),
    maxSecondsPerTrigger: z.number().int().positive().optional().describe('Cap on the seconds a single batch covers (catch-up after downtime).'),
  })
  .strict();
export type RateSourceOptions = z.infer<typeof RateSourceOptions>;

const RATE_COLUMNS: Record<string, string> = { timestamp: 'timestamp', value: 'long' };
/** A rate row's size as the preview counts it: two 8-byte values. */
const RATE_ROW_BYTES = 16;

export class RateSource implements Source {
  readonly description: string;
  readonly replayable = true;
  readonly replayableReason = 'rows are derived from the offset and the recorded start time, so a range re-derives identically';
  private startTimeMs = 0;
  private cap?: number;

  constructor(
    private readonly opts: RateSourceOptions,
    private readonly ctx: SourceContext,
  ) {
    this.description = `RateStream[rowsPerSecond=${opts.rowsPerSecond}]`;
  }

  get schema(): Schema {
    return this.ctx.schema;
  }

  async open(): Promise<void> {
    const path = `${this.ctx.metadataPath}/0`;
    const mine = this.ctx.clock.now();
    try {
      await this.ctx.checkpoint.createAtomic(path, `v1\n${JSON.stringify({ startTimeMs: mine })}`, { overwrite: false });
      this.startTimeMs = mine;
    } catch (e) {
      if (!(e instanceof FileAlreadyExistsError)) throw e;
      const text = (await this.ctx.checkpoint.read(path)).toString('utf8');
      this.startTimeMs = Number(JSON.parse(text.split('\n')[1]).startTimeMs);
    }
  }

  private secondsNow(): number {
    return Math.max(0, Math.floor((this.ctx.clock.now() - this.startTimeMs) / 1000));
  }

  async latestOffset(start?: Offset | null, limit?: 'default' | 'all'): Promise<Offset | null> {
    let s = Math.min(this.secondsNow(), this.cap ?? Infinity);
    const from = (start as number | null | undefined) ?? 0;
    if (limit !== 'all' && this.opts.maxSecondsPerTrigger) s = Math.min(s, from + this.opts.maxSecondsPerTrigger);
    return s === 0 ? null : s;
  }

  async reportLatestOffset(): Promise<Offset | null> {
    const s = this.secondsNow();
    return s === 0 ? null : s;
  }

  async prepareForTriggerAvailableNow(): Promise<void> {
    this.cap = this.secondsNow();
  }

  async getBatch(start: Offset | null, end: Offset): Promise<SourceBatch> {
    const rps = this.opts.rowsPerSecond;
    const first = ((start as number | null) ?? 0) * rps;
    const last = (end as number) * rps;
    const rows: Row[] = [];
    const cols = this.ctx.schema.map((f) => f.name);
    for (let i = first; i < last; i++) {
      const full: Row = { timestamp: this.startTimeMs + Math.floor((i * 1000) / rps), value: i };
      const r: Row = {};
      for (const c of cols) r[c] = full[c];
      rows.push(r);
    }
    return { rows, badRecords: [] };
  }

  /**
   * The rows a run started `limit.records / rowsPerSecond` seconds ago would have by now
   * (values from 0, timestamps up to the clock's now), generated: nothing is recorded.
   */
  async sampleRecent(limit: RecentRecordsLimit): Promise<RecentRecords> {
    const rps = this.opts.rowsPerSecond;
    const n = Math.min(limit.records, Math.floor(limit.bytes / RATE_ROW_BYTES));
    const startMs = this.ctx.clock.now() - Math.ceil((n * 1000) / rps);
    const cols = this.ctx.schema.map((f) => f.name);
    const rows: Row[] = [];
    for (let i = 0; i < n; i++) {
      const full: Row = { timestamp: startMs + Math.floor((i * 1000) / rps), value: i };
      const r: Row = {};
      for (const c of cols) r[c] = full[c];
      rows.push(r);
    }
    return { rows, badRecords: [], bytesRead: n * RATE_ROW_BYTES, stoppedAtBytes: n < limit.records };
  }

  offsetLag(from: Offset | null, to: Offset | null): number | null {
    return Math.max(0, ((to as number | null) ?? 0) - ((from as number | null) ?? 0)) * this.opts.rowsPerSecond;
  }

  async stop(): Promise<void> {}
}

registerSource<RateSourceOptions>({
  type: 'rate',
  options: RateSourceOptions,
  replayable: () => ({ replayable: true, reason: 'rate rows are a function of the offset and the recorded start time' }),
  create: (o, ctx) => new RateSource(o, ctx),
  checkSchema: (schema) => {
    for (const f of schema) {
      if (RATE_COLUMNS[f.name] !== f.type) {
        return `the rate source produces only timestamp (timestamp) and value (long); "${f.name}: ${f.type}" is not one of them`;
      }
    }
    return undefined;
  },
});
