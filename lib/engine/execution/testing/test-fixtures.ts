/**
 * Fixtures shared by the engine's tests: a seeded row generator, input-file writers for the
 * files source (atomic: hidden temp name, then rename), and harnesses for StreamTest scripts.
 */
import { mkdtemp, rename, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ManualClock } from '../../clock';
import { parseJobSpec, type JobSpec } from '../../spec/job-spec';
import { readCommittedRows } from '../../sinks/files-sink';
import { encodeRows } from '../../sinks/files-sink';
import { encodeParquet } from '../../parquet/parquet-writer';
import type { Row, Schema } from '../../types';
import type { StreamHarness } from './stream-test';

/** mulberry32: a small seeded PRNG so a failing test replays the same data. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const EVENT_SCHEMA: Schema = [
  { name: 'id', type: 'long' },
  { name: 'name', type: 'string' },
  { name: 'amount', type: 'double' },
  { name: 'keep', type: 'boolean' },
  { name: 'ts', type: 'timestamp' },
];

const NAMES = ['ann', 'bob', 'c,d', 'say "hi"', 'Zoë', ' pad ', 'x'];

export function eventGenerator(seed: number) {
  const rnd = seededRandom(seed);
  let nextId = 0;
  return (n: number): Row[] =>
    Array.from({ length: n }, () => ({
      id: nextId++,
      name: NAMES[Math.floor(rnd() * NAMES.length)],
      amount: Math.round(rnd() * 2000) / 100,
      keep: rnd() < 0.7,
      ts: Date.UTC(2024, 0, 1) + Math.floor(rnd() * 86_400_000),
    }));
}

export const EVENT_SQL = 'SELECT id, upper(name) AS name_upper, amount * 2 AS doubled, ts FROM events WHERE keep AND amount >= 5';

/** The hand-written reference for EVENT_SQL, as a sink reader returns it (timestamps as ISO strings). */
export function expectedEvents(rows: Row[]): Row[] {
  return rows
    .filter((r) => r.keep === true && (r.amount as number) >= 5)
    .map((r) => ({ id: r.id, name_upper: (r.name as string).toUpperCase(), doubled: (r.amount as number) * 2, ts: new Date(r.ts as number).toISOString() }));
}

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), `weir-${prefix}-`));
}

/** Writes rows as a new input file, atomically (temp name then rename), named in arrival order. */
export async function writeInputFile(dir: string, seq: number, rows: Row[], format: 'json' | 'csv' | 'parquet'): Promise<string> {
  await mkdir(dir, { recursive: true });
  const name = `input-${String(seq).padStart(5, '0')}.${format}`;
  const tmp = path.join(dir, `.${name}.tmp`);
  await writeFile(tmp, format === 'parquet' ? await encodeParquet(rows, EVENT_SCHEMA, 'snappy') : encodeRows(rows, EVENT_SCHEMA, format, true));
  await rename(tmp, path.join(dir, name));
  return name;
}

export function mustParse(spec: unknown): JobSpec {
  const r = parseJobSpec(spec);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.spec;
}

export interface FilesJob {
  root: string;
  input: string;
  output: string;
  checkpoint: string;
  spec: JobSpec;
  harness: StreamHarness;
}

/** files source → EVENT_SQL → files sink, in `format`, under a fresh temp dir. */
export async function filesJob(format: 'json' | 'csv' | 'parquet', extra: { source?: Record<string, unknown>; sourceOptions?: Record<string, unknown>; spec?: Record<string, unknown> } = {}): Promise<FilesJob> {
  const root = await tempDir(`files-${format}`);
  const input = path.join(root, 'in');
  const output = path.join(root, 'out');
  const checkpoint = path.join(root, 'checkpoint');
  await mkdir(input, { recursive: true });
  const spec = mustParse({
    name: `files-${format}`,
    source: { name: 'events', type: 'files', options: { path: input, format, ...extra.sourceOptions }, schema: EVENT_SCHEMA, ...extra.source },
    sql: EVENT_SQL,
    sink: { type: 'files', options: { path: output, format } },
    outputMode: 'append',
    trigger: { type: 'available-now' },
    checkpointLocation: checkpoint,
    ...extra.spec,
  });
  let seq = 0;
  const outSchema: Schema = [
    { name: 'id', type: 'long' },
    { name: 'name_upper', type: 'string' },
    { name: 'doubled', type: 'double' },
    { name: 'ts', type: 'timestamp' },
  ];
  const harness: StreamHarness = {
    spec,
    clock: new ManualClock(Date.UTC(2024, 5, 1)),
    addData: async (rows) => void (await writeInputFile(input, seq++, rows, format)),
    readAnswer: async () => (await readCommittedRows(output, format, { schema: outSchema })).flatMap((b) => b.rows),
    expected: expectedEvents,
  };
  return { root, input, output, checkpoint, spec, harness };
}
