/**
 * Parquet files sink against the JSON files sink: 1M rows of seven typed columns (long, string,
 * double, boolean, timestamp, decimal(10,2), date) through `FilesSink.addBatch` in batches of
 * 100,000, as the engine calls it (one file per batch, logged in `_weir_metadata`). Reports
 * rows/s and bytes written for JSON, Parquet snappy (the default) and Parquet zstd, and the
 * files source's read rate for JSON and Parquet over the same output. Each output is checked:
 * DuckDB counts the rows of the files `_weir_metadata` names, and must find 1M.
 *
 * Run: npm run bench -- parquet
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InMemoryCheckpointFileManager } from '../lib/engine/checkpoint/in-memory-checkpoint-file-manager';
import { LocalCheckpointFileManager } from '../lib/engine/checkpoint/local-checkpoint-file-manager';
import { ManualClock } from '../lib/engine/clock';
import { FileStreamSinkLog } from '../lib/engine/sinks/file-stream-sink-log';
import { FilesSink } from '../lib/engine/sinks/files-sink';
import { FilesSource } from '../lib/engine/sources/files-source';
import type { Row, Schema } from '../lib/engine/types';
import type { BenchResult } from './run';

const ROWS = 1_000_000;
const BATCH = 100_000;

const schema: Schema = [
  { name: 'id', type: 'long' },
  { name: 'name', type: 'string' },
  { name: 'amount', type: 'double' },
  { name: 'keep', type: 'boolean' },
  { name: 'ts', type: 'timestamp' },
  { name: 'price', type: 'decimal', precision: 10, scale: 2 },
  { name: 'day', type: 'date' },
];

function batchRows(b: number): Row[] {
  return Array.from({ length: BATCH }, (_, j) => {
    const i = b * BATCH + j;
    return { id: i, name: `customer-${i % 977}`, amount: (i % 10_000) / 100, keep: i % 3 !== 0, ts: 1_700_000_000_000 + i * 1000, price: BigInt(i % 1_000_000), day: 19_700 + (i % 365) };
  });
}

type Variant = { label: string; format: 'json' | 'parquet'; compression?: 'snappy' | 'zstd' };

async function write(dir: string, v: Variant): Promise<{ ms: number; bytes: number; files: string[] }> {
  const sink = new FilesSink({ path: dir, format: v.format, header: true, compression: v.compression }, new ManualClock(1));
  const ctx = { outputMode: 'append' as const, schema, queryId: 'bench', runId: 'bench-run' };
  let ms = 0;
  for (let b = 0; b < ROWS / BATCH; b++) {
    const rows = batchRows(b); // built outside the timing: the sink's cost alone
    const t = performance.now();
    await sink.addBatch(b, rows, ctx);
    ms += performance.now() - t;
  }
  const logged = await new FileStreamSinkLog(new LocalCheckpointFileManager(dir)).all();
  const entries = logged.flatMap((x) => x.entry.files);
  return { ms, bytes: entries.reduce((n, f) => n + f.size, 0), files: entries.map((f) => path.join(dir, f.path)) };
}

/** The files source reading `dir`'s data files in one batch (its log decides, as in a run). */
async function read(dir: string, format: 'json' | 'parquet'): Promise<{ ms: number; rows: number }> {
  const source = new FilesSource({ path: dir, format, header: true }, { name: 'src', schema, checkpoint: new InMemoryCheckpointFileManager(), metadataPath: 'sources/0', clock: new ManualClock() });
  await source.open();
  const t = performance.now();
  const end = await source.latestOffset(null);
  const got = await source.getBatch(null, end);
  const ms = performance.now() - t;
  if (got.badRecords.length) throw new Error(`${format}: ${got.badRecords[0].reason}`);
  return { ms, rows: got.rows.length };
}

export async function run(): Promise<BenchResult[]> {
  const root = await mkdtemp(path.join(tmpdir(), 'weir-bench-parquet-'));
  const db = await DuckDBInstance.create(':memory:');
  const duck = await db.connect();
  const out: BenchResult[] = [];
  try {
    const variants: Variant[] = [{ label: 'json', format: 'json' }, { label: 'parquet snappy', format: 'parquet', compression: 'snappy' }, { label: 'parquet zstd', format: 'parquet', compression: 'zstd' }];
    const rates: Record<string, number> = {};
    for (const v of variants) {
      const dir = path.join(root, v.label.replace(' ', '-'));
      const w = await write(dir, v);
      const list = w.files.map((f) => `'${f}'`).join(', ');
      const reader = v.format === 'json' ? `read_ndjson([${list}])` : `read_parquet([${list}])`;
      const counted = Number((await duck.runAndReadAll(`SELECT count(*) AS n FROM ${reader}`)).getRowObjectsJson()[0].n);
      rates[v.label] = (ROWS / w.ms) * 1000;
      out.push({ name: `${v.label} sink: rows/s`, value: Math.round(rates[v.label]), unit: 'rows/s' });
      out.push({ name: `${v.label} sink: bytes`, value: w.bytes, unit: 'bytes' });
      out.push({ name: `${v.label} sink: rows DuckDB reads back`, value: counted, unit: 'rows', goal: `= ${ROWS}`, ok: counted === ROWS });
      if (v.label !== 'parquet zstd') {
        const r = await read(dir, v.format);
        out.push({ name: `${v.label} source: rows/s`, value: Math.round((r.rows / r.ms) * 1000), unit: 'rows/s', goal: `${ROWS} rows`, ok: r.rows === ROWS });
      }
    }
    out.push({ name: 'parquet snappy sink vs json sink: rows/s ratio', value: Math.round((rates['parquet snappy'] / rates.json) * 100) / 100, unit: 'x' });
  } finally {
    duck.closeSync();
    db.closeSync();
    await rm(root, { recursive: true, force: true });
  }
  return out;
}
