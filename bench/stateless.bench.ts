/**
 * Stateless filter + projection over JSON-lines rows through the files source and files sink,
 * against a hand-written Node loop doing the same parse, filter, projection and write, in the
 * same process and run. Goal: Weir at >= 50% of the loop's rows per second.
 * Rows: WEIR_BENCH_ROWS (default 1,000,000) in 10 files.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MicroBatchExecution, SystemClock, parseJobSpec, readCommittedRows, type Row } from '../lib/engine/index';
import type { BenchResult } from './run';

const FILES = 10;

function makeFile(rowsPerFile: number, fileNo: number): string {
  const parts: string[] = [];
  let seed = fileNo * 7919 + 1;
  const next = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed / 0x7fffffff);
  for (let i = 0; i < rowsPerFile; i++) {
    const id = fileNo * rowsPerFile + i;
    parts.push(
      JSON.stringify({ id, user: `user-${Math.floor(next() * 5000)}`, category: next() < 0.2 ? 'x' : 'y', amount: Math.round(next() * 10000) / 100, ts: 1_700_000_000_000 + id }),
    );
  }
  return parts.join('\n') + '\n';
}

const SQL = "SELECT id, upper(user) AS who, amount * 1.1 AS gross FROM orders WHERE amount > 50 AND category <> 'x'";

/** The hand-written equivalent of SQL, file by file. */
async function handLoop(input: string, output: string): Promise<number> {
  await mkdir(output, { recursive: true });
  let written = 0;
  for (const f of (await readdir(input)).sort()) {
    const text = await readFile(path.join(input, f), 'utf8');
    const out: string[] = [];
    let pos = 0;
    while (pos < text.length) {
      let nl = text.indexOf('\n', pos);
      if (nl === -1) nl = text.length;
      const line = text.slice(pos, nl);
      pos = nl + 1;
      if (!line) continue;
      const r = JSON.parse(line);
      if (r.amount > 50 && r.category !== 'x') out.push(JSON.stringify({ id: r.id, who: String(r.user).toUpperCase(), gross: r.amount * 1.1 }));
    }
    written += out.length;
    await writeFile(path.join(output, f), out.join('\n') + '\n');
  }
  return written;
}

/**
 * The first difference between the hand loop's rows and Weir's, matched by id (the same count is
 * not the same rows); undefined when they hold the same rows.
 */
async function firstDifference(handDir: string, weir: Row[]): Promise<string | undefined> {
  const want = new Map<string, string>();
  for (const f of await readdir(handDir)) {
    for (const line of (await readFile(path.join(handDir, f), 'utf8')).split('\n')) {
      if (!line) continue;
      const r = JSON.parse(line);
      want.set(String(r.id), JSON.stringify([r.who, r.gross]));
    }
  }
  if (weir.length !== want.size) return `weir ${weir.length} rows, hand loop ${want.size}`;
  for (const r of weir) {
    const got = JSON.stringify([r.who, r.gross]);
    const expected = want.get(String(r.id));
    if (got !== expected) return `id ${String(r.id)}: weir ${got}, hand loop ${expected ?? 'no such row (or it came twice)'}`;
    want.delete(String(r.id));
  }
  return undefined;
}

export async function run(): Promise<BenchResult[]> {
  const rows = Number(process.env.WEIR_BENCH_ROWS ?? 1_000_000);
  const root = await mkdtemp(path.join(tmpdir(), 'weir-bench-stateless-'));
  try {
    const input = path.join(root, 'in');
    await mkdir(input);
    const per = Math.ceil(rows / FILES);
    for (let i = 0; i < FILES; i++) await writeFile(path.join(input, `part-${String(i).padStart(3, '0')}.json`), makeFile(per, i));
    const total = per * FILES;

    // Three alternating rounds (hand, weir, hand, weir, …) and the best of each, so neither side
    // alone pays for JIT warm-up or a noisy neighbour on the shared 2 cores.
    let handMs = Infinity;
    let weirMs = Infinity;
    let handRows = 0;
    let batches = 0;
    for (let round = 0; round < 3; round++) {
      const t0 = performance.now();
      handRows = await handLoop(input, path.join(root, `hand-out-${round}`));
      handMs = Math.min(handMs, performance.now() - t0);

      const parsed = parseJobSpec({
        name: 'bench-stateless',
        source: {
          name: 'orders', type: 'files', options: { path: input, format: 'json', maxFilesPerTrigger: 2 },
          schema: [{ name: 'id', type: 'long' }, { name: 'user', type: 'string' }, { name: 'category', type: 'string' }, { name: 'amount', type: 'double' }, { name: 'ts', type: 'timestamp' }],
        },
        sql: SQL,
        sink: { type: 'files', options: { path: path.join(root, `weir-out-${round}`), format: 'json' } },
        trigger: { type: 'available-now' },
        checkpointLocation: path.join(root, `cp-${round}`),
      });
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
      batches = 0;
      const t1 = performance.now();
      await new MicroBatchExecution({ spec: parsed.spec, clock: new SystemClock(), onProgress: () => void batches++ }).run();
      weirMs = Math.min(weirMs, performance.now() - t1);
      const committed = (await readCommittedRows(path.join(root, `weir-out-${round}`), 'json')).flatMap((b) => b.rows);
      const diff = await firstDifference(path.join(root, `hand-out-${round}`), committed);
      if (diff) throw new Error(`outputs differ: ${diff}`);
      await rm(path.join(root, `hand-out-${round}`), { recursive: true, force: true });
      await rm(path.join(root, `weir-out-${round}`), { recursive: true, force: true });
    }

    const handRate = (total * 1000) / handMs;
    const weirRate = (total * 1000) / weirMs;
    const ratio = weirRate / handRate;
    return [
      { name: `stateless: input rows`, value: total, unit: 'rows', note: `${handRows} pass the filter` },
      { name: 'stateless: hand-written loop', value: handRate, unit: 'rows/s' },
      { name: `stateless: weir (${batches} batches)`, value: weirRate, unit: 'rows/s' },
      { name: 'stateless: weir / hand-written', value: ratio, unit: 'ratio', goal: '>= 0.5', ok: ratio >= 0.5 },
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
