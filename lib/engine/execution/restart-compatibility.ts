/**
 * Would this spec restart on this checkpoint? The checks a start runs before batch 0 (the
 * recorded source, populate-start-offsets.ts; the stateful plan against the stored state
 * schemas, state-schema-compatibility-checker.ts), run read-only, so that an edit of a job with
 * a checkpoint can be refused when it is saved rather than fail at its next start.
 *
 * Throws IncompatibleQueryChangeError naming the change; resolves with what it checked. Nothing
 * is written, no connection is opened: the source is built only for its description.
 */
import type { CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';
import { OffsetSeqLog } from '../checkpoint/offset-seq-log';
import { SystemClock } from '../clock';
import { compileStreamingQuery } from '../query/streaming-query';
import { stateStoreProviderOf, type JobSpec } from '../spec/job-spec';
import { getSourceDefinition } from '../sources/index';
import { checkStateCompatibility } from '../state/state-schema-compatibility-checker';
import { assertSameSource } from './populate-start-offsets';
import { relationOf } from './query-runtime';

export interface RestartCompatibility {
  /** False: the checkpoint has no batch yet, so any spec starts on it. */
  checkpointHasBatches: boolean;
  /** Stateful operators whose stored state the new plan matches. */
  verifiedOperators: number[];
}

export async function checkRestartCompatibility(spec: JobSpec, fm: CheckpointFileManager): Promise<RestartCompatibility> {
  const latest = await new OffsetSeqLog(fm).getLatest();
  if (!latest) return { checkpointHasBatches: false, verifiedOperators: [] };
  const def = getSourceDefinition(spec.source.type);
  if (def) {
    const source = def.create(spec.source.options as never, {
      name: spec.source.name,
      schema: spec.source.schema,
      eventTime: spec.source.eventTime,
      checkpoint: fm,
      metadataPath: 'sources/0',
      clock: new SystemClock(),
      queryId: 'restart-compatibility-check',
    });
    assertSameSource(latest.value, { sourceDescription: source.description, sourceIsReplayable: source.replayable, checkpointDescription: fm.description });
  }
  const query = compileStreamingQuery(spec.sql, relationOf(spec), { outputMode: spec.outputMode, dedup: spec.dedup, staticTables: spec.staticTables });
  if (!query.stateful) return { checkpointHasBatches: true, verifiedOperators: [] };
  const r = await checkStateCompatibility(fm, query.statefulOperators, { type: spec.source.type, options: spec.source.options }, { dryRun: true, provider: stateStoreProviderOf(spec) });
  return { checkpointHasBatches: true, verifiedOperators: r.verified };
}
