/**
 * Values that flow through the engine.
 *
 * Inside the engine a timestamp is epoch milliseconds (a number); sinks render timestamps as
 * ISO-8601 strings using the output schema. A window is `{ start, end }` in epoch ms. A binary
 * value (Kafka's key and value) is a Buffer; outputs that have no bytes type show it as base64.
 * A decimal is its unscaled bigint, with its precision and scale in the Field. A date is its
 * number of days since 1970-01-01 (query/date.ts); sinks render it as `yyyy-MM-dd`. An array
 * (Spark's ArrayType) is a JS array; a map (MapType) a plain object from the key's text to the
 * value (query/map-functions.ts says why); outputs write both as JSON.
 */
export type ColumnType = 'long' | 'double' | 'string' | 'boolean' | 'timestamp' | 'binary';

/**
 * Spark's BinaryType (Kafka's key and value): a Uint8Array (a Buffer is one). CAST(x AS STRING)
 * decodes it as UTF-8, as Spark does.
 */
export type BinaryValue = Uint8Array;

export interface Field {
  name: string;
  /**
   * `struct`: Spark's StructType, a plain object whose fields are `fields` (from_json's result);
   * `window` is the struct { start, end } of timestamps a window aggregation outputs.
   */
  type: ColumnType | 'decimal' | 'date' | 'day_time_interval' | 'year_month_interval' | 'calendar_interval' | 'variant' | 'window' | 'struct' | 'array' | 'map' | 'unknown';
  nullable?: boolean;
  /**
   * A `long`'s width when it is one of Spark's narrower integral types: INT 32, SMALLINT 16,
   * TINYINT 8 (query/long.ts); none for a BIGINT.
   */
  integral?: 8 | 16 | 32;
  /** Set on a `double` that is Spark's FLOAT (REAL): its values are single-precision (query/float.ts). */
  float32?: true;
  /**
   * Set on a `timestamp` that is Spark's TIMESTAMP_NTZ (a wall-clock time without a zone): its
   * value is the epoch milliseconds of that wall-clock time read as UTC.
   */
  ntz?: true;
  /**
   * Set on a struct field made of a NULL literal (`named_struct('b', NULL)`), and on map()'s key
   * and value, Spark's VOID: kept as a STRING, it widens to the other side's type beside another
   * struct or map (query/expression-compiler.ts).
   */
  void?: true;
  /** A `decimal`'s precision and scale (its value is the unscaled bigint: query/decimal.ts). */
  precision?: number;
  scale?: number;
  /**
   * An interval's unit range: DAY 0 … SECOND 3, or YEAR 0, MONTH 1 (query/interval-utils.ts;
   * a day-time interval's value is its microseconds, a year-month interval's its months).
   */
  interval?: { start: number; end: number };
  /** The fields of a `struct`. */
  fields?: Field[];
  /** An `array`'s element type (its name is `element`, as Spark's DDL prints it). */
  elementType?: Field;
  /** A `map`'s key and value types (named `key` and `value`). */
  keyType?: Field;
  valueType?: Field;
  /**
   * Set on the watermarked event-time column, and kept by whatever passes that column on under
   * another name (an alias, a subquery, a join side): Spark's `spark.watermarkDelayMs` metadata
   * (EventTimeWatermark.delayKey), by which the planner knows a grouping key bounds the state.
   */
  watermarkDelayMs?: number;
}

export type Schema = Field[];

export type Row = Record<string, unknown>;

/**
 * A row's hidden column: the file it was read from (Spark's file metadata, `_metadata`), one
 * object shared by the rows of a file. A file source sets it only when the query reads it
 * (SourceContext.fileMetadata: input_file_name() or `_metadata`); no schema lists it, so a
 * projection drops it unless an operator above it reads it (planPhysical's `fileAbove`), and it
 * never reaches a sink.
 */
export const FILE_METADATA_COLUMN = '\u0000_metadata';

/** Spark's `_metadata` struct of a file source's row (FileFormat.BASE_METADATA_FIELDS). */
export interface FileMetadata {
  /** The file's `file:` URI (as input_file_name() returns it). */
  file_path: string;
  file_name: string;
  file_size: number;
  /** Where the split of the file this row came from starts, and its length: Weir reads a whole file. */
  file_block_start: number;
  file_block_length: number;
  /** Epoch milliseconds (a TIMESTAMP). */
  file_modification_time: number;
}

/** A source offset: any JSON value; the source alone interprets it. */
export type Offset = unknown;

export type OutputMode = 'append' | 'update' | 'complete';

export type Guarantee = 'exactly-once' | 'at-least-once' | 'at-most-once';
