/**
 * StaticTableReads: when a static side (a table, or the batch plan over tables of a join's static
 * side) must be read again. Spark re-runs a static DataFrame's plan at every micro-batch, so a
 * dimension table updated in its database, or a file rewritten, is seen by the next batch; a
 * DataFrame the user `.cache()`s is read once and kept. Weir does the same per table: by default
 * a side is read again at each batch that has data, and a table with `cache: true` is read once
 * per run, its rows kept for every later read.
 *
 * Reading again costs a full read, so where it cannot change the rows it is skipped: a file table
 * whose size, modification time and inode are those of the last read (one stat per batch) gives
 * the rows it gave. Any other table (PostgreSQL) is read again each time, as Spark re-queries it.
 * The stat is taken before the read, so a file changed while it is read differs at the next stat
 * and is read again then. A rewrite should replace the file atomically (write, then rename): a
 * half-written line is a bad record, which fails the run as it would at the first read.
 */
import { stat } from 'node:fs/promises';
import type { Row } from '../types';
import type { StaticTableSpec } from './stream-static-join';

/** What a file looked like when it was read; undefined: not a file, so no read can be skipped. */
type Signature = string | undefined;

async function signatureOf(t: StaticTableSpec): Promise<Signature> {
  if ((t.type ?? 'file') !== 'file' || !t.path) return undefined;
  try {
    const s = await stat(t.path, { bigint: true });
    return `${s.size}:${s.mtimeNs}:${s.ino}`;
  } catch {
    // Gone or unreadable: the read says why, naming the file.
    return undefined;
  }
}

export class StaticTableReads {
  /** Rows of the tables with `cache: true`, by table, from their first read. */
  private readonly cached = new Map<StaticTableSpec, Row[]>();
  /** Each table the last read of the side read, and its file's signature then; unset before the first read. */
  private last?: Map<StaticTableSpec, Signature>;

  constructor(private readonly load: (t: StaticTableSpec) => Promise<Row[]>) {}

  /** The batch whose read, or check for changes, was the last. */
  private checkedBatch?: number;

  /**
   * Whether the side must be read for this batch: when it has not been (`readBefore` false),
   * else at a batch with rows whose tables may have changed (`stale`), checked once a batch, so
   * the pieces of a batch (a pipelined stage) join one read.
   */
  async mustRead(batchId: number, hasRows: boolean, readBefore: boolean): Promise<boolean> {
    if (readBefore && (!hasRows || batchId === this.checkedBatch)) return false;
    this.checkedBatch = batchId;
    return !readBefore || this.stale();
  }

  /**
   * Whether a read now may give other rows than the last: there was none, or a table it read is
   * not cached and is not a file whose signature is unchanged.
   */
  private async stale(): Promise<boolean> {
    if (!this.last) return true;
    for (const [t, was] of this.last) {
      if (t.cache) continue;
      if (was === undefined || (await signatureOf(t)) !== was) return true;
    }
    return false;
  }

  /** A loader for one read of the side: a cached table's kept rows, any other table read now; each recorded for `stale`. */
  reader(): (t: StaticTableSpec) => Promise<Row[]> {
    const read = new Map<StaticTableSpec, Signature>();
    this.last = read;
    return async (t) => {
      const kept = t.cache ? this.cached.get(t) : undefined;
      if (kept) {
        read.set(t, undefined);
        return kept;
      }
      const signature = await signatureOf(t);
      const rows = await this.load(t);
      read.set(t, signature);
      if (t.cache) this.cached.set(t, rows);
      return rows;
    };
  }
}
