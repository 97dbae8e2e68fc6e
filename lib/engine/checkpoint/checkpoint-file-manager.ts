/**
 * CheckpointFileManager: the storage port under the checkpoint (offsets/, commits/, metadata,
 * state/, sources/). Paths are relative to the checkpoint root and use '/'.
 *
 * Contract (every implementation passes checkpoint-file-manager.contract.ts):
 * - `createAtomic(path, data)` makes the whole file visible at once or not at all (temp file,
 *   fsync, rename on local disk; a conditional put on an object store). With
 *   `overwrite: false` it throws FileAlreadyExistsError when the file exists: that is how a
 *   second runner on the same checkpoint is detected, so it must never overwrite.
 * - `read` throws FileNotFoundError for a missing file.
 * - `list(dir)` returns the names (not paths) of the direct children of `dir`, sorted; a missing
 *   dir lists as [].
 * - `delete` of a missing file is not an error.
 */
export interface CheckpointFileManager {
  /** Human description, e.g. `file:///var/weir/cp/job-1` or `s3://bucket/prefix`. */
  readonly description: string;
  /**
   * Whether this storage outlives the machine (a shared volume or an object store does, local
   * disk does not): one of the three signatures of the exactly-once contract.
   */
  readonly outlivesMachine: boolean;
  /**
   * `sync: false` publishes the file as atomically but without forcing it to disk first (no
   * fsync on local disk): for files nothing reads after the machine restarts, as a stage's
   * shuffle blocks (Spark's spark.shuffle.sync, false by default).
   */
  createAtomic(path: string, data: Uint8Array | string, opts?: { overwrite?: boolean; sync?: boolean }): Promise<void>;
  read(path: string): Promise<Buffer>;
  exists(path: string): Promise<boolean>;
  list(dir: string): Promise<string[]>;
  delete(path: string): Promise<void>;
  /**
   * The file's path on this machine's disk, where there is one: a worker thread (state
   * snapshots) reads it there instead of through this thread's event loop and heap.
   */
  localPath?(path: string): string;
  /** Size in bytes of a file, or of everything under a directory prefix. */
  size?(path: string): Promise<number>;
}

export class FileAlreadyExistsError extends Error {
  readonly code = 'FILE_ALREADY_EXISTS';
  constructor(readonly path: string) {
    super(`${path} already exists`);
  }
}

export class FileNotFoundError extends Error {
  readonly code = 'FILE_NOT_FOUND';
  constructor(readonly path: string) {
    super(`${path} does not exist`);
  }
}
