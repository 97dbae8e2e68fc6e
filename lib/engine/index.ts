/**
 * The engine's public API. The control plane (lib/server, worker) and the CLI import from here.
 */
export * from './types';
export * from './errors';
export * from './clock';
export * from './contract';
export * from './progress';
export { validateJob, type ValidateJobResult, type ValidateJobOptions } from './spec/validate-job';
export * from './outbound/index';
export { parseJobSpec, canonicalJobSpec, sourceSchemaOf, JobSpecSchema, STATE_STORE_PROVIDERS, stateStoreProviderOf, type JobSpec, type SpecIssue, type StateStoreProviderName, type TriggerSpec } from './spec/job-spec';
export { parseDuration } from './spec/duration';
export {
  confineSpecPaths,
  isInside,
  overlapOf,
  realPathOf,
  resolvePathField,
  specPathFields,
  type ConfinedSpec,
  type PathIssue,
  type PathKind,
  type PathRoots,
  type SpecPathField,
} from './spec/path-roots';
export { isCheckpointDirectory, isCheckpointEntry, isCheckpointScratch } from './checkpoint/checkpoint-layout';
export { MicroBatchExecution, type MicroBatchExecutionOptions, type EngineLogEvent, type QueryIdleEvent, DEFAULT_NO_DATA_PROGRESS_EVENT_INTERVAL_MS } from './execution/micro-batch-execution';
export { LocalTaskScheduler, type MapOutput, type MapStatus, type MapTask, type ReduceTask, type TaskResult, type TaskRunner, type TaskScheduler } from './execution/task-scheduler';
export { Executor, type ExecutorQuery } from './execution/executor';
export { createSink } from './execution/query-runtime';
export { checkRestartCompatibility, type RestartCompatibility } from './execution/restart-compatibility';
export { previewQuery, previewRecentRecords, MAX_PREVIEW_SAMPLE_ROWS, PREVIEW_TIMEOUT_MS, type QueryPreview } from './execution/query-preview';
export { CRASH_POINTS, isCrashPoint, type CrashPointName, type CrashPlan } from './execution/crash-points';
export { compileStreamingQuery, type CompiledStreamingQuery } from './query/streaming-query';
export { warmUpSparkParser } from './query/parser/ast-builder';
export { parseJson } from './json-text';
export { sqlFunctionCatalog, type SqlFunctionInfo } from './query/function-catalog';
export { SqlValidationError } from './query/sql-error';
export { simpleTypeString, sparkColumns, type SparkColumn } from './query/data-types';
export type { LogicalPlan } from './query/logical-plan';
export type { PhysicalOperator, StatefulOperator, OperatorContext, StateOperatorProgress } from './operators/physical-operator';
export type { CheckpointFileManager } from './checkpoint/checkpoint-file-manager';
export { FileAlreadyExistsError, FileNotFoundError } from './checkpoint/checkpoint-file-manager';
export { LocalCheckpointFileManager } from './checkpoint/local-checkpoint-file-manager';
export { InMemoryCheckpointFileManager } from './checkpoint/in-memory-checkpoint-file-manager';
export { checkpointFileManagerFor, registerCheckpointScheme } from './checkpoint/checkpoint-location';
export { OffsetSeqLog, type OffsetSeq, type OffsetSeqMetadata } from './checkpoint/offset-seq-log';
export { CommitLog, type CommitMetadata } from './checkpoint/commit-log';
export { ProgressLog, readRecentProgress } from './checkpoint/progress-log';
export { readStreamMetadata, getOrCreateStreamMetadata } from './checkpoint/stream-metadata';
export { inspectCheckpoint, type CheckpointInspection } from './checkpoint/checkpoint-inspector';
export { pendingBatchOf } from './checkpoint/pending-batch';
export { checkpointProblems, assertCheckpointIntact, type CheckpointProblem } from './checkpoint/checkpoint-integrity';
export * from './sources/index';
export * from './sinks/index';
export type { Source, SourceBatch, BadRecord, ReadLimit } from './sources/source';
export type { Sink, SinkSignature, SinkBatchContext, SinkCommitProtocol, SinkTaskContext } from './sinks/sink';
export { MemoryStream } from './sources/memory-source';
export { MemorySinkTable } from './sinks/memory-sink';
export { readCommittedRows } from './sinks/files-sink';
// Stateful side: state store port and provider, restart compatibility, state inspection, analyzer.
export type { StateStore, StateStoreProvider, StateStoreId, StateStoreConf, StateStoreMetrics } from './state/state-store';
export { stateStoreDir, partitionForKey } from './state/state-store';
export { FileBackedStateStoreProvider } from './state/file-backed-state-store-provider';
export { convertStateProvider } from './state/state-provider-conversion';
export { repartitionState, RepartitionRefusedError } from './execution/state-repartition';
export { StateSchemaCompatibilityChecker, checkStateCompatibility, type StatefulOperatorDescriptor } from './state/state-schema-compatibility-checker';
export { inspectState, type StateOperatorInspection, type StatePartitionInspection } from './state/state-inspector';
export { listLocalStateCaches, predictCacheLoad, removeLocalStateCache, type CacheLoadPrediction, type LocalQueryCache, type LocalStoreCache } from './state/lmdb-local-cache';
export { analyzeStreamingPlan, explainStateful, type AnalyzerWarning, type StreamingAnalysis } from './query/streaming-checker';
export type { StaticTableSpec } from './operators/stream-static-join';
// What connectors build on (lib/connectors imports the engine only through this file; lint
// enforces it): value conversion for records read from another system, Spark's JSON rendering
// for sinks, Avro, the static-table reader port, linear-time regexes.
export type { RecentRecords, RecentRecordsLimit } from './sources/source';
export { convertObject, convertValue, parseJsonRecord } from './sources/value-conversion';
export { exactKeys, jsonWriter, renderDate, renderDecimal, renderValue } from './sinks/row-rendering';
export { isoTimestamp } from './query/timestamp-micros';
export { stringifyJson, stringifyRow } from './json-text';
export { AvroCodec, AvroError } from './avro/avro-codec';
export { describeStaticTable, registerStaticTableReader } from './operators/stream-static-join';
export { compileRegex } from './query/regex';
