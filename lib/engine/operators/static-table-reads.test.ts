/**
 * What reading a static side again costs: StreamStaticJoinExec over a counting loader. A file is
 * read again only when its stat changed, at most once a batch (the pieces of a pipelined batch
 * join one read), never for a batch without rows; a table of another type (PostgreSQL) at each
 * batch with data; a cached one once.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Row } from '../types';
import type { OperatorContext } from './physical-operator';
import { StreamStaticJoinExec, type StaticTableSpec } from './stream-static-join';

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

const ctx = (batchId: number): OperatorContext => ({ batchId, batchWatermarkMs: 0, batchTimestampMs: 0 });
const ROW = [{ id: 1, k: 'a' }];

/** A join of `table` whose loader counts its reads and gives `rows()` at each. */
function join(table: StaticTableSpec, rows: () => Row[]) {
  const reads = { n: 0 };
  const op = new StreamStaticJoinExec({
    joinType: 'left', table, keys: [{ stream: 'k', static: 'k' }], staticColumns: ['v'],
    load: async () => {
      reads.n++;
      return rows();
    },
  }, []);
  return { op, reads };
}

async function file(text: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-static-reads-'));
  roots.push(dir);
  const f = path.join(dir, 't.json');
  await writeFile(f, text);
  return f;
}

describe('reading a static side again', () => {
  it('a file: only when its stat changed, once a batch, never for a batch without rows', async () => {
    const f = await file('{"k":"a","v":1}\n');
    let v = 1;
    const { op, reads } = join({ name: 't', path: f, schema: [] }, () => [{ k: 'a', v }]);
    expect(await op.execute(ROW, ctx(0))).toEqual([{ id: 1, k: 'a', v: 1 }]);
    await op.execute(ROW, ctx(1));
    await op.execute(ROW, ctx(2));
    expect(reads.n).toBe(1);
    await writeFile(f, '{"k":"a","v":22}\n');
    v = 22;
    // A batch without rows joins nothing: no stat, no read.
    await op.execute([], ctx(3));
    expect(reads.n).toBe(1);
    expect(await op.execute(ROW, ctx(4))).toEqual([{ id: 1, k: 'a', v: 22 }]);
    expect(reads.n).toBe(2);
    // A later piece of the same batch joins the batch's read, whatever happened to the file since.
    await writeFile(f, '{"k":"a","v":333}\n');
    v = 333;
    expect(await op.execute(ROW, ctx(4))).toEqual([{ id: 1, k: 'a', v: 22 }]);
    expect(await op.execute(ROW, ctx(5))).toEqual([{ id: 1, k: 'a', v: 333 }]);
    expect(reads.n).toBe(3);
  });

  it('a table of another type (PostgreSQL) at each batch with data; with cache: true once per run', async () => {
    let v = 0;
    const pg = join({ name: 't', type: 'postgres', table: 't', schema: [] }, () => [{ k: 'a', v: ++v }]);
    for (let b = 0; b < 3; b++) await pg.op.execute(ROW, ctx(b));
    expect(pg.reads.n).toBe(3);
    expect(await pg.op.execute(ROW, ctx(3))).toEqual([{ id: 1, k: 'a', v: 4 }]);
    const cached = join({ name: 't', type: 'postgres', table: 't', cache: true, schema: [] }, () => [{ k: 'a', v: ++v }]);
    for (let b = 0; b < 3; b++) await cached.op.execute(ROW, ctx(b));
    expect(cached.reads.n).toBe(1);
  });
});
