/**
 * Values that flow through the engine.
 *
 * Inside the engine a timestamp is epoch milliseconds (a number); sinks render timestamps as
 * ISO-8601 strings using the output schema. A window is `{ start, end }` in epoch ms. A binary
 * value (Kafka's key and value) is a Buffer; outputs that have no bytes type show it as base64.
 */
export type ColumnType = 'long' | 'double' | 'string' | 'boolean' | 'timestamp' | 'binary';

export interface Field {
  name: string;
  type: ColumnType | 'window' | 'unknown';
  nullable?: boolean;
}

export type Schema = Field[];

export type Row = Record<string, unknown>;

/** A source offset: any JSON value; the source alone interprets it. */
export type Offset = unknown;

export type OutputMode = 'append' | 'update' | 'complete';

export type Guarantee = 'exactly-once' | 'at-least-once' | 'at-most-once';
