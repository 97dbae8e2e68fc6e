/**
 * Turns a job's `checkpointLocation` string into a CheckpointFileManager.
 *
 * - a plain path (absolute or relative to the working directory) or `file://…`: local disk;
 * - `memory://<name>`: an in-memory manager shared by name within this process (tests);
 * - other schemes (`s3://bucket/prefix`): whatever registered itself with
 *   `registerCheckpointScheme`: lib/connectors/s3 registers `s3`, so the engine never loads the
 *   AWS SDK.
 *
 * Creating a manager never touches storage, so validation can call this freely.
 */
import { fileURLToPath } from 'node:url';
import { ValidationError } from '../errors';
import type { CheckpointFileManager } from './checkpoint-file-manager';
import { InMemoryCheckpointFileManager } from './in-memory-checkpoint-file-manager';
import { LocalCheckpointFileManager } from './local-checkpoint-file-manager';

export type CheckpointSchemeFactory = (location: string, url: URL) => CheckpointFileManager;

const schemes = new Map<string, CheckpointSchemeFactory>();
const memoryStores = new Map<string, Map<string, Buffer>>();

export function registerCheckpointScheme(scheme: string, factory: CheckpointSchemeFactory): void {
  schemes.set(scheme.replace(/:$/, '').toLowerCase(), factory);
}

function checkpointSchemes(): string[] {
  return ['file', 'memory', ...schemes.keys()].sort();
}

export function checkpointFileManagerFor(location: string): CheckpointFileManager {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(location);
  if (!m) return new LocalCheckpointFileManager(location);
  const scheme = m[1].toLowerCase();
  if (scheme === 'file') return new LocalCheckpointFileManager(fileURLToPath(location));
  if (scheme === 'memory') {
    const name = location.slice('memory://'.length);
    let store = memoryStores.get(name);
    if (!store) memoryStores.set(name, (store = new Map()));
    return new InMemoryCheckpointFileManager(store, name);
  }
  const factory = schemes.get(scheme);
  if (!factory) {
    throw new ValidationError(
      `checkpointLocation scheme "${scheme}://" is not supported here; use a path, file://, or one of: ${checkpointSchemes().join(', ')}.`,
      { path: 'checkpointLocation' },
    );
  }
  return factory(location, new URL(location));
}
