/**
 * `weir`: run Weir jobs without the control plane, as spark-submit runs Spark in local mode.
 *
 *   weir version
 *   weir validate <job.json> [--json]
 *   weir run <job.json> [--crash-at <point> --crash-batch <N>]
 *   weir sink read <job.json>
 *   weir checkpoint inspect <dir>
 *   weir checkpoint export <dir> > file.tar
 *   weir checkpoint import <dir> < file.tar
 *   weir checkpoint convert-state --to <hdfs|lmdb> <dir>
 *   weir checkpoint repartition --to <M> <dir>
 *
 * Exit codes: 0 ok · 1 the run failed · 2 usage error or invalid job · 3 crashed on purpose at
 * --crash-at · 4 another runner owns the checkpoint (CONCURRENT_STREAM_LOG_UPDATE).
 * `run` prints one StreamingQueryProgress JSON line per batch on stdout; logs go to stderr.
 *
 * Paths: the CLI runs as its user, like spark-submit, so a job's paths are not confined, and
 * relative ones resolve against the working directory. With WEIR_FILES_ROOTS or
 * WEIR_CHECKPOINT_ROOT set it confines them as the control plane does (lib/engine/spec/path-roots.ts),
 * and the <dir> of every checkpoint command as a spec's checkpointLocation.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { EnvError, parseEnv } from '../lib/env';
import { ArchiveError, exportCheckpoint, importCheckpoint } from './checkpoint-archive';
import { stringifyRow } from '../lib/engine/json-text';
import { exactKeys, jsonWriter } from '../lib/engine/sinks/row-rendering';
import { coerceField, JsonLineParser, type ParseResult } from '../lib/engine/operators/record-parser';
import type { Row, Schema } from '../lib/engine/types';
import '../lib/connectors/index'; // registers the connectors' source, sink and checkpoint types
import {
  CRASH_POINTS,
  CrashPointError,
  ConcurrentStreamLogUpdateError,
  MicroBatchExecution,
  SystemClock,
  WeirError,
  withErrorClass,
  checkpointFileManagerFor,
  confineSpecPaths,
  convertStateProvider,
  formatContract,
  getSinkDefinition,
  inspectCheckpoint,
  isCrashPoint,
  readCommittedRows,
  repartitionState,
  RepartitionRefusedError,
  resolvePathField,
  validateJob,
  type CrashPlan,
  type PathRoots,
  type ValidateJobResult,
} from '../lib/engine/index';

export const EXIT = { ok: 0, failed: 1, usage: 2, crashed: 3, concurrent: 4 } as const;

const USAGE = `Usage:
  weir version                             print Weir's version and the Node it runs on
  weir validate <job.json> [--json]        check a job spec: errors, warnings, plan, output schema, contract
  weir run <job.json> [--crash-at <point> --crash-batch <N>]
                                           run the job; one progress JSON line per batch on stdout
                                           crash points: ${CRASH_POINTS.join(', ')}
  weir sink read <job.json>                print the sink's committed rows as JSON lines (through its batch log)
  weir checkpoint inspect <dir>            show offsets, commits and the pending batch of a checkpoint
  weir checkpoint export <dir> > file.tar  write the checkpoint (a directory or s3://…) as a tar with every file's SHA-256
  weir checkpoint import <dir> < file.tar  check every file of such a tar, then write it into the empty <dir> (or s3://…)
  weir checkpoint convert-state --to <hdfs|lmdb> <dir>
                                           move a copy's state to the other state store provider (then set stateStore.provider)
  weir checkpoint repartition --to <M> <dir>
                                           move a stopped job's state into M partitions (then set parallelism: M)

Exit codes: 0 ok, 1 run failed, 2 usage or invalid job, 3 crashed at --crash-at, 4 another runner owns the checkpoint.`;

class UsageError extends Error {}

/** A location the path roots refuse: exit 2 with the message, as validate and run refuse a spec's path. */
class PathRefusedError extends Error {}

/**
 * node:util's parseArgs, strict: an unknown flag, or a string flag without its value, is a usage
 * error (exit 2) naming it, instead of being skipped; `--flag value` and `--flag=value` both work.
 */
function parseCommandArgs<O extends NonNullable<Parameters<typeof parseArgs>[0]>['options']>(command: string, args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(`weir ${command}: ${(e as Error).message}`);
  }
}

function out(line: string): void {
  process.stdout.write(line + '\n');
}
function err(line: string): void {
  process.stderr.write(line + '\n');
}

async function loadJob(file: string | undefined): Promise<{ result: ValidateJobResult; text: string }> {
  if (!file) throw new UsageError('missing <job.json>');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
  const result = validateJob(text);
  const roots = cliRoots();
  if (!roots || !result.ok || !result.spec) return { result, text };
  const confined = confineSpecPaths(result.spec, roots);
  if (confined.errors.length) return { result: { ...result, ok: false, errors: confined.errors, spec: undefined, contract: undefined }, text };
  return { result: { ...result, spec: confined.spec }, text };
}

/** The roots the CLI keeps to: only those whose variable is set (none: unconfined). */
function cliRoots(): PathRoots | undefined {
  let e;
  try {
    e = parseEnv();
  } catch (x) {
    if (x instanceof EnvError) throw new UsageError(x.message);
    throw x;
  }
  const roots: PathRoots = {
    ...(e.WEIR_CHECKPOINT_ROOT ? { checkpointRoot: e.checkpointRoot } : {}),
    ...(e.WEIR_FILES_ROOTS ? { filesRoots: e.filesRoots } : {}),
  };
  return roots.checkpointRoot || roots.filesRoots ? roots : undefined;
}

/**
 * The checkpoint location `dir` of `weir checkpoint <command>`, checked against
 * WEIR_CHECKPOINT_ROOT by the same resolvePathField that checks a spec's checkpointLocation for
 * validate and run: relative to the root, `..` collapsed, symlinks followed, refused outside it.
 * Unconfined (no roots set): `dir` as given.
 */
function checkpointDir(command: string, dir: string | undefined): string {
  if (!dir) throw new UsageError('missing <dir>');
  const roots = cliRoots();
  if (!roots) return dir;
  const r = resolvePathField(`weir checkpoint ${command} <dir>`, dir, 'checkpoint', roots);
  if (!r.ok) throw new PathRefusedError(r.message);
  return r.location;
}

function printIssues(file: string, r: ValidateJobResult): void {
  for (const e of r.errors) {
    // SQL errors already end with their position; JSON spec errors carry it only as fields.
    const pos = e.line ? ` (line ${e.line}, column ${e.column})` : '';
    err(`error: ${file}: ${e.path}: ${withErrorClass(e.message, e.errorClass)}${e.message.endsWith(pos) ? '' : pos}`);
  }
  for (const w of r.warnings) err(`warning: ${file}: ${w.path}: ${w.message}`);
}

async function validate(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('validate', args, { json: { type: 'boolean' } });
  const json = values.json === true;
  const file = positionals[0];
  const { result } = await loadJob(file);
  if (json) {
    const { spec: _spec, ...rest } = result;
    out(JSON.stringify(rest, null, 2));
    return result.ok ? EXIT.ok : EXIT.usage;
  }
  printIssues(file!, result);
  if (!result.ok) return EXIT.usage;
  out(`${file}: valid`);
  out(`plan:\n${result.explain}`);
  out(`output schema: ${result.outputColumns!.map((f) => `${f.name}: ${f.type}`).join(', ')}`);
  for (const line of formatContract(result.contract!)) out(line);
  return EXIT.ok;
}

async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('run', args, { 'crash-at': { type: 'string' }, 'crash-batch': { type: 'string' } });
  const file = positionals[0];
  const point = values['crash-at'];
  const batch = values['crash-batch'];
  let crash: CrashPlan | undefined;
  if (point !== undefined || batch !== undefined) {
    if (point === undefined || batch === undefined) throw new UsageError('--crash-at and --crash-batch go together');
    if (!isCrashPoint(point)) throw new UsageError(`unknown crash point "${point}"; one of: ${CRASH_POINTS.join(', ')}`);
    if (!/^\d+$/.test(batch)) throw new UsageError(`--crash-batch must be a batch id (0, 1, …), got "${batch}"`);
    crash = { point, batchId: Number(batch) };
  }
  const { result } = await loadJob(file);
  printIssues(file!, result);
  if (!result.ok) return EXIT.usage;
  const q = new MicroBatchExecution({
    spec: result.spec!,
    clock: new SystemClock(),
    crash,
    onProgress: (p) => out(JSON.stringify(p)),
    log: (e) => {
      // The engine logs the error that ends the query and then throws it; it is printed once,
      // where it is caught below.
      if (e.level !== 'debug' && e.level !== 'error') err(`${e.level}: ${e.msg}`);
    },
  });
  // Once: a second signal while the batch finishes (Ctrl-C reaches a launcher and this process
  // both, and the launcher passes its own on) must not kill it half-way.
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    err('stopping: finishing the running batch…');
    void q.stop();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    await q.run();
    return EXIT.ok;
  } catch (e) {
    if (e instanceof CrashPointError) {
      err(`crashed on purpose at ${e.point} of batch ${e.batchId}; run again to recover from the checkpoint`);
      return EXIT.crashed;
    }
    if (e instanceof ConcurrentStreamLogUpdateError) {
      err(`error: ${e.message}`);
      return EXIT.concurrent;
    }
    if (e instanceof ArchiveError) {
      err(`error: ${e.message}`);
      return EXIT.failed;
    }
    if (e instanceof WeirError) {
      err(`error: ${e.code}: ${withErrorClass(e.message, e.errorClass)}`);
      return EXIT.failed;
    }
    throw e;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

/**
 * A row read back from a sink, printed as the sinks write rows: the query's output columns in
 * Spark's JSON rendering (a DOUBLE 3.0 as `3.0`, Java's Double.toString), where JSON.stringify
 * would print `3`. A row of other keys (a Kafka record's topic, partition, offset) as it is.
 * `typed` gives the row's values as the engine holds them; a row whose values do not read as the
 * query's output (a file edited by hand) is printed as read, and stderr says which value and why.
 */
function sinkReadLine(r: Row, schema: Schema, typed: (r: Row) => ParseResult): string {
  if (!exactKeys(r, schema.map((f) => f.name))) return stringifyRow(r);
  const t = typed(r);
  if (!t.ok) {
    err(`warning: a row does not hold the query's output (${t.reason}); printed as read`);
    return stringifyRow(r);
  }
  const w = jsonWriter(schema);
  return w.stringify(w.row(t.row));
}

/**
 * How a committed file's rows read as the engine holds them. A JSON (or Parquet, given as the
 * JSON sink writes it) row reads as the JSON source reads a record: a timestamp's text its
 * instant, a DECIMAL's number its unscaled digits at the type's scale, nested ones too. A CSV row
 * comes typed but for its timestamps, which readCommittedRows keeps as the text written.
 */
function committedRowTyping(format: 'json' | 'csv' | 'parquet', schema: Schema): (r: Row) => ParseResult {
  if (format !== 'csv') {
    const parser = new JsonLineParser(schema);
    return (r) => parser.toRow(r);
  }
  const timestamps = schema.filter((f) => f.type === 'timestamp');
  return (r) => {
    const row = { ...r };
    for (const f of timestamps) {
      const c = coerceField(r[f.name], f, true);
      if (!c.ok) return { ok: false, reason: `field "${f.name}": ${c.reason}` };
      row[f.name] = c.value;
    }
    return { ok: true, row };
  };
}

async function sinkRead(args: string[]): Promise<number> {
  const file = parseCommandArgs('sink read', args, {}).positionals[0];
  const { result } = await loadJob(file);
  printIssues(file!, result);
  if (!result.ok) return EXIT.usage;
  const sink = result.spec!.sink;
  const schema = result.outputSchema ?? [];
  const readRows = getSinkDefinition(sink.type)?.readRows;
  if (sink.type !== 'files' && readRows) {
    // readRows gives the values as the engine holds them (its contract), or a row as stored
    // when they do not read, which it warns of: that one is printed as stored.
    const asStored = new Set<Row>();
    const rows = await readRows(sink.options as never, result.outputSchema, (m, row) => {
      err(`warning: ${m}`);
      asStored.add(row);
    });
    for (const r of rows) out(asStored.has(r) ? stringifyRow(r) : sinkReadLine(r, schema, (row) => ({ ok: true, row })));
    err(`${rows.length} rows in the ${sink.type} sink's destination`);
    return EXIT.ok;
  }
  if (sink.type !== 'files') {
    throw new UsageError(`weir sink read supports the files sink (it reads through _weir_metadata); this job's sink is "${sink.type}"`);
  }
  const o = sink.options as { path: string; format: 'json' | 'csv' | 'parquet'; header: boolean };
  const batches = await readCommittedRows(o.path, o.format, { header: o.header, schema: result.outputSchema });
  const typed = committedRowTyping(o.format, schema);
  for (const b of batches) for (const r of b.rows) out(sinkReadLine(r, schema, typed));
  err(`${batches.reduce((n, b) => n + b.rows.length, 0)} rows from ${batches.length} committed batches`);
  return EXIT.ok;
}

async function checkpointInspect(args: string[]): Promise<number> {
  const dir = checkpointDir('inspect', parseCommandArgs('checkpoint inspect', args, {}).positionals[0]);
  const info = await inspectCheckpoint(checkpointFileManagerFor(dir));
  if (info.id === null && info.offsets.length === 0 && info.problems.length === 0) {
    err(`error: ${dir} is not a Weir checkpoint (no metadata, no offsets/)`);
    return EXIT.usage;
  }
  out(JSON.stringify(info, null, 2));
  for (const p of info.problems) err(`problem: ${p.path} is ${p.missing ? 'missing' : 'corrupt'}: ${p.reason}`);
  if (info.problems.length > 0) {
    err('a run refuses this checkpoint (CORRUPT_CHECKPOINT): restore the files from a backup of the checkpoint, or start on a new checkpoint location (which reprocesses from the source start)');
  }
  err(
    info.pendingBatch === null
      ? `all ${info.commits.length} logged batches are committed; the next run starts at batch ${(info.latestOffsetsBatch ?? -1) + 1}`
      : `batch ${info.pendingBatch} is pending (offsets written, no commit): the next run re-runs it over the recorded range`,
  );
  return EXIT.ok;
}

async function checkpointExport(args: string[]): Promise<number> {
  const dir = checkpointDir('export', parseCommandArgs('checkpoint export', args, {}).positionals[0]);
  if (process.stdout.isTTY) throw new UsageError('weir checkpoint export writes a tar to stdout: redirect it to a file (> checkpoint.tar)');
  const write = (chunk: Buffer) => new Promise<void>((resolve, reject) => process.stdout.write(chunk, (e) => (e ? reject(e) : resolve())));
  const n = await exportCheckpoint(checkpointFileManagerFor(dir), write);
  err(`exported ${n} checkpoint files from ${checkpointFileManagerFor(dir).description}, each with its SHA-256`);
  return EXIT.ok;
}

async function checkpointImport(args: string[]): Promise<number> {
  const dir = checkpointDir('import', parseCommandArgs('checkpoint import', args, {}).positionals[0]);
  if (process.stdin.isTTY) throw new UsageError('weir checkpoint import reads a tar from stdin: weir checkpoint import <dir> < checkpoint.tar');
  const fm = checkpointFileManagerFor(dir);
  // Streamed: read up to the end-of-archive block, never the whole of stdin at once.
  const n = await importCheckpoint(fm, process.stdin);
  err(`imported ${n} checkpoint files into ${fm.description}; every SHA-256 matched`);
  return EXIT.ok;
}

async function checkpointConvertState(args: string[]): Promise<number> {
  const parsed = parseCommandArgs('checkpoint convert-state', args, { to: { type: 'string' } });
  const to = parsed.values.to;
  if (to !== 'hdfs' && to !== 'lmdb') throw new UsageError('weir checkpoint convert-state needs --to hdfs or --to lmdb');
  const fm = checkpointFileManagerFor(checkpointDir('convert-state', parsed.positionals[0]));
  const r = await convertStateProvider(fm, to);
  err(`the state of ${r.operators.length} stateful operator(s) in ${fm.description} belongs to the "${to}" provider now (${r.files} change files rewritten); ` +
    `run it as a job with stateStore.provider "${to}"`);
  return EXIT.ok;
}

async function checkpointRepartition(args: string[]): Promise<number> {
  const parsed = parseCommandArgs('checkpoint repartition', args, { to: { type: 'string' } });
  const to = parsed.values.to;
  if (to === undefined || !/^\d+$/.test(to)) throw new UsageError(`weir checkpoint repartition needs --to <M>, a positive whole number of partitions${to === undefined ? '' : `, got "${to}"`}`);
  const fm = checkpointFileManagerFor(checkpointDir('repartition', parsed.positionals[0]));
  try {
    const r = await repartitionState(fm, Number(to));
    const ops = r.operators.map((o) => `operator ${o.operatorId} (${o.operatorName}${o.partitioned ? `, ${o.rows} rows` : ', one partition whatever the parallelism'})`).join(', ') || 'no stateful operators';
    err(r.batchId === null
      ? `${fm.description} already keeps its state in ${r.to} partitions (${ops}); nothing changed`
      : `moved the state of ${ops} from ${r.from} to ${r.to} partitions as batch ${r.batchId} (no new data); start the job with parallelism ${r.to}`);
    return EXIT.ok;
  } catch (e) {
    if (!(e instanceof RepartitionRefusedError)) throw e;
    err(`error: ${e.message}`);
    return EXIT.usage;
  }
}

async function packageVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, sub, ...rest] = argv;
  try {
    if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
      out(USAGE);
      return cmd ? EXIT.ok : EXIT.usage;
    }
    if (cmd === 'version' || cmd === '--version') {
      out(`weir ${await packageVersion()} on Node ${process.version}`);
      return EXIT.ok;
    }
    if (cmd === 'validate') return await validate([sub, ...rest].filter((x) => x !== undefined));
    if (cmd === 'run') return await run([sub, ...rest].filter((x) => x !== undefined));
    if (cmd === 'sink' && sub === 'read') return await sinkRead(rest);
    if (cmd === 'checkpoint' && sub === 'inspect') return await checkpointInspect(rest);
    if (cmd === 'checkpoint' && sub === 'export') return await checkpointExport(rest);
    if (cmd === 'checkpoint' && sub === 'import') return await checkpointImport(rest);
    if (cmd === 'checkpoint' && sub === 'convert-state') return await checkpointConvertState(rest);
    if (cmd === 'checkpoint' && sub === 'repartition') return await checkpointRepartition(rest);
    throw new UsageError(`unknown command "${[cmd, sub].filter(Boolean).join(' ')}"`);
  } catch (e) {
    if (e instanceof UsageError) {
      err(`error: ${e.message}\n\n${USAGE}`);
      return EXIT.usage;
    }
    if (e instanceof PathRefusedError) {
      err(`error: ${e.message}`);
      return EXIT.usage;
    }
    if (e instanceof ArchiveError) {
      err(`error: ${e.message}`);
      return EXIT.failed;
    }
    if (e instanceof WeirError) {
      err(`error: ${e.code}: ${e.message}`);
      return EXIT.failed;
    }
    err(`error: ${(e as Error).stack ?? String(e)}`);
    return EXIT.failed;
  }
}

process.exitCode = await main(process.argv.slice(2));
