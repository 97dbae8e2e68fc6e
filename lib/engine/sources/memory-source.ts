/**
 * The memory source (Spark's MemoryStream), for tests: rows added with `MemoryStream.addData`
 * become visible as a new offset (the row count). Replayable while the process lives: any
 * (start, end] reads the same slice again.
 */
import { z } from 'zod';
import type { Offset, Row, Schema } from '../types';
import type { RecentRecords, RecentRecordsLimit, Source, SourceBatch } from './source';
import { registerSource } from './source-registry';

/**
 * A run of consecutive stored rows with the same columns in the same order and no undefined
 * value (`columns`), or rows that are not all alike (`columns: null`).
 */
interface RowShape {
  start: number;
  columns: string[] | null;
}

export class MemoryStream {
  private static streams = new Map<string, MemoryStream>();
  readonly rows: Row[] = [];
  /**
   * The stored rows' shapes, ascending by start. Found while addData copies the rows (the
   * producer's side, as Spark's MemoryStream encodes rows when they are added), so a read checks
   * one shape per run of alike rows against the schema instead of every row's columns.
   */
  readonly shapes: RowShape[] = [];

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

  /** Appends copies of the rows; returns the new latest offset. */
  addData(...rows: Row[]): number {
    return this.addRows(rows);
  }

  /** addData for a whole batch: an array, since spreading ~500k rows into arguments overflows the stack. */
  addRows(rows: readonly Row[]): number {
    const stored = this.rows;
    let shape = this.shapes.at(-1);
    for (const r of rows) {
      const copy = { ...r };
      const index = stored.push(copy) - 1;
      const cols = shape?.columns;
      let alike = cols !== undefined && cols !== null;
      if (alike) {
        let i = 0;
        for (const k in copy) {
          if (i >= cols!.length || k !== cols![i] || copy[k] === undefined) {
            alike = false;
            break;
          }
          i++;
        }
        alike &&= i === cols!.length;
      }
      if (alike) continue;
      const columns = Object.keys(copy);
      const regular = !columns.some((k) => copy[k] === undefined);
      if (!regular && shape !== undefined && shape.columns === null) continue; // extends an irregular run
      shape = { start: index, columns: regular ? columns : null };
      this.shapes.push(shape);
    }
    return stored.length;
  }
}

const MEMORY_SPLIT_ROWS = 4;

const MemorySourceOptions = z.object({ stream: z.string().min(1) }).strict();
type MemorySourceOptions = z.infer<typeof MemorySourceOptions>;

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

  /** Splits of at most MEMORY_SPLIT_ROWS rows, so that map tasks over a memory stream (tests) are several, as over a topic's partitions. */
  async planInputPartitions(start: Offset | null, end: Offset): Promise<{ start: Offset | null; end: Offset }[]> {
    const splits: { start: Offset | null; end: Offset }[] = [];
    for (let at = (start as number | null) ?? 0; at < (end as number); at += MEMORY_SPLIT_ROWS) splits.push({ start: at, end: Math.min(end as number, at + MEMORY_SPLIT_ROWS) });
    return splits;
  }

  async getBatch(start: Offset | null, end: Offset): Promise<SourceBatch> {
    const from = (start as number | null) ?? 0;
    const stored = this.stream.rows;
    const to = Math.min(end as number, stored.length);
    if (to <= from) return { rows: [], badRecords: [] };
    const shapes = this.stream.shapes;
    // Runs whose rows have exactly the schema's columns, in order, are taken as they are (addData
    // made them, and operators never mutate their input, so a replay of (start, end] reads the
    // same values); other rows are projected onto the schema.
    let s = 0;
    while (s + 1 < shapes.length && shapes[s + 1].start <= from) s++;
    const parts: Row[][] = [];
    for (let at = from; at < to; s++) {
      const runEnd = Math.min(to, s + 1 < shapes.length ? shapes[s + 1].start : stored.length);
      parts.push(this.matches(shapes[s].columns) ? stored.slice(at, runEnd) : this.project(stored, at, runEnd));
      at = runEnd;
    }
    return { rows: parts.length === 1 ? parts[0] : parts.flat(), badRecords: [] };
  }

  private matches(columns: string[] | null): boolean {
    return columns !== null && columns.length === this.names.length && columns.every((c, i) => c === this.names[i]);
  }

  private project(stored: Row[], from: number, to: number): Row[] {
    const names = this.names;
    const out = new Array<Row>(to - from);
    for (let j = from; j < to; j++) {
      const r = stored[j];
      const o: Row = {};
      for (const name of names) o[name] = r[name] ?? null;
      out[j - from] = o;
    }
    return out;
  }

  /** The stream's last rows, newest last, up to the record and byte bounds (bytes as JSON). */
  async sampleRecent(limit: RecentRecordsLimit): Promise<RecentRecords> {
    const end = this.stream.rows.length;
    const { rows } = await this.getBatch(Math.max(0, end - limit.records), end);
    let bytesRead = 0;
    let keep = 0;
    for (let i = rows.length - 1; i >= 0; i--) {
      const size = JSON.stringify(rows[i]).length;
      if (bytesRead + size > limit.bytes) break;
      bytesRead += size;
      keep++;
    }
    return { rows: rows.slice(rows.length - keep), badRecords: [], bytesRead, stoppedAtBytes: keep < rows.length };
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
