/**
 * The entries the engine writes in a checkpoint, and nothing else: what the control plane may
 * serve from a checkpoint or delete from it. A directory named as a checkpoint can hold other
 * files (it may not even be a checkpoint); those are never read out or removed.
 *
 * - `metadata` (stream-metadata.ts)
 * - `offsets/N`, `commits/N` (offset-seq-log.ts, commit-log.ts), `progress/N` (progress-log.ts)
 * - `sources/<i>/N` and `sources/<i>/N.compact` (each source's log: files-source, rate-source)
 * - `state/<op>/<partition>/<V>.delta|changelog|snapshot`, the same in a named store's directory
 *   `state/<op>/<partition>/<store>/` (a stream-stream join's four stores), and
 *   `state/<op>/_metadata/schema` (state/)
 * The local file manager's scratch names (`.<name>.<pid>.<n>.tmp`, `.<name>.claim`) next to any
 * of these are the engine's too (a write that died half-way), and go with a reset.
 */

const ENTRY = [
  /^metadata$/,
  /^(offsets|commits|progress)\/\d+$/,
  /^sources\/\d+\/\d+(\.compact)?$/,
  /^state\/\d+\/\d+\/([A-Za-z][\w-]*\/)?\d+\.(delta|changelog|snapshot)$/,
  /^state\/\d+\/_metadata\/schema$/,
];

const DIRECTORY = [/^(offsets|commits|progress|sources|state)$/, /^sources\/\d+$/, /^state\/\d+$/, /^state\/\d+\/\d+$/, /^state\/\d+\/\d+\/[A-Za-z][\w-]*$/, /^state\/\d+\/_metadata$/];

/** Whether `p` (relative, '/'-separated) is a file the engine writes in a checkpoint. */
export function isCheckpointEntry(p: string): boolean {
  return ENTRY.some((r) => r.test(p));
}

/** Whether `p` is a directory the engine creates in a checkpoint (one that holds entries). */
export function isCheckpointDirectory(p: string): boolean {
  return DIRECTORY.some((r) => r.test(p));
}

/**
 * Whether `p` is the local file manager's scratch for an engine entry: a temp file of a write, or
 * a create-if-absent claim (a directory).
 */
export function isCheckpointScratch(p: string): boolean {
  const i = p.lastIndexOf('/');
  const dir = i < 0 ? '' : p.slice(0, i);
  const m = /^\.(.+?)(?:\.\d+\.\d+\.tmp|\.claim)$/.exec(p.slice(i + 1));
  return m !== null && isCheckpointEntry(dir ? `${dir}/${m[1]}` : m[1]);
}
