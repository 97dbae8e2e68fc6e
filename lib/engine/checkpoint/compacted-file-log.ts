/**
 * The file layout shared by the logs that compact every N batches (the files source's
 * `sources/0/` log and the files sink's `_weir_metadata/`, after Spark's CompactibleFileStreamLog):
 * delta files named `N`, compaction files named `N.compact`, each `v1` then one JSON object per line.
 */
import { parseVersionLine } from './batch-metadata-log';
import { FileNotFoundError, type CheckpointFileManager } from './checkpoint-file-manager';

const COMPACT = /^(\d+)\.compact$/;
const DELTA = /^(\d+)$/;

/** The batch ids of the delta and compaction files in `dir`, ascending. */
export async function listCompactedLog(fm: CheckpointFileManager, dir: string): Promise<{ deltas: number[]; compacts: number[] }> {
  const deltas: number[] = [];
  const compacts: number[] = [];
  for (const n of await fm.list(dir)) {
    const c = COMPACT.exec(n);
    if (c) compacts.push(Number(c[1]));
    else if (DELTA.test(n)) deltas.push(Number(n));
  }
  return { deltas: deltas.sort((a, b) => a - b), compacts: compacts.sort((a, b) => a - b) };
}

/** The JSON lines of one log file after its `v1` header, or undefined if it does not exist. */
export async function readLogLines(fm: CheckpointFileManager, path: string): Promise<Record<string, unknown>[] | undefined> {
  let text: string;
  try {
    text = (await fm.read(path)).toString('utf8');
  } catch (e) {
    if (e instanceof FileNotFoundError) return undefined;
    throw e;
  }
  const lines = text.split('\n');
  parseVersionLine(lines[0], 1, path);
  return lines.slice(1).filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
}
