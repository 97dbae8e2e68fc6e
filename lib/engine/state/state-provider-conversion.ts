/**
 * Moves a checkpoint's state from one state store provider to the other (`weir checkpoint
 * convert-state`): both keep the same records in the same files but for the per-version change
 * file's name and kind (`<v>.delta` for hdfs, `<v>.changelog` for lmdb; snapshots are the same),
 * so a conversion rewrites the change files and records the new provider in each operator's
 * schema file. Meant for a copy (a savepoint, an exported checkpoint) restored as a new job: the
 * job that wrote the state must not be running on it.
 *
 * Crash safety: each new file is written (atomically) before its old twin is deleted, and the
 * schema files, which say which provider the state belongs to, are rewritten last. An interrupted
 * conversion leaves the state refused by the new provider and incomplete for the old one; running
 * it again finishes it.
 */
import type { CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';
import { CorruptCheckpointError } from '../errors';
import { DEFAULT_STATE_STORE_PROVIDER, type StateStoreProviderName } from '../spec/job-spec';
import { listStateFiles, storeDirs } from './state-checkpoint-files';
import { asKind, stateFileName, type StateFileKind } from './state-file-format';
import { schemaFilePath, StateSchemaCompatibilityChecker } from './state-schema-compatibility-checker';

/** The change file each provider writes per version. */
export const CHANGE_FILE: Record<StateStoreProviderName, StateFileKind> = { hdfs: 'delta', lmdb: 'changelog' };

export interface StateConversion {
  /** Operators whose state now belongs to `to` (already there or converted). */
  operators: number[];
  /** Change files rewritten. */
  files: number;
}

export async function convertStateProvider(fm: CheckpointFileManager, to: StateStoreProviderName): Promise<StateConversion> {
  const checker = new StateSchemaCompatibilityChecker(fm);
  const want = CHANGE_FILE[to];
  const result: StateConversion = { operators: [], files: 0 };
  const ops = (await fm.list('state')).filter((n) => /^\d+$/.test(n)).map(Number).sort((a, b) => a - b);
  const schemas = [];
  for (const op of ops) {
    const schema = await checker.stored(op);
    if (!schema) throw new CorruptCheckpointError(schemaFilePath(op), 'no state schema says which operator and provider wrote this state; it cannot be converted');
    schemas.push(schema);
    for (const part of (await fm.list(`state/${op}`)).filter((n) => /^\d+$/.test(n))) {
      // A join's partition holds one directory per named store, each with its own files.
      for (const dir of await storeDirs(fm, `state/${op}/${part}`)) {
        for (const f of await listStateFiles(fm, dir)) {
          if (f.kind === 'snapshot' || f.kind === want) continue;
          const from = `${dir}/${f.name}`;
          await fm.createAtomic(`${dir}/${stateFileName(f.version, want)}`, asKind(from, await fm.read(from), f, want), { overwrite: true });
          await fm.delete(from);
          result.files++;
        }
      }
    }
  }
  for (const schema of schemas) {
    if ((schema.stateStoreProvider ?? DEFAULT_STATE_STORE_PROVIDER) !== to) {
      await fm.createAtomic(schemaFilePath(schema.operatorId), JSON.stringify({ ...schema, stateStoreProvider: to }, null, 1), { overwrite: true });
    }
    result.operators.push(schema.operatorId);
  }
  return result;
}
