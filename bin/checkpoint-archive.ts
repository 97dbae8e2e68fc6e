/**
 * `weir checkpoint export|import`: a checkpoint as one ustar archive, to move it between
 * storages (local directory, shared volume, s3://) with every file's integrity checked.
 *
 * The archive holds the engine's files (checkpoint-layout.ts; nothing else in the directory) in
 * name order, then `_weir_checkpoint.json`: every file's path, size and SHA-256. Plain POSIX
 * ustar (512-byte headers, data padded to 512, two zero blocks at the end), so `tar tf` lists it;
 * no tar package is a dependency, and this is all of the format a checkpoint needs (regular
 * files, '/'-separated relative paths).
 *
 * Import reads the archive as a stream and checks it before writing anything: every header's
 * checksum, every entry complete (a truncated archive is refused naming the file it ends in), every
 * path an engine file, the manifest against a schema (no file twice, no null, no absolute or `..`
 * path), every file's size and SHA-256 against it and no file missing or extra. It stops at the
 * end-of-archive block and refuses a stream whose first header is not ustar at once. The files are
 * held in memory until all are checked, so ARCHIVE_LIMITS caps the entries (100 000), one file
 * (64 MiB) and all files (256 MiB), each checked at the header, before the data is read.
 * The target must hold no files yet (an object store has no rename to swap a directory in), and
 * `metadata` is written last: an import that dies half-way leaves offsets without metadata, which
 * a run refuses (CORRUPT_CHECKPOINT) instead of running on it.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { isCheckpointDirectory, isCheckpointEntry, type CheckpointFileManager } from '../lib/engine/index';

export const ARCHIVE_MANIFEST = '_weir_checkpoint.json';
const BLOCK = 512;

/** Why `p` cannot be a file of a checkpoint archive, or null when it is one. */
function badEntryName(p: string): string | null {
  if (p.length === 0) return 'an empty path';
  if (p.includes('\0')) return 'a path with a NUL byte';
  if (p.startsWith('/')) return 'an absolute path';
  if (p.split('/').includes('..')) return 'a path with ".."';
  if (!isCheckpointEntry(p)) return 'a path that is not a checkpoint file';
  return null;
}

/**
 * The manifest, checked whole before anything is written: every entry an object with a
 * checkpoint file's path, a size and a SHA-256, and no path twice.
 */
const manifestSchema = z
  .object({
    formatVersion: z.literal(1),
    source: z.string(),
    files: z.array(
      z.object({
        path: z.string().superRefine((p, ctx) => {
          const bad = badEntryName(p);
          if (bad) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(p.slice(0, 200))} is ${bad}` });
        }),
        size: z.number().int().nonnegative(),
        sha256: z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex digits'),
      }),
    ),
  })
  .superRefine((m, ctx) => {
    const seen = new Set<string>();
    m.files.forEach((f, i) => {
      if (seen.has(f.path)) ctx.addIssue({ code: 'custom', path: ['files', i, 'path'], message: `${f.path} is listed twice` });
      seen.add(f.path);
    });
  });

type ArchiveManifest = z.infer<typeof manifestSchema>;

/** The archive's manifest parsed and checked; an ArchiveError naming every fault (up to 5) otherwise. */
function parseManifest(bytes: Buffer): ArchiveManifest {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    throw new ArchiveError(`the archive's ${ARCHIVE_MANIFEST} is not JSON (${(e as Error).message}): export the checkpoint again with weir checkpoint export`);
  }
  const r = manifestSchema.safeParse(json);
  if (r.success) return r.data;
  const issues = r.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(the manifest)'}: ${i.message}`);
  const more = r.error.issues.length > 5 ? `; and ${r.error.issues.length - 5} more` : '';
  throw new ArchiveError(`the archive's ${ARCHIVE_MANIFEST} is invalid (${issues.join('; ')}${more}): export the checkpoint again with weir checkpoint export; nothing was written`);
}

export class ArchiveError extends Error {}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0';
}

function header(name: string, size: number, mtimeSec: number): Buffer {
  const h = Buffer.alloc(BLOCK);
  let prefix = '';
  let base = name;
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', 155);
    if (cut < 0 || Buffer.byteLength(name.slice(cut + 1)) > 100) throw new ArchiveError(`${name} is too long for a ustar archive`);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
  }
  h.write(base, 0, 100, 'utf8');
  h.write(octal(0o644, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(mtimeSec, 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write('0', 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(octal(sum, 7) + ' ', 148, 'ascii');
  return h;
}

function pad(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

/** One archive entry: its header, its data, the padding to the next block. */
export function tarEntry(name: string, data: Uint8Array, mtimeSec = 0): Buffer {
  return Buffer.concat([header(name, data.byteLength, mtimeSec), data, pad(data.byteLength)]);
}

/** The two zero blocks that end an archive. */
export const END_OF_ARCHIVE = Buffer.alloc(2 * BLOCK);

/** The engine's files under the checkpoint, in name order (anything else there is left out). */
async function engineFiles(fm: CheckpointFileManager, dir = ''): Promise<string[]> {
  const out: string[] = [];
  const names = await fm.list(dir);
  for (const name of names.sort()) {
    const p = dir ? `${dir}/${name}` : name;
    if (isCheckpointDirectory(p)) out.push(...(await engineFiles(fm, p)));
    else if (isCheckpointEntry(p) && (await fm.exists(p))) out.push(p);
  }
  return out;
}

/** Writes the archive of the checkpoint to `write` (stdout); returns the number of files. */
export async function exportCheckpoint(fm: CheckpointFileManager, write: (chunk: Buffer) => Promise<void>, nowSec = Math.floor(Date.now() / 1000)): Promise<number> {
  const paths = await engineFiles(fm);
  if (!paths.includes('metadata') && !paths.some((p) => p.startsWith('offsets/'))) throw new ArchiveError(`${fm.description} is not a Weir checkpoint (no metadata, no offsets/)`);
  const manifest: ArchiveManifest = { formatVersion: 1, source: fm.description, files: [] };
  for (const p of paths) {
    const data = await fm.read(p);
    manifest.files.push({ path: p, size: data.byteLength, sha256: sha256(data) });
    await write(tarEntry(p, data, nowSec));
  }
  const m = Buffer.from(JSON.stringify(manifest, null, 1));
  await write(Buffer.concat([tarEntry(ARCHIVE_MANIFEST, m, nowSec), END_OF_ARCHIVE]));
  return paths.length;
}

function field(h: Buffer, at: number, len: number): string {
  const s = h.subarray(at, at + len);
  const nul = s.indexOf(0);
  return s.subarray(0, nul < 0 ? len : nul).toString('utf8');
}

const MiB = 1024 * 1024;

/**
 * What an import holds, at most: the archive is read as a stream and its files are kept in memory
 * until all are checked, so these bound the memory an import takes (and the time a stream that is
 * not a checkpoint archive keeps it reading). A checkpoint is logs and state files: far below them.
 */
export const ARCHIVE_LIMITS = {
  /** Entries (files and directories), the manifest included. */
  maxEntries: 100_000,
  /** One file's size. */
  maxEntryBytes: 64 * MiB,
  /** All files' sizes together. */
  maxTotalBytes: 256 * MiB,
};
export type ArchiveLimits = typeof ARCHIVE_LIMITS;

const mib = (n: number) => (n >= MiB ? `${Math.round((n / MiB) * 100) / 100} MiB` : `${n} bytes`);

/** Exact-size reads from a byte stream, holding no more than the chunk being taken apart. */
class StreamReader {
  private buf: Buffer = Buffer.alloc(0);
  private done = false;
  private readonly it: AsyncIterator<Uint8Array>;

  constructor(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>) {
    this.it = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : Readable.from(source)[Symbol.asyncIterator]();
  }

  /** The next `n` bytes; fewer only at the end of the stream. */
  async take(n: number): Promise<Buffer> {
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      if (this.buf.length === 0) {
        if (this.done) break;
        const r = await this.it.next();
        if (r.done) {
          this.done = true;
          break;
        }
        this.buf = Buffer.isBuffer(r.value) ? r.value : Buffer.from(r.value);
        continue;
      }
      const k = Math.min(n - filled, this.buf.length);
      this.buf.copy(out, filled, 0, k);
      this.buf = this.buf.subarray(k);
      filled += k;
    }
    return filled === n ? out : out.subarray(0, filled);
  }

  /** Stops reading: the rest of the stream is never pulled. */
  async close(): Promise<void> {
    await this.it.return?.();
  }
}

/**
 * Every entry of a ustar archive read from `source`, each header's checksum checked and each
 * entry's size checked against `limits` before its data is read; throws naming the entry at fault.
 * Stops at the end-of-archive block, so nothing after it is read.
 */
async function readArchive(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, limits: ArchiveLimits): Promise<Map<string, Buffer>> {
  const entries = new Map<string, Buffer>();
  const reader = new StreamReader(source);
  let last = '(the start of the archive)';
  let count = 0;
  let total = 0;
  try {
    for (;;) {
      const h = await reader.take(BLOCK);
      if (h.length < BLOCK) throw new ArchiveError(`the archive is truncated after ${last}: no end-of-archive blocks (export it again)`);
      if (h.every((b) => b === 0)) break;
      let sum = 0;
      for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i];
      const stored = parseInt(field(h, 148, 8).trim(), 8);
      const name = [field(h, 345, 155), field(h, 0, 100)].filter(Boolean).join('/');
      if (stored !== sum) {
        throw new ArchiveError(
          count === 0
            ? 'the input is not a ustar archive (its first header fails its checksum): give the output of weir checkpoint export'
            : `the archive is corrupt: the header after ${last}${name ? ` (naming ${JSON.stringify(name.slice(0, 200))})` : ''} fails its checksum`,
        );
      }
      if (++count > limits.maxEntries) throw new ArchiveError(`the archive holds more than ${limits.maxEntries} entries, the most an import takes; nothing was written`);
      const type = String.fromCharCode(h[156]);
      const size = parseInt(field(h, 124, 12).trim() || '0', 8);
      if (!Number.isSafeInteger(size) || size < 0) throw new ArchiveError(`the archive is corrupt: ${name} has no valid size`);
      if (type === '5') {
        if (size !== 0) throw new ArchiveError(`the archive is corrupt: the directory ${name} has a size`);
      } else if (type !== '0' && type !== '\0') {
        throw new ArchiveError(`the archive holds ${name} of ustar type ${JSON.stringify(type)}: a checkpoint archive holds regular files only`);
      } else {
        const bad = name === ARCHIVE_MANIFEST ? null : badEntryName(name);
        if (bad) throw new ArchiveError(`the archive holds ${JSON.stringify(name.slice(0, 200))}, ${bad}: a checkpoint archive holds the engine's files only; nothing was written`);
        if (entries.has(name)) throw new ArchiveError(`the archive holds ${name} twice`);
        if (size > limits.maxEntryBytes) throw new ArchiveError(`${name} in the archive is ${mib(size)}, over the ${mib(limits.maxEntryBytes)} an import takes for one file; nothing was written`);
        if (total + size > limits.maxTotalBytes) throw new ArchiveError(`the archive exceeds ${mib(limits.maxTotalBytes)} of files (at ${name}), the most an import takes; nothing was written`);
        total += size;
        const data = await reader.take(size);
        if (data.length < size) throw new ArchiveError(`the archive is truncated in ${name}: ${size} bytes expected, ${data.length} there`);
        entries.set(name, data);
        const padding = (BLOCK - (size % BLOCK)) % BLOCK;
        if ((await reader.take(padding)).length < padding) throw new ArchiveError(`the archive is truncated after ${name}: no end-of-archive blocks (export it again)`);
      }
      last = name;
    }
  } finally {
    await reader.close();
  }
  return entries;
}

/** The archive's files checked against its manifest: every checksum, nothing missing, nothing extra. */
export async function verifyArchive(source: AsyncIterable<Uint8Array> | Uint8Array, limits: ArchiveLimits = ARCHIVE_LIMITS): Promise<{ path: string; data: Buffer }[]> {
  const entries = await readArchive(source instanceof Uint8Array ? [source] : source, limits);
  const m = entries.get(ARCHIVE_MANIFEST);
  if (!m) throw new ArchiveError(`the archive has no ${ARCHIVE_MANIFEST}: it is not a weir checkpoint export (or it was cut short)`);
  const manifest = parseManifest(m);
  const out: { path: string; data: Buffer }[] = [];
  for (const f of manifest.files) {
    const data = entries.get(f.path);
    if (!data) throw new ArchiveError(`the archive lacks ${f.path}, which its manifest lists`);
    if (data.byteLength !== f.size || sha256(data) !== f.sha256) throw new ArchiveError(`${f.path} in the archive does not match its manifest (size or SHA-256 differ): the archive is damaged`);
    out.push({ path: f.path, data });
  }
  const listed = new Set(manifest.files.map((f) => f.path));
  for (const name of entries.keys()) if (name !== ARCHIVE_MANIFEST && !listed.has(name)) throw new ArchiveError(`the archive holds ${name}, which its manifest does not list`);
  return out;
}

/** Writes a verified archive into an empty checkpoint location, `metadata` last; returns the number of files. */
export async function importCheckpoint(fm: CheckpointFileManager, source: AsyncIterable<Uint8Array> | Uint8Array, limits: ArchiveLimits = ARCHIVE_LIMITS): Promise<number> {
  const files = await verifyArchive(source, limits);
  const present = await fm.list('');
  if (present.length > 0) throw new ArchiveError(`${fm.description} is not empty (${present.slice(0, 5).join(', ')}${present.length > 5 ? ', …' : ''}): import into a new location, or empty it first`);
  const ordered = [...files.filter((f) => f.path !== 'metadata'), ...files.filter((f) => f.path === 'metadata')];
  for (const f of ordered) {
    await fm.createAtomic(f.path, f.data, { overwrite: false });
    if (sha256(await fm.read(f.path)) !== sha256(f.data)) throw new ArchiveError(`${f.path} reads back differently from ${fm.description}: the storage is damaging writes`);
  }
  return files.length;
}
