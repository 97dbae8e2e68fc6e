/**
 * The checkpoint inspector's reads: the tree of files under a job's checkpoint location with
 * sizes, which batch is pending (an `offsets/N` without `commits/N`: what a restart re-runs), the
 * state stores (per operator and partition: the loadable versions, the latest snapshot, files and
 * bytes, and whether the latest version is the one commits/ says a restart loads), and one
 * file's contents. The checkpoint is opened and walked through checkpoint-access.ts (shared with
 * the services that reset, delete and copy it), so local disk, a shared volume and s3:// read the
 * same way, only the engine's own files are listed or served, no symlink is followed, and a
 * checkpoint outside WEIR_CHECKPOINT_ROOT is not read at all. The pending batch is the engine's
 * own definition (pendingBatchOf), the one a restart uses.
 *
 * A file path comes from the client: it must stay inside the checkpoint (no `..`, no absolute
 * path, no backslash or NUL), or it is refused before storage is touched.
 */
import {
  FileNotFoundError,
  inspectState,
  isCheckpointEntry,
  type StateOperatorInspection,
  type StatePartitionInspection,
} from '@/lib/engine';
import { checkpointProblems, pendingBatchOf, type CheckpointProblem } from '@/lib/engine';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { openCheckpoint, walkCheckpoint, type CheckpointEntry } from '../checkpoint-access';
import { BadRequestError, NotFoundError } from '../errors';
import { findJobOrThrow } from '../job-view';
import { localStateCaches, type LocalStateCacheView } from './local-state-cache-presenter';
import { redactSecrets, secretValues } from '../secret-masking';

const MAX_TREE_ENTRIES = 5000;
const MAX_FILE_BYTES = 1024 * 1024;

export interface CheckpointTree {
  location: string;
  files: CheckpointEntry[];
  truncated: boolean;
  /** How many entries in the directory are not the engine's (not listed, never served). */
  otherEntries: number;
  totalBytes: number;
  offsets: number[];
  commits: number[];
  latestOffsetsBatch: number | null;
  latestCommittedBatch: number | null;
  /** The batch a restart re-runs over its recorded range, or null. */
  pendingBatch: number | null;
  /** The state stores, each partition with how its versions line up with commits/. */
  state: StateOperatorView[];
  /** Missing or unparseable files a start refuses as CORRUPT_CHECKPOINT; [] when intact. */
  problems: CheckpointProblem[];
  /** The lmdb state store's local copies on the workers' machines, as their live workers report them. */
  localCaches: LocalStateCacheView[];
}

interface StatePartitionView extends StatePartitionInspection {
  check: StateVersionCheck;
}

interface StateOperatorView extends Omit<StateOperatorInspection, 'partitions'> {
  partitions: StatePartitionView[];
}

/**
 * Batch N runs on state version N and commits version N+1, before commits/N; so after commits/L a
 * restart loads version L+1. `ok`: it is there; `ahead`: version L+2 exists too (the pending batch
 * committed its state before it crashed; the re-run rewrites it); `missing`: the version a
 * restart needs is not loadable (the restart fails with CORRUPT_CHECKPOINT).
 */
export interface StateVersionCheck {
  status: 'ok' | 'ahead' | 'missing' | 'no-commits';
  /** The version a restart loads (latest commit + 1), or null without commits. */
  expectedVersion: number | null;
  message: string;
}

export function checkStateVersion(p: { latestVersion: number | null; oldestLoadableVersion: number | null }, latestCommittedBatch: number | null): StateVersionCheck {
  if (latestCommittedBatch === null) return { status: 'no-commits', expectedVersion: null, message: 'No batch committed yet: a start begins from version 0 (empty).' };
  const expected = latestCommittedBatch + 1;
  const latest = p.latestVersion ?? 0;
  const oldest = p.oldestLoadableVersion ?? 0;
  if (latest < expected || oldest > expected) {
    return { status: 'missing', expectedVersion: expected, message: `commits/${latestCommittedBatch} needs state version ${expected}, which is not loadable here: a restart fails with CORRUPT_CHECKPOINT. Restore the state files, or reset the checkpoint.` };
  }
  if (latest > expected) {
    return { status: 'ahead', expectedVersion: expected, message: `Version ${latest} is newer than commits/${latestCommittedBatch}: the pending batch committed its state before it stopped. A restart loads version ${expected} and the re-run writes ${expected + 1} again.` };
  }
  return { status: 'ok', expectedVersion: expected, message: `A restart loads version ${expected}, as commits/${latestCommittedBatch} says.` };
}

const batchIdsUnder = (files: CheckpointEntry[], dir: string) =>
  files
    .map((f) => new RegExp(`^${dir}/(\\d+)$`).exec(f.path)?.[1])
    .filter((x): x is string => x !== undefined)
    .map(Number)
    .sort((a, b) => a - b);

export async function checkpointTree(db: PrismaClient, jobId: string, checkpointRoot: string, opts: { workerTimeoutMs?: number } = {}): Promise<CheckpointTree> {
  const job = await findJobOrThrow(db, jobId);
  const fm = openCheckpoint(job.checkpointLocation, checkpointRoot);
  const { files, truncated, foreign } = await walkCheckpoint(fm, MAX_TREE_ENTRIES);
  const offsets = batchIdsUnder(files, 'offsets');
  const commits = batchIdsUnder(files, 'commits');
  const latestOffsetsBatch = offsets.at(-1) ?? null;
  const latestCommittedBatch = commits.at(-1) ?? null;
  const state = (await inspectState(fm)).map((op) => ({ ...op, partitions: op.partitions.map((p) => ({ ...p, check: checkStateVersion(p, latestCommittedBatch) })) }));
  return {
    location: redactSecrets(fm.description, secretValues(job.spec)),
    files,
    truncated,
    otherEntries: foreign.length,
    totalBytes: files.reduce((s, f) => s + f.size, 0),
    offsets,
    commits,
    latestOffsetsBatch,
    latestCommittedBatch,
    pendingBatch: pendingBatchOf(latestOffsetsBatch, commits),
    state,
    problems: await checkpointProblems(fm),
    localCaches: job.queryId ? await localStateCaches(db, job.queryId, fm, latestCommittedBatch, opts.workerTimeoutMs ?? DEFAULT_WORKER_TIMEOUT_MS) : [],
  };
}

/** WEIR_WORKER_TIMEOUT_MS's default: a worker silent longer is dead, and its report stale. */
const DEFAULT_WORKER_TIMEOUT_MS = 15_000;

/** A client-supplied path, normalized, or BadRequestError if it could leave the checkpoint. */
function safeCheckpointPath(p: string): string {
  const parts = p.split('/').filter((s) => s !== '' && s !== '.');
  if (p.startsWith('/') || p.includes('\\') || p.includes('\0') || parts.includes('..') || parts.length === 0 || /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(p)) {
    throw new BadRequestError(`path "${p}" is not a file inside the checkpoint; use a relative path such as offsets/0 (list them with GET /api/jobs/<id>/checkpoint).`, { path: 'path' });
  }
  return parts.join('/');
}

export interface CheckpointFile {
  path: string;
  size: number;
  encoding: 'utf8' | 'base64';
  content: string;
  truncated: boolean;
}

/** 404 for anything the engine does not write, or that is reached through a symlink. */
function notServed(p: string): NotFoundError {
  const e = new NotFoundError('checkpoint file', p);
  e.message = `checkpoint file ${p} does not exist. Only the engine's files are served (metadata, offsets/N, commits/N, sources/…, state/…); list them with GET /api/jobs/<id>/checkpoint.`;
  return e;
}

export async function readCheckpointFile(db: PrismaClient, jobId: string, rawPath: string, checkpointRoot: string): Promise<CheckpointFile> {
  const p = safeCheckpointPath(rawPath);
  const job = await findJobOrThrow(db, jobId);
  if (!isCheckpointEntry(p)) throw notServed(p);
  const fm = openCheckpoint(job.checkpointLocation, checkpointRoot);
  let data: Buffer;
  try {
    data = await fm.read(p);
  } catch (e) {
    if (e instanceof FileNotFoundError) throw notServed(p);
    throw e;
  }
  const head = data.subarray(0, MAX_FILE_BYTES);
  const text = head.toString('utf8');
  // State files are binary: hand them out as base64 rather than mangled text.
  const isText = !text.includes('\uFFFD') && ![...text].some((ch) => ch.charCodeAt(0) < 9 || (ch.charCodeAt(0) > 13 && ch.charCodeAt(0) < 32));
  return {
    path: p,
    size: data.length,
    encoding: isText ? 'utf8' : 'base64',
    content: isText ? redactSecrets(text, secretValues(job.spec)) : head.toString('base64'),
    truncated: data.length > MAX_FILE_BYTES,
  };
}
