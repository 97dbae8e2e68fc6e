/**
 * The real CLI, spawned as a user would run it (`node bin/weir.js …`): exit codes, progress
 * lines, crash and recovery, reading the sink through its batch log, inspecting a checkpoint.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_SCHEMA, EVENT_SQL, eventGenerator, expectedEvents, writeInputFile } from '../lib/engine/execution/testing/test-fixtures';
import type { Row } from '../lib/engine/types';

const run = promisify(execFile);
const WEIR = path.resolve(import.meta.dirname, 'weir.js');

/** Runs the CLI unconfined (no roots set), unless `env` sets them. */
async function weir(args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [WEIR, ...args], { cwd, timeout: 180_000, env: { ...process.env, WEIR_FILES_ROOTS: '', WEIR_CHECKPOINT_ROOT: '', ...env } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

let dir: string;
const added: Row[] = [];
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'weir-cli-'));
  await mkdir(path.join(dir, 'in'));
  const gen = eventGenerator(99);
  for (let i = 0; i < 3; i++) {
    const rows = gen(10);
    added.push(...rows);
    await writeInputFile(path.join(dir, 'in'), i, rows, 'json');
  }
  const job = {
    name: 'cli-job',
    source: { name: 'events', type: 'files', options: { path: 'in', format: 'json', maxFilesPerTrigger: 1 }, schema: EVENT_SCHEMA },
    sql: EVENT_SQL,
    sink: { type: 'files', options: { path: 'out', format: 'csv' } },
    trigger: { type: 'available-now' },
    checkpointLocation: 'cp',
  };
  await writeFile(path.join(dir, 'job.json'), JSON.stringify(job, null, 2));
  await writeFile(
    path.join(dir, 'bad.json'),
    JSON.stringify({ ...job, source: { ...job.source, options: { format: 'xml' } }, sql: 'SELECT id,\n  count(*) FROM events GROUP BY id', trigger: { type: 'processing-time', interval: 'soon' } }, null, 2),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('weir CLI', { timeout: 420_000 }, () => {
  it("validates Spark SQL and prints Spark's error class with a rejection", async () => {
    const job = JSON.parse(await readFile(path.join(dir, 'job.json'), 'utf8'));
    const spark = "WITH e AS (SELECT CAST(id AS LONG) AS id, r'x\\d' AS raw, 2L AS two FROM events WHERE name RLIKE '^[a-z]') SELECT id, two FROM e";
    await writeFile(path.join(dir, 'spark.json'), JSON.stringify({ ...job, sql: spark }));
    const ok = await weir(['validate', 'spark.json'], dir);
    expect(ok.stderr).not.toContain('error:');
    expect(ok.code).toBe(0);
    await writeFile(path.join(dir, 'mode.json'), JSON.stringify({ ...job, outputMode: 'update' }));
    const mode = await weir(['validate', 'mode.json'], dir);
    expect(mode.code).toBe(2);
    expect(mode.stderr).toContain('error: mode.json: outputMode: [STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE] Invalid streaming output mode: update. This output mode is not supported in Data Source files.');
    // A message that starts with its class (a syntax error's, as Spark's) shows it once.
    await writeFile(path.join(dir, 'syntax.json'), JSON.stringify({ ...job, sql: 'SELECT id FROM events GROUP BY id AS x' }));
    const syntax = await weir(['validate', 'syntax.json'], dir);
    expect(syntax.stderr).toContain("error: syntax.json: sql: [PARSE_SYNTAX_ERROR] Syntax error at or near 'AS'.");
    expect(syntax.stderr).not.toContain('[PARSE_SYNTAX_ERROR] [PARSE_SYNTAX_ERROR]');
  });

  it('is unconfined unless WEIR_FILES_ROOTS / WEIR_CHECKPOINT_ROOT are set; then it keeps to them as the API does', async () => {
    const elsewhere = await mkdtemp(path.join(tmpdir(), 'weir-cli-root-'));
    try {
      const job = JSON.parse(await readFile(path.join(dir, 'job.json'), 'utf8'));
      await writeFile(path.join(dir, 'abs.json'), JSON.stringify({ ...job, sink: { type: 'files', options: { path: '/root/out' } }, checkpointLocation: '/etc/weir-cp' }));
      expect((await weir(['validate', 'abs.json'], dir)).code).toBe(0);
      const files = await weir(['validate', 'abs.json'], dir, { WEIR_FILES_ROOTS: elsewhere });
      expect(files.code).toBe(2);
      expect(files.stderr).toContain('sink.options.path');
      expect(files.stderr).toContain(`WEIR_FILES_ROOTS (${elsewhere})`);
      expect(files.stderr).not.toContain('error: abs.json: checkpointLocation');
      const cp = await weir(['validate', 'abs.json'], dir, { WEIR_CHECKPOINT_ROOT: elsewhere });
      expect(cp.code).toBe(2);
      expect(cp.stderr).toContain('error: abs.json: checkpointLocation');
      expect(cp.stderr).not.toContain('sink.options.path');
      // Relative paths land in the first root: inside it, so accepted.
      expect((await weir(['validate', 'job.json'], dir, { WEIR_FILES_ROOTS: elsewhere, WEIR_CHECKPOINT_ROOT: elsewhere })).code).toBe(0);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('validate: 0 and the plan for a good job; 2 and every error with its field path for a bad one', async () => {
    const ok = await weir(['validate', 'job.json'], dir);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('job.json: valid');
    expect(ok.stdout).toMatch(/Filter/);
    expect(ok.stdout).toContain('output schema: id: bigint, name_upper: string, doubled: double, ts: timestamp');
    const bad = await weir(['validate', 'bad.json'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/source\.options\.path: /);
    expect(bad.stderr).toMatch(/source\.options\.format: /);
    expect(bad.stderr).toMatch(/trigger\.interval: expected a duration/);
    const json = await weir(['validate', 'bad.json', '--json'], dir);
    expect(json.code).toBe(2);
    const parsed = JSON.parse(json.stdout);
    expect(parsed.ok).toBe(false);
    expect(parsed.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(['source.options.path', 'source.options.format', 'trigger.interval']));
  });

  it('run → crash at after-sink of batch 1 (exit 3) → inspect shows it pending → run recovers → sink read has every row once', async () => {
    const crashed = await weir(['run', 'job.json', '--crash-at', 'after-sink', '--crash-batch', '1'], dir);
    expect(crashed.code).toBe(3);
    expect(crashed.stderr).toMatch(/crashed on purpose at after-sink of batch 1/);
    const progress = crashed.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(progress.map((p) => p.batchId)).toEqual([0]);
    expect(progress[0].numInputRows).toBe(10);

    const inspect = await weir(['checkpoint', 'inspect', 'cp'], dir);
    expect(inspect.code).toBe(0);
    const info = JSON.parse(inspect.stdout);
    expect(info.pendingBatch).toBe(1);
    expect(info.commits.map((c: { batchId: number }) => c.batchId)).toEqual([0]);
    expect(info.id).toBe(progress[0].id);

    const again = await weir(['run', 'job.json'], dir);
    expect(again.code).toBe(0);
    expect(again.stdout.trim().split('\n').map((l) => JSON.parse(l).batchId)).toEqual([1, 2]);

    const read = await weir(['sink', 'read', 'job.json'], dir);
    expect(read.code).toBe(0);
    const rows = read.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const want = expectedEvents(added);
    expect(rows.length).toBe(want.length);
    expect(rows).toEqual(expect.arrayContaining(want));
    expect(read.stderr).toContain(`${want.length} rows from 3 committed batches`);
  });

  /**
   * Runs job.json's source through `sql` into a JSON files sink of its own (`out-<name>`, with its
   * own checkpoint), then reads the sink back with weir sink read: its lines, one per input row.
   */
  async function runAndRead(name: string, sql: string): Promise<string[]> {
    const job = JSON.parse(await readFile(path.join(dir, 'job.json'), 'utf8'));
    await writeFile(path.join(dir, `${name}.json`), JSON.stringify({ ...job, sql, sink: { type: 'files', options: { path: `out-${name}`, format: 'json' } }, checkpointLocation: `cp-${name}` }));
    expect((await weir(['run', `${name}.json`], dir)).code).toBe(0);
    const read = await weir(['sink', 'read', `${name}.json`], dir);
    expect(read.code).toBe(0);
    expect(read.stderr).not.toContain('does not hold');
    const lines = read.stdout.trim().split('\n');
    expect(lines.length).toBe(added.length);
    return lines;
  }

  it("sink read prints a DOUBLE as Spark writes it (Java's Double.toString: 3.0, not 3), a DECIMAL with its scale, a struct's date and timestamp", async () => {
    const lines = await runAndRead('doubles', "SELECT id, CAST(3 AS DOUBLE) AS three, 1e21D AS big, 1.10BD AS price, named_struct('d', DATE '2026-01-02', 't', TIMESTAMP '2026-01-02 03:04:05') AS st FROM events");
    for (const l of lines) expect(l).toMatch(/^\{"id":\d+,"three":3\.0,"big":1\.0E21,"price":1\.10,"st":\{"d":"2026-01-02","t":"2026-01-02T03:04:05\.000Z"\}\}$/);
  });

  it("sink read prints a window as the JSON sink writes it, and says which value of a row edited by hand does not read", async () => {
    const lines = await runAndRead('windows', "SELECT id, window(ts, '10 minutes') AS w, ts FROM events");
    for (const l of lines) expect(l).toMatch(/^\{"id":\d+,"w":\{"start":"[-\d]+T[:\d]+\.000Z","end":"[-\d]+T[:\d]+\.000Z"\},"ts":"[-\d]+T[:\d.]+Z"\}$/);

    // A value that is not a timestamp is printed as read, never silently: stderr names it.
    const part = (await readdir(path.join(dir, 'out-windows'))).find((f) => f.endsWith('.json'))!;
    const text = await readFile(path.join(dir, 'out-windows', part), 'utf8');
    await writeFile(path.join(dir, 'out-windows', part), text.replace(/"ts":"[^"]+"/, '"ts":"soon"'));
    const edited = await weir(['sink', 'read', 'windows.json'], dir);
    expect(edited.code).toBe(0);
    expect(edited.stdout.split('\n').filter((l) => l.endsWith('"ts":"soon"}'))).toHaveLength(1);
    expect(edited.stderr).toContain(`warning: a row does not hold the query's output (field "ts": expected a timestamp (ISO-8601 or epoch ms), got "soon"); printed as read`);
  });

  it('run on a checkpoint whose metadata was deleted: exit 1, CORRUPT_CHECKPOINT naming the file, nothing written; inspect names the problem', async () => {
    const d = await mkdtemp(path.join(tmpdir(), 'weir-cli-meta-'));
    try {
      await mkdir(path.join(d, 'in'));
      await writeInputFile(path.join(d, 'in'), 0, eventGenerator(7)(10), 'json');
      const job = JSON.parse(await readFile(path.join(dir, 'job.json'), 'utf8'));
      await writeFile(path.join(d, 'job.json'), JSON.stringify(job));
      expect((await weir(['run', 'job.json'], d)).code).toBe(0);
      await rm(path.join(d, 'cp', 'metadata'));
      const before = (await readdir(path.join(d, 'cp'), { recursive: true })).sort();

      const failed = await weir(['run', 'job.json'], d);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain(`error: CORRUPT_CHECKPOINT: Checkpoint file file://${path.join(d, 'cp')}/metadata is missing`);
      expect(failed.stderr).toMatch(/restore it from a backup of the checkpoint, or start the query on a new checkpoint location/);
      expect((await readdir(path.join(d, 'cp'), { recursive: true })).sort()).toEqual(before);

      const inspect = await weir(['checkpoint', 'inspect', 'cp'], d);
      expect(inspect.code).toBe(0);
      expect(JSON.parse(inspect.stdout).problems).toEqual([expect.objectContaining({ path: 'metadata', missing: true })]);
      expect(inspect.stderr).toMatch(/problem: metadata is missing: the checkpoint ran batches/);
    } finally {
      await rm(d, { recursive: true, force: true });
    }
  });

  it('exits 2 on usage errors and 1 with the file and line on a bad record', async () => {
    expect((await weir([], dir)).code).toBe(2);
    expect((await weir(['frobnicate'], dir)).code).toBe(2);
    const badPoint = await weir(['run', 'job.json', '--crash-at', 'sometime', '--crash-batch', '1'], dir);
    expect(badPoint.code).toBe(2);
    expect(badPoint.stderr).toMatch(/unknown crash point "sometime"/);
    // Parsed by node:util's parseArgs, strictly: a flag without its value, or an unknown flag, is a
    // usage error naming it; --flag=value is read as --flag value.
    const noValue = await weir(['run', 'job.json', '--crash-batch', '1', '--crash-at'], dir);
    expect(noValue.code).toBe(2);
    expect(noValue.stderr).toMatch(/weir run: .*--crash-at/);
    const unknown = await weir(['validate', 'job.json', '--jsn'], dir);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown option '--jsn'/);
    const alone = await weir(['run', 'job.json', '--crash-at=after-sink'], dir);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/--crash-at and --crash-batch go together/);
    const badBatch = await weir(['run', 'job.json', '--crash-at=after-sink', '--crash-batch=one'], dir);
    expect(badBatch.code).toBe(2);
    expect(badBatch.stderr).toMatch(/--crash-batch must be a batch id \(0, 1, …\), got "one"/);
    expect((await weir(['checkpoint', 'inspect', 'in'], dir)).code).toBe(2);

    await writeFile(path.join(dir, 'in', 'input-00009.json'), '{"id":1,"name":"a","amount":1,"keep":true,"ts":0}\nnot json\n');
    const failed = await weir(['run', 'job.json'], dir);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/BAD_RECORD: Bad record in .*input-00009\.json line 2: malformed JSON/);
    // The error that ends the run is printed once, not once as a log line and again as the exit.
    expect(failed.stderr.match(/malformed JSON/g)).toHaveLength(1);
  });

  it('validate prints a SQL error with its position once', async () => {
    const job = JSON.parse(await import('node:fs/promises').then((fs) => fs.readFile(path.join(dir, 'job.json'), 'utf8')));
    await writeFile(path.join(dir, 'badsql.json'), JSON.stringify({ ...job, sql: 'SELECT id FROM events WHERE id >' }));
    const bad = await weir(['validate', 'badsql.json'], dir);
    expect(bad.code).toBe(2);
    const line = bad.stderr.split('\n').find((l) => l.includes('sql:'));
    expect(line).toBeDefined();
    expect(line!.match(/\(line \d+, column \d+\)/g)).toHaveLength(1);
  });

  /**
   * `weir run` of a processing-time job over its own input (`name`), started by `node`, sent
   * SIGINT once its first progress line is out: its exit code, and the checkpoint afterwards.
   */
  async function runThenSigint(node: string, name: string): Promise<{ code: number | null; firstBatchId: number; pendingBatch: unknown; latestCommittedBatch: unknown }> {
    const job = JSON.parse(await import('node:fs/promises').then((fs) => fs.readFile(path.join(dir, 'job.json'), 'utf8')));
    await mkdir(path.join(dir, `in-${name}`));
    await writeInputFile(path.join(dir, `in-${name}`), 0, eventGenerator(5)(4), 'json');
    const spec = { ...job, source: { ...job.source, options: { path: `in-${name}`, format: 'json' } }, sink: { type: 'files', options: { path: `out-${name}` } }, trigger: { type: 'processing-time', interval: '1 second' }, checkpointLocation: `cp-${name}` };
    await writeFile(path.join(dir, `${name}.json`), JSON.stringify(spec));
    const child = spawn(node, [WEIR, 'run', `${name}.json`], { cwd: dir });
    let stdout = '';
    const firstLine = new Promise<void>((resolve) => child.stdout.on('data', (d) => ((stdout += d), stdout.includes('\n') && resolve())));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await firstLine;
    child.kill('SIGINT');
    const code = await exited;
    const info = JSON.parse((await weir(['checkpoint', 'inspect', `cp-${name}`], dir)).stdout);
    return { code, firstBatchId: JSON.parse(stdout.split('\n')[0]).batchId, pendingBatch: info.pendingBatch, latestCommittedBatch: info.latestCommittedBatch };
  }

  it('run with a processing-time trigger stops gracefully on SIGINT: the batch commits, exit 0', async () => {
    expect(await runThenSigint(process.execPath, 'loop')).toEqual({ code: 0, firstBatchId: 0, pendingBatch: null, latestCommittedBatch: 0 });
  });

  it("started by the machine's older Node, re-runs itself under the project's Node 24 with its arguments, streams, exit code and signals", async () => {
    // /usr/bin/node is the machine's own (Node 20 here); `npm ci` put Node 24 into node_modules.
    const system = '/usr/bin/node';
    const version = await run(system, [WEIR, 'version'], { cwd: dir });
    expect(version.stdout.trim()).toMatch(/^weir \d+\.\d+\.\d+ on Node v24\./);
    const bad = await run(system, [WEIR, 'bogus'], { cwd: dir }).catch((e: { code: number; stderr: string }) => e);
    expect((bad as { code: number }).code).toBe(2);
    expect((bad as { stderr: string }).stderr).toMatch(/unknown command "bogus"/);
    // SIGINT sent to the launcher alone reaches the run, which finishes its batch and exits 0.
    expect(await runThenSigint(system, 'launched')).toMatchObject({ code: 0, pendingBatch: null });
  });
});

describe('weir checkpoint repartition', { timeout: 420_000 }, () => {
  /** A job deduplicating on `name` over files read one per batch, with its own checkpoint. */
  async function dedupJob(at: string, name: string, parallelism: number, provider: 'hdfs' | 'lmdb'): Promise<void> {
    const job = {
      name,
      source: { name: 'events', type: 'files', options: { path: 'in', format: 'json', maxFilesPerTrigger: 1 }, schema: EVENT_SCHEMA },
      sql: 'SELECT id, name FROM events',
      dedup: { keys: ['name'] },
      sink: { type: 'files', options: { path: `out-${name}`, format: 'json' } },
      trigger: { type: 'available-now' },
      checkpointLocation: `cp-${name}`,
      parallelism,
      stateStore: { provider },
    };
    await writeFile(path.join(at, `${name}-${parallelism}.json`), JSON.stringify(job));
  }

  it.each(['hdfs', 'lmdb'] as const)('moves a stopped job\'s state from 2 to 3 and to 1 partitions; the restarted job writes what an unbroken parallelism-1 run writes (%s)', async (provider) => {
    const at = await mkdtemp(path.join(tmpdir(), 'weir-cli-repartition-'));
    try {
      const gen = eventGenerator(7);
      const files = [gen(12), gen(12), gen(12), gen(12)];
      for (const [i, rows] of files.slice(0, 2).entries()) await writeInputFile(path.join(at, 'in'), i, rows, 'json');
      const jobs = { one: `${provider}-one`, three: `${provider}-three`, single: `${provider}-single` };
      await dedupJob(at, jobs.one, 1, provider);
      for (const name of [jobs.three, jobs.single]) {
        await dedupJob(at, name, 2, provider);
        expect((await weir(['run', `${name}-2.json`], at)).code).toBe(0);
      }
      expect((await weir(['run', `${jobs.one}-1.json`], at)).code).toBe(0);

      const three = await weir(['checkpoint', 'repartition', '--to', '3', `cp-${jobs.three}`], at);
      expect(three.stderr).toMatch(/moved the state of operator 0 \(dedupe, \d+ rows\) from 2 to 3 partitions as batch 2 \(no new data\); start the job with parallelism 3/);
      expect(three.code).toBe(0);
      expect((await weir(['checkpoint', 'repartition', '--to', '1', `cp-${jobs.single}`], at)).code).toBe(0);
      const again = await weir(['checkpoint', 'repartition', '--to', '1', `cp-${jobs.single}`], at);
      expect(again.stderr).toMatch(/already keeps its state in 1 partitions/);

      for (const [i, rows] of files.slice(2).entries()) await writeInputFile(path.join(at, 'in'), i + 2, rows, 'json');
      await dedupJob(at, jobs.three, 3, provider);
      await dedupJob(at, jobs.single, 1, provider);
      for (const file of [`${jobs.one}-1.json`, `${jobs.three}-3.json`, `${jobs.single}-1.json`]) {
        const r = await weir(['run', file], at);
        expect(r.stderr).not.toMatch(/is ignored|^error:/m);
        expect(r.code).toBe(0);
      }
      const read = async (file: string) => (await weir(['sink', 'read', file], at)).stdout.trim().split('\n').sort();
      const want = await read(`${jobs.one}-1.json`);
      expect(want.length).toBeGreaterThan(0);
      expect(await read(`${jobs.three}-3.json`)).toEqual(want);
      expect(await read(`${jobs.single}-1.json`)).toEqual(want);
    } finally {
      await rm(at, { recursive: true, force: true });
    }
  });

  it('refuses with exit 2: a count that is not a positive whole number, an uncommitted batch', async () => {
    const at = await mkdtemp(path.join(tmpdir(), 'weir-cli-repartition-'));
    try {
      await writeInputFile(path.join(at, 'in'), 0, eventGenerator(3)(5), 'json');
      await dedupJob(at, 'pending', 2, 'hdfs');
      for (const bad of ['0', 'two', '-1', '1.5']) {
        const r = await weir(['checkpoint', 'repartition', `--to=${bad}`, 'cp-pending'], at);
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/positive whole number|from 1 to 64/);
      }
      expect((await weir(['checkpoint', 'repartition', '--to', '3', 'cp-pending'], at)).stderr).toMatch(/has no offsets\/: no query has run on it/);
      expect((await weir(['run', 'pending-2.json', '--crash-at', 'after-offsets', '--crash-batch', '0'], at)).code).toBe(3);
      const pending = await weir(['checkpoint', 'repartition', '--to', '3', 'cp-pending'], at);
      expect(pending.code).toBe(2);
      expect(pending.stderr).toMatch(/batch 0 of .* is not committed \(offsets\/0 without commits\/0\): a run is inside it, or died there/);
    } finally {
      await rm(at, { recursive: true, force: true });
    }
  });
});
