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
import { assertSameParallelism, assertSameSources } from './populate-start-offsets';
import { relationsOf } from './query-runtime';

export interface RestartCompatibility {
  /** False: the checkpoint has no batch yet, so any spec starts on it. */
  checkpointHasBatches: boolean;
  /** Stateful operators whose stored state the new plan matches. */
  verifiedOperators: number[];
}

export async function checkRestartCompatibility(spec: JobSpec, fm: CheckpointFileManager): Promise<RestartCompatibility> {
  const latest = await new OffsetSeqLog(fm).getLatest();
  if (!latest) return { checkpointHasBatches: false, verifiedOperators: [] };
  const identities = spec.sources.flatMap((s, i) => {
    const def = getSourceDefinition(s.type);
    if (!def) return [];
    const source = def.create(s.options as never, {
      name: s.name,
      schema: s.schema,
      eventTime: s.eventTime,
      checkpoint: fm,
      metadataPath: `sources/${i}`,
      clock: new SystemClock(),
      queryId: 'restart-compatibility-check',
    });
    return [{ description: source.description, replayable: source.replayable }];
  });
  if (identities.length === spec.sources.length) assertSameSources(latest.value, `offsets/${latest.batchId}`, identities, fm.description);
  assertSameParallelism(latest.value, `offsets/${latest.batchId}`, spec.parallelism, fm.description);
  const query = compileStreamingQuery(spec.sql, relationsOf(spec), { outputMode: spec.outputMode, dedup: spec.dedup, staticTables: spec.staticTables, numPartitions: spec.parallelism });
  if (!query.stateful) return { checkpointHasBatches: true, verifiedOperators: [] };
  const r = await checkStateCompatibility(fm, query.statefulOperators, { type: spec.source.type, options: spec.source.options }, { dryRun: true, provider: stateStoreProviderOf(spec) });
  return { checkpointHasBatches: true, verifiedOperators: r.verified };
}
