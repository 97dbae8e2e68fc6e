/**
 * Spark's misc functions (group misc_funcs) that Weir registers here: from_avro and to_avro
 * (avro-functions.ts does the work), raise_error and assert_true, the session's facts
 * (current_user, current_database, version…), the row's file (input_file_name,
 * input_file_block_start, input_file_block_length), and the functions Weir refuses.
 */
import { compileFromAvro, compileToAvro } from './avro-functions';
import { simpleTypeString } from './data-types';
import { RecordExpressionError } from '../errors';
import { exprToString, METADATA_COLUMN } from './expression';
import { compiledByHook } from './function-args';
import { DEFAULT_CURRENT_USER, type FunctionDef, type SpecialFormDef } from './function-types';
import { WEIR_VERSION } from '../version';
import { FILE_METADATA_COLUMN, type Field, type FileMetadata } from '../types';

export const MISC_FUNCTIONS: Record<string, FunctionDef> = {
  // Avro (avro-functions.ts): typed by their schema literals.
  from_avro: { min: 2, max: 3, type: () => 'struct', impl: compiledByHook, compile: compileFromAvro },
  to_avro: { min: 1, max: 2, type: () => 'binary', impl: compiledByHook, compile: compileToAvro },
  // Spark's RaiseError: the row fails with the message, as any expression error does (the batch
  // fails, or under onBadRecord "dead-letter" the row is set aside with it), so a query can
  // refuse the rows it must not write: CASE WHEN amount < 0 THEN raise_error('…') ELSE amount END.
  raise_error: {
    min: 1, max: 1, nullIntolerant: false, numbersAsText: true,
    type: (a) => (a[0] === 'string' || a[0] === 'null' ? 'null' : `takes a message (a STRING), got ${a[0]}`),
    impl: ([message]) => {
      throw new RecordExpressionError(`[USER_RAISED_EXCEPTION] ${message === null ? 'null' : String(message)}`, { function: 'raise_error()', errorClass: 'USER_RAISED_EXCEPTION' });
    },
  },
  // Spark's AssertTrue, a RuntimeReplaceable: IF(cond, NULL, raise_error(message)), a NULL condition
  // failing too; the message defaults to Spark's `'<cond>' is not true!`.
  assert_true: {
    min: 1, max: 2, type: () => 'null', impl: compiledByHook,
    replacement: (e) => ({
      kind: 'case',
      branches: [{ when: e.args[0], then: { kind: 'literal', value: null, type: 'null' } }],
      otherwise: { kind: 'call', name: 'raise_error', args: [e.args[1] ?? { kind: 'literal', value: `'${exprToString(e.args[0])}' is not true!`, type: 'string' }], pos: e.pos },
      pos: e.pos,
    }),
  },
  // Spark's CurrentUser (user and session_user are its other names): whom the query runs as.
  current_user: { min: 0, max: 0, type: () => 'string', impl: (_a, ctx) => ctx.currentUser ?? DEFAULT_CURRENT_USER },
  // Spark's CurrentDatabase and CurrentCatalog: Weir has one namespace, named as Spark's default.
  current_database: { min: 0, max: 0, type: () => 'string', impl: () => 'default' },
  current_catalog: { min: 0, max: 0, type: () => 'string', impl: () => 'spark_catalog' },
  // Spark's SparkVersion: "<release> <git revision>"; Weir's release, and no revision known to the engine.
  version: { min: 0, max: 0, type: () => 'string', impl: () => `${WEIR_VERSION} unknown` },
};
MISC_FUNCTIONS.user = MISC_FUNCTIONS.current_user;
MISC_FUNCTIONS.session_user = MISC_FUNCTIONS.current_user;
// 3.4's name for current_database.
MISC_FUNCTIONS.current_schema = MISC_FUNCTIONS.current_database;

/** Spark's `_metadata` fields of a JSON or CSV file (a Parquet file's row_index is not kept). */
const FILE_METADATA_FIELDS: Field[] = [
  { name: 'file_path', type: 'string', nullable: false },
  { name: 'file_name', type: 'string', nullable: false },
  { name: 'file_size', type: 'long', nullable: false },
  { name: 'file_block_start', type: 'long', nullable: false },
  { name: 'file_block_length', type: 'long', nullable: false },
  { name: 'file_modification_time', type: 'timestamp', nullable: false },
];

/** A function of the row's file (its FILE_METADATA_COLUMN), `otherwise` for a row of no file. */
function ofRowFile(name: string, type: 'string' | 'long', field: (m: FileMetadata) => unknown, otherwise: unknown): SpecialFormDef {
  return {
    min: 0, max: 0,
    compile: (e, c) => {
      if (e.args.length !== 0) c.fail(e, `${name}() takes no arguments, got ${e.args.length}`);
      return { type, eval: (row) => { const m = row[FILE_METADATA_COLUMN] as FileMetadata | undefined; return m ? field(m) : otherwise; } };
    },
  };
}

/** The functions that read the row's file: a query calling one has its file sources mark each row with it. */
export const FILE_FUNCTIONS: readonly string[] = ['input_file_name', 'input_file_block_start', 'input_file_block_length', METADATA_COLUMN];

/** typeof(x): the text of x's type, known at analysis (Spark's TypeOf); input_file_name() and the like: the row's file. */
export const MISC_SPECIAL_FORMS: Record<string, SpecialFormDef> = {
  // Spark's InputFileName: the URI of the file the row was read from, '' for a row of another
  // source or one an aggregation made (Spark's is '' past a shuffle). It reads the row's hidden
  // column, which a file source sets when the query calls this (SourceContext.fileMetadata) and
  // the projections below the call carry (streaming-query.ts, planPhysical).
  input_file_name: ofRowFile('input_file_name', 'string', (m) => m.file_path, ''),
  // Spark's InputFileBlockStart and InputFileBlockLength: the split of the file the row was read
  // from (Weir reads a file whole: 0 and its size), -1 for a row of no file, as Spark's.
  input_file_block_start: ofRowFile('input_file_block_start', 'long', (m) => m.file_block_start, -1),
  input_file_block_length: ofRowFile('input_file_block_length', 'long', (m) => m.file_block_length, -1),
  // Spark's hidden `_metadata` column of a file source (the builder makes a call of the name when
  // no column has it, on a query over a files source): the struct of the row's file, NULL for a
  // row another source of the query gave (a UNION ALL of it with a files source).
  [METADATA_COLUMN]: {
    min: 0, max: 0,
    compile: () => ({ type: 'struct', fields: FILE_METADATA_FIELDS, eval: (row) => (row[FILE_METADATA_COLUMN] as FileMetadata | undefined) ?? null }),
  },
  typeof: {
    min: 1, max: 1,
    compile: (e, c) => {
      if (e.args.length !== 1) c.fail(e, `typeof() takes one argument, got ${e.args.length}`);
      const text = simpleTypeString(c.compile(e.args[0]));
      return { type: 'string', eval: () => text };
    },
  },
};

/** Spark's UNRESOLVED_ROUTINE sentence, which Weir's own follows. */
export const cannotResolveRoutine = (name: string): string =>
  `Cannot resolve routine \`${name.replace(/`/g, '``')}\` on search path [\`system\`.\`builtin\`, \`system\`.\`session\`, \`spark_catalog\`.\`default\`].`;

/** A Spark function Weir does not have: Spark's UNRESOLVED_ROUTINE, with why and what to use. */
const unavailable = (name: string, why: string) => [name, { errorClass: 'UNRESOLVED_ROUTINE', message: `${cannotResolveRoutine(name)} ${why}` }] as const;

/**
 * Functions Weir refuses, with why: those Spark refuses on streaming DataFrames, those whose
 * replay would differ, and those of Spark's that cannot run without a JVM or that Weir does not
 * implement (UNRESOLVED_ROUTINE, with the reason and what to use instead).
 */
export const REFUSED_FUNCTIONS: Record<string, { message: string; errorClass?: string }> = {
  monotonically_increasing_id: { message: 'Expression(s): monotonically_increasing_id() is not supported with streaming DataFrames/Datasets', errorClass: '_LEGACY_ERROR_TEMP_3102' },
  ...Object.fromEntries(['reflect', 'java_method', 'try_reflect'].map((f) => unavailable(f,
    `${f}() calls a Java method by reflection (Spark's CallMethodViaReflection), which needs a JVM: Weir runs none, so it has no reflect(), java_method() or try_reflect(). Use the SQL function that computes the value (docs/sql.md lists them), or compute it before the rows reach the source`))),
  ...Object.fromEntries([unavailable('spark_partition_id',
    "spark_partition_id() is the partition of Spark's task that computes the row, which Weir's task layout (one task per source or state partition, with parallelism) does not give as Spark does, so Weir has no spark_partition_id(). To spread rows over buckets use pmod(hash(…), n)")]),
};
