/**
 * The memory source (Spark's MemoryStream), for tests: rows added with `MemoryStream.addData`
 * become visible as a new offset (the row count). Replayable while the process lives: any
 * (start, end] reads the same slice again.
 */
import { z } from 'zod';
import type { Offset, Row, Schema } from '../types';
import type { Source, SourceBatch } from './source';
import { registerSource } from './source-registry';

export class MemoryStream {
  private static streams = new Map<string, MemoryStream>();
  readonly rows: Row[] = [];

  private constructor(readonly name: string) {}

  /** The stream called `name` (created on first use), shared within this process. */
  static named(name: string): MemoryStream {
    let s = MemoryStream.streams.get(name);
    if (!s) MemoryStream.streams.set(name, (s = new MemoryStream(name)));
    return s;
  }

  static drop(name: string): void {
    MemoryStream.streams.delete(name);
  }

  /** Appends rows; returns the new latest offset. */
  addData(...rows: Row[]): number {
    this.rows.push(...rows.map((r) => ({ ...r })));
    return this.rows.length;
  }
}

export const MemorySourceOptions = z.object({ stream: z.string().min(1) }).strict();
export type MemorySourceOptions = z.infer<typeof MemorySourceOptions>;

export class MemorySource implements Source {
  readonly description: string;
  readonly replayable = true;
  readonly replayableReason = 'memory rows stay in the process, so any (start, end] can be read again until it exits';
  private cap?: number;
  private readonly names: string[];

  constructor(
    private readonly stream: MemoryStream,
    readonly schema: Schema,
  ) {
    this.description = `MemoryStream[${stream.name}]`;
    this.names = schema.map((f) => f.name);
  }

  async latestOffset(): Promise<Offset | null> {
    const n = Math.min(this.stream.rows.length, this.cap ?? Infinity);
    return n === 0 ? null : n;
  }

  async reportLatestOffset(): Promise<Offset | null> {
    return this.stream.rows.length === 0 ? null : this.stream.rows.length;
  }

  async prepareForTriggerAvailableNow(): Promise<void> {
    this.cap = this.stream.rows.length;
  }

  async getBatch(start: Offset | null, end: Offset): Promise<SourceBatch> {
    const from = (start as number | null) ?? 0;
    const stored = this.stream.rows;
    const to = Math.min(end as number, stored.length);
    const names = this.names;
    const n = names.length;
    const rows = new Array<Row>(Math.max(0, to - from));
    for (let j = from; j < to; j++) {
      const r = stored[j];
      // Common case: the stored row (addData's own copy) has exactly the schema's columns, in
      // order, none undefined: it is the row. Operators never mutate their input rows, so a
      // replay of (start, end] still reads the same values. Otherwise project it.
      let i = 0;
      let exact = true;
      for (const k in r) {
        if (i >= n || k !== names[i] || r[k] === undefined) {
          exact = false;
          break;
        }
        i++;
      }
      if (exact && i === n) {
        rows[j - from] = r;
        continue;
      }
      const o: Row = {};
      for (let c = 0; c < n; c++) o[names[c]] = r[names[c]] ?? null;
      rows[j - from] = o;
    }
    return { rows, badRecords: [] };
  }

  offsetLag(from: Offset | null, to: Offset | null): number | null {
    return Math.max(0, ((to as number | null) ?? 0) - ((from as number | null) ?? 0));
  }

  async stop(): Promise<void> {}
}

registerSource<MemorySourceOptions>({
  type: 'memory',
  options: MemorySourceOptions,
  replayable: () => ({ replayable: true, reason: 'memory rows can be read again while the process lives (tests only)' }),
  create: (o, ctx) => new MemorySource(MemoryStream.named(o.stream), ctx.schema),
});
