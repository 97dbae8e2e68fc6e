/**
 * `npm run bench`: runs every `bench/*.bench.ts` module, prints one table, and writes
 * `bench/results/latest.json`. Add a benchmark by adding a file that exports `run()` (or `main()`,
 * or a default function) returning either `BenchResult[]` or a plain object of named results
 * (`{ ratio: 0.7, goalMet: true, … }`; numbers and booleans become rows, nested objects are
 * flattened with dots).
 *
 *   npm run bench                 # all
 *   npm run bench -- stateless    # only modules whose file name contains "stateless"
 */
import { readdir, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface BenchResult {
  /** What was measured, e.g. `stateless: weir rows/s`. */
  name: string;
  value: number;
  unit: string;
  /** Human goal, e.g. `>= 0.5`. */
  goal?: string;
  /** Whether the goal is met (undefined when there is no goal). */
  ok?: boolean;
  note?: string;
}

const here = import.meta.dirname;

async function main(): Promise<void> {
  const filter = process.argv[2];
  const benches = (await readdir(here)).filter((f) => f.endsWith('.bench.ts')).sort();
  const files = benches.filter((f) => !filter || f.includes(filter));
  if (files.length === 0) {
    // A typo must not look like a passing run that measured nothing.
    process.stderr.write(`no benchmark matches "${filter}"; there are: ${benches.map((f) => f.replace(/\.bench\.ts$/, '')).join(', ')}\n`);
    process.exit(2);
  }
  const all: (BenchResult & { module: string })[] = [];
  for (const f of files) {
    process.stderr.write(`running ${f}…\n`);
    const mod = (await import(pathToFileURL(path.join(here, f)).href)) as Record<string, unknown>;
    const fn = (mod.run ?? mod.main ?? mod.default) as (() => Promise<unknown>) | undefined;
    if (typeof fn !== 'function') throw new Error(`${f} exports no run(), main() or default function`);
    const t0 = performance.now();
    const results = normalize(await fn());
    process.stderr.write(`  ${f} took ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    for (const r of results) all.push({ module: f, ...r });
  }
  const rows = all.map((r) => [r.module, r.name, formatValue(r.value), r.unit, r.goal ?? '', r.ok === undefined ? '' : r.ok ? 'ok' : 'MISSED']);
  const head = ['module', 'measure', 'value', 'unit', 'goal', ''];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 2 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
  await mkdir(path.join(here, 'results'), { recursive: true });
  const machine = { node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memGiB: Math.round(os.totalmem() / 2 ** 30) };
  await writeFile(path.join(here, 'results', 'latest.json'), JSON.stringify({ at: new Date().toISOString(), machine, results: all }, null, 2) + '\n');
  process.stderr.write('wrote bench/results/latest.json\n');
}

/** Accepts BenchResult[] or a plain object of named results. */
function normalize(r: unknown, prefix = ''): BenchResult[] {
  if (Array.isArray(r)) return r as BenchResult[];
  const out: BenchResult[] = [];
  if (r && typeof r === 'object') {
    for (const [k, v] of Object.entries(r)) {
      const name = prefix ? `${prefix}.${k}` : k;
      if (typeof v === 'number') out.push({ name, value: v, unit: '' });
      else if (typeof v === 'boolean') out.push({ name, value: v ? 1 : 0, unit: 'bool', ok: v });
      else if (v && typeof v === 'object') out.push(...normalize(v, name));
    }
  }
  return out;
}

function formatValue(v: number): string {
  if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString('en-US');
  return v.toFixed(Math.abs(v) < 10 ? 3 : 1);
}

await main();
