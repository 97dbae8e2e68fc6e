/**
 * `weir checkpoint export|import`, spawned as a user runs them: a checkpoint the CLI wrote moves
 * local → s3:// → local with every byte intact, and the imported s3:// checkpoint runs on from
 * where it was; an archive that is corrupt, truncated or lacks its manifest is refused naming the
 * file, with nothing written; a non-empty target is refused. Plus a property: any set of
 * checkpoint files survives the archive format byte for byte, and any single flipped byte in a
 * file's data is caught.
 */
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startS3rver, type S3rverProcess } from '../lib/connectors/s3/testing/s3rver';
import { InMemoryCheckpointFileManager } from '../lib/engine/index';
import { createHash } from 'node:crypto';
import { ARCHIVE_LIMITS, ARCHIVE_MANIFEST, ArchiveError, END_OF_ARCHIVE, exportCheckpoint, importCheckpoint, tarEntry, verifyArchive } from './checkpoint-archive';

const WEIR = path.resolve(import.meta.dirname, 'weir.js');
const BUCKET = 'weir-archive';

/** The CLI with stdin from `input` and stdout kept as bytes; unconfined unless `env` sets the roots. */
function weir(args: string[], cwd: string, input?: Buffer, env: Record<string, string> = {}): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WEIR, ...args], { cwd, env: { ...process.env, WEIR_FILES_ROOTS: '', WEIR_CHECKPOINT_ROOT: '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out), stderr }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? Buffer.alloc(0));
  });
}

const TIME = '/usr/bin/time';

/**
 * The CLI under /usr/bin/time with `mib` MiB of `byte` fed to stdin as fast as it reads (never
 * held whole here); its exit code, stderr and peak resident set size (KiB, as time's %M).
 */
function weirFed(args: string[], cwd: string, mib: number, byte: number): Promise<{ code: number; stderr: string; maxRssKiB: number }> {
  const rssFile = path.join(cwd, `rss-${process.hrtime.bigint()}.txt`);
  return new Promise((resolve, reject) => {
    const child = spawn(TIME, ['-f', '%M', '-o', rssFile, process.execPath, WEIR, ...args], { cwd, env: { ...process.env, WEIR_FILES_ROOTS: '', WEIR_CHECKPOINT_ROOT: '' }, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      readFile(rssFile, 'utf8').then((t) => resolve({ code: code ?? -1, stderr, maxRssKiB: Number(t.trim().split('\n').at(-1)) }), reject);
    });
    const chunk = Buffer.alloc(1024 * 1024, byte);
    let sent = 0;
    let open = true;
    child.stdin.on('error', () => (open = false));
    child.stdin.on('close', () => (open = false));
    const feed = () => {
      while (open && sent < mib) {
        sent++;
        if (!child.stdin.write(chunk)) return void child.stdin.once('drain', feed);
      }
      if (open) child.stdin.end();
    };
    feed();
  });
}

let dir: string;
let s3: S3rverProcess;
let s3loc: (prefix: string) => string;

async function tree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) out[path.relative(root, path.join(e.parentPath, e.name))] = (await readFile(path.join(e.parentPath, e.name))).toString('base64');
  }
  return out;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'weir-archive-'));
  s3 = await startS3rver();
  const c = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  await c.send(new CreateBucketCommand({ Bucket: BUCKET }));
  c.destroy();
  s3loc = (prefix) => `s3://${BUCKET}/${prefix}?endpoint=${encodeURIComponent(s3.endpoint)}&accessKeyId=S3RVER&secretAccessKey=S3RVER`;
  await mkdir(path.join(dir, 'in'));
  for (let i = 0; i < 3; i++) await writeFile(path.join(dir, 'in', `f${i}.json`), `{"user":"u${i}","n":${i}}\n{"user":"u0","n":10}\n`);
  const job = (checkpointLocation: string, out: string) => ({
    name: 'archive-job',
    source: { name: 'clicks', type: 'files', options: { path: 'in', format: 'json', maxFilesPerTrigger: 1 }, schema: [{ name: 'user', type: 'string' }, { name: 'n', type: 'long' }] },
    sql: 'SELECT user, n FROM clicks',
    sink: { type: 'files', options: { path: out, format: 'json' } },
    outputMode: 'append',
    trigger: { type: 'available-now' },
    checkpointLocation,
  });
  await writeFile(path.join(dir, 'job.json'), JSON.stringify(job('cp', 'out')));
  await writeFile(path.join(dir, 'job-s3.json'), JSON.stringify(job(s3loc('moved'), 'out-s3')));
  const ran = await weir(['run', 'job.json'], dir);
  expect(ran.code, ran.stderr).toBe(0);
}, 420_000);
afterEach(() => s3.assertAlive());
afterAll(async () => {
  await s3?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('weir checkpoint export / import', () => {
  it('moves a checkpoint local → s3:// → local intact, and the s3:// copy runs on from its last batch', async () => {
    const exported = await weir(['checkpoint', 'export', 'cp'], dir);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout.length % 512).toBe(0);
    expect(exported.stderr).toMatch(/exported \d+ checkpoint files/);
    const imported = await weir(['checkpoint', 'import', s3loc('moved')], dir, exported.stdout);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toMatch(/every SHA-256 matched/);
    // A second import into the same place is refused: it is not empty.
    const again = await weir(['checkpoint', 'import', s3loc('moved')], dir, exported.stdout);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/is not empty/);
    // Back to local: the same bytes as the original.
    const back = await weir(['checkpoint', 'export', s3loc('moved')], dir);
    expect(back.code, back.stderr).toBe(0);
    const local = await weir(['checkpoint', 'import', 'cp-back'], dir, back.stdout);
    expect(local.code, local.stderr).toBe(0);
    expect(await tree(path.join(dir, 'cp-back'))).toEqual(await tree(path.join(dir, 'cp')));
    // The moved checkpoint resumes: a new file is batch 3, and only it is read (offsets and the source log moved too).
    const inspect = await weir(['checkpoint', 'inspect', s3loc('moved')], dir);
    expect(JSON.parse(inspect.stdout.toString()).commits.at(-1).batchId).toBe(2);
    await writeFile(path.join(dir, 'in', 'f3.json'), '{"user":"u0","n":3}\n');
    const resumed = await weir(['run', 'job-s3.json'], dir);
    expect(resumed.code, resumed.stderr).toBe(0);
    const batches = resumed.stdout.toString().trim().split('\n').map((l) => JSON.parse(l));
    expect(batches.map((b) => b.batchId)).toEqual([3]);
    const rows = (await readdir(path.join(dir, 'out-s3'))).filter((f) => !f.startsWith('_'));
    const written = (await Promise.all(rows.map((f) => readFile(path.join(dir, 'out-s3', f), 'utf8')))).join('').trim().split('\n').map((l) => JSON.parse(l));
    expect(written).toEqual([{ user: 'u0', n: 3 }]);
  }, 420_000);

  it('refuses a corrupt, truncated or manifest-less archive naming the file, and writes nothing', async () => {
    const { stdout: tar } = await weir(['checkpoint', 'export', 'cp'], dir);
    const offsetsAt = tar.indexOf(Buffer.from('offsets/1\0'));
    expect(offsetsAt).toBeGreaterThanOrEqual(0);
    const flipped = Buffer.from(tar);
    flipped[offsetsAt + 512 + 3] ^= 0x01; // a byte of offsets/1's data
    const cases: [string, Buffer, RegExp][] = [
      ['flipped', flipped, /offsets\/1 in the archive does not match its manifest/],
      ['truncated', tar.subarray(0, offsetsAt + 512 + 10), /truncated in offsets\/1/],
      ['header', Buffer.concat([tar.subarray(0, offsetsAt), Buffer.from('X'), tar.subarray(offsetsAt + 1)]), /header .* fails its checksum/],
      ['no-manifest', Buffer.concat([tar.subarray(0, tar.lastIndexOf(Buffer.from('_weir_checkpoint.json\0'))), Buffer.alloc(1024)]), /no _weir_checkpoint\.json/],
    ];
    for (const [name, bytes, message] of cases) {
      const r = await weir(['checkpoint', 'import', `bad-${name}`], dir, bytes);
      expect(r.code, `${name}: ${r.stderr}`).toBe(1);
      expect(r.stderr, name).toMatch(message);
      await expect(readdir(path.join(dir, `bad-${name}`)), name).rejects.toMatchObject({ code: 'ENOENT' });
    }
  }, 420_000);

  it('with WEIR_CHECKPOINT_ROOT set, import, export and inspect refuse a location outside it (absolute, .., a symlink out) as run does: exit 2, nothing written', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'weir-archive-root-'));
    const outside = await mkdtemp(path.join(tmpdir(), 'weir-archive-out-'));
    try {
      await symlink(outside, path.join(root, 'link'));
      const env = { WEIR_CHECKPOINT_ROOT: root };
      const { stdout: tar } = await weir(['checkpoint', 'export', 'cp'], dir);
      const escapes = [path.join(outside, 'abs'), `../${path.basename(outside)}/dotdot`, `${root}/../${path.basename(outside)}/dotdot-abs`, 'link/through-link'];
      for (const loc of escapes) {
        const r = await weir(['checkpoint', 'import', loc], dir, tar, env);
        expect(r.code, `${loc}: ${r.stderr}`).toBe(2);
        expect(r.stderr, loc).toMatch(new RegExp(`^error: weir checkpoint import <dir> resolves to .*, outside WEIR_CHECKPOINT_ROOT \\(${root}\\): give a path inside`));
        // A <dir> cannot be left out, so the hint that suits a spec's checkpointLocation is not given.
        expect(r.stderr, loc).not.toContain('leave checkpointLocation out');
        expect(r.stderr, loc).not.toMatch(/\n\s+at /);
      }
      expect(await readdir(outside)).toEqual([]);
      // The same place refused by run for a spec's checkpointLocation, with the same message.
      const job = JSON.parse(await readFile(path.join(dir, 'job.json'), 'utf8'));
      await writeFile(path.join(dir, 'job-out.json'), JSON.stringify({ ...job, checkpointLocation: path.join(outside, 'abs') }));
      const ran = await weir(['run', 'job-out.json'], dir, undefined, env);
      expect(ran.code).toBe(2);
      expect(ran.stderr).toContain(`checkpointLocation resolves to "${path.join(outside, 'abs')}", outside WEIR_CHECKPOINT_ROOT (${root})`);
      // A checkpoint outside the root (written unconfined) is neither exported nor inspected.
      expect((await weir(['checkpoint', 'import', path.join(outside, 'real')], dir, tar)).code).toBe(0);
      for (const cmd of ['export', 'inspect']) {
        for (const loc of [path.join(outside, 'real'), `../${path.basename(outside)}/real`, 'link/real']) {
          const r = await weir(['checkpoint', cmd, loc], dir, undefined, env);
          expect(r.code, `${cmd} ${loc}: ${r.stderr}`).toBe(2);
          expect(r.stderr).toContain(`error: weir checkpoint ${cmd} <dir> resolves to`);
          expect(r.stdout.length).toBe(0);
        }
      }
      // Inside the root, relative to it as a spec's checkpointLocation is: accepted.
      const inside = await weir(['checkpoint', 'import', 'inside'], dir, tar, env);
      expect(inside.code, inside.stderr).toBe(0);
      expect(await tree(path.join(root, 'inside'))).toEqual(await tree(path.join(dir, 'cp')));
      expect((await weir(['checkpoint', 'inspect', 'inside'], dir, undefined, env)).code).toBe(0);
    } finally {
      await rm(root, { recursive: true, force: true });
      await rm(outside, { recursive: true, force: true });
    }
  }, 420_000);

  it('refuses a manifest that lists a file twice, lists null or names a bad path: a clear message, no stack trace, nothing written', async () => {
    const files: [string, Buffer][] = [
      ['metadata', Buffer.from('{"id":"q"}')],
      ['offsets/0', Buffer.from('v1\n{}\n')],
    ];
    const listed = (p: string, data: Buffer) => ({ path: p, size: data.byteLength, sha256: createHash('sha256').update(data).digest('hex') });
    const archive = (manifest: unknown, entries = files) =>
      Buffer.concat([...entries.map(([p, d]) => tarEntry(p, d)), tarEntry(ARCHIVE_MANIFEST, Buffer.from(JSON.stringify(manifest))), END_OF_ARCHIVE]);
    const good = files.map(([p, d]) => listed(p, d));
    const m = (list: unknown[]) => ({ formatVersion: 1, source: 'test', files: list });
    const cases: [string, Buffer, RegExp][] = [
      ['twice', archive(m([...good, good[1]])), /files\.2\.path: offsets\/0 is listed twice/],
      ['null', archive(m([null, ...good])), /files\.0: Invalid input: expected object, received null/],
      ['number', archive(m([...good, 7])), /files\.2: Invalid input: expected object/],
      ['no-files', archive({ formatVersion: 1, source: 'x' }), /files: Invalid input: expected array/],
      ['absolute', archive(m([...good, { ...good[1], path: '/etc/cron.d/x' }])), /"\/etc\/cron.d\/x" is an absolute path/],
      ['dotdot', archive(m([...good, { ...good[1], path: 'offsets/../../x' }])), /"offsets\/..\/..\/x" is a path with "\.\."/],
      ['nul', archive(m([...good, { ...good[1], path: 'offsets/1\0' }])), /is a path with a NUL byte/],
      ['empty', archive(m([...good, { ...good[1], path: '' }])), /"" is an empty path/],
      ['not-json', Buffer.concat([...files.map(([p, d]) => tarEntry(p, d)), tarEntry(ARCHIVE_MANIFEST, Buffer.from('{')), END_OF_ARCHIVE]), /is not JSON/],
    ];
    for (const [name, bytes, message] of cases) {
      const r = await weir(['checkpoint', 'import', `manifest-${name}`], dir, bytes);
      expect(r.code, `${name}: ${r.stderr}`).toBe(1);
      expect(r.stderr, name).toMatch(message);
      expect(r.stderr, name).not.toMatch(/\n\s+at /);
      await expect(readdir(path.join(dir, `manifest-${name}`)), name).rejects.toMatchObject({ code: 'ENOENT' });
    }
    // The same archive with a proper manifest imports.
    const ok = await weir(['checkpoint', 'import', 'manifest-ok'], dir, archive(m(good)));
    expect(ok.code, ok.stderr).toBe(0);
  }, 420_000);

  it.skipIf(!existsSync(TIME))('refuses 512 MiB of zeros or of junk on stdin early, its memory bounded (peak RSS < 200 MB)', async () => {
    for (const [byte, message] of [
      [0, /no _weir_checkpoint\.json: it is not a weir checkpoint export/],
      [0xff, /the input is not a ustar archive/],
    ] as const) {
      const r = await weirFed(['checkpoint', 'import', `fed-${byte}`], dir, 512, byte);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.maxRssKiB).toBeGreaterThan(0);
      expect(r.maxRssKiB * 1024, `peak RSS ${r.maxRssKiB} KiB`).toBeLessThan(200e6);
      await expect(readdir(path.join(dir, `fed-${byte}`))).rejects.toMatchObject({ code: 'ENOENT' });
    }
  }, 420_000);

  it('refuses an entry, an archive or an entry count over its cap before reading it, naming the cap, and writes nothing', async () => {
    // A header claiming a 1 GiB file: refused at the header, no data needed.
    const huge = tarEntry('state/0/0/1.snapshot', Buffer.alloc(0));
    huge.write((1024 ** 3).toString(8).padStart(11, '0') + '\0', 124, 'ascii');
    huge.write('        ', 148, 'ascii');
    let sum = 0;
    for (const b of huge.subarray(0, 512)) sum += b;
    huge.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
    const r = await weir(['checkpoint', 'import', 'huge'], dir, huge.subarray(0, 512));
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`state/0/0/1.snapshot in the archive is 1024 MiB, over the ${ARCHIVE_LIMITS.maxEntryBytes / 1024 / 1024} MiB an import takes for one file`);
    await expect(readdir(path.join(dir, 'huge'))).rejects.toMatchObject({ code: 'ENOENT' });

    const files = Array.from({ length: 5 }, (_, i) => tarEntry(`offsets/${i}`, Buffer.alloc(1000, 1)));
    const tar = Buffer.concat([...files, END_OF_ARCHIVE]);
    const fm = new InMemoryCheckpointFileManager();
    await expect(importCheckpoint(fm, tar, { ...ARCHIVE_LIMITS, maxTotalBytes: 3500 })).rejects.toThrow(/the archive exceeds 3500 bytes of files \(at offsets\/3\), the most an import takes/);
    await expect(importCheckpoint(fm, tar, { ...ARCHIVE_LIMITS, maxEntries: 4 })).rejects.toThrow(/the archive holds more than 4 entries, the most an import takes/);
    await expect(importCheckpoint(fm, tar, { ...ARCHIVE_LIMITS, maxEntryBytes: 999 })).rejects.toThrow(/offsets\/0 in the archive is 1000 bytes, over the 999 bytes an import takes for one file/);
    expect(await fm.list('')).toEqual([]);
  }, 60_000);

  it('round-trips any checkpoint files byte for byte, and catches any flipped data byte', async () => {
    const entry = fc.oneof(
      fc.nat(40).map((n) => `offsets/${n}`),
      fc.nat(40).map((n) => `commits/${n}`),
      fc.tuple(fc.nat(3), fc.nat(3), fc.nat(200), fc.constantFrom('delta', 'snapshot')).map(([o, p, v, k]) => `state/${o}/${p}/${v}.${k}`),
      fc.nat(30).map((n) => `sources/0/${n}.compact`),
    );
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.tuple(entry, fc.uint8Array({ maxLength: 1500 })), { selector: ([p]) => p, minLength: 1, maxLength: 12 }), fc.nat(), async (files, pick) => {
        const src = new InMemoryCheckpointFileManager();
        await src.createAtomic('metadata', '{"id":"q"}');
        for (const [p, data] of files) await src.createAtomic(p, data);
        const chunks: Buffer[] = [];
        await exportCheckpoint(src, async (c) => void chunks.push(c), 0);
        const tar = Buffer.concat(chunks);
        const dst = new InMemoryCheckpointFileManager();
        await importCheckpoint(dst, tar);
        for (const [p, data] of files) expect(Buffer.compare(await dst.read(p), Buffer.from(data))).toBe(0);
        const withData = files.filter(([, d]) => d.length > 0);
        if (withData.length === 0) return;
        const [p, data] = withData[pick % withData.length];
        const bad = Buffer.from(tar);
        let at = 0;
        while (tar.subarray(at, at + 100).toString('utf8').replace(/\0.*$/s, '') !== p) at += 512;
        bad[at + 512 + (pick % data.length)] ^= 0x80;
        await expect(verifyArchive(bad)).rejects.toThrow(ArchiveError);
      }),
      { numRuns: 60 },
    );
  });
});
