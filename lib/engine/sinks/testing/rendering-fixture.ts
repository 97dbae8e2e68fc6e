/**
 * One row of every column type that needs rendering (binary, timestamp, date, decimal, a BIGINT
 * past 2^53, a whole DOUBLE, a window, an array, a map and a struct holding timestamps and bytes), and the JSON
 * Spark's writer gives for it: every sink's test writes it and compares what landed.
 */
import type { Row, Schema } from '../../types';

export const RENDERING_SCHEMA: Schema = [
  { name: 'b', type: 'binary' },
  { name: 'ts', type: 'timestamp' },
  { name: 'day', type: 'date' },
  { name: 'price', type: 'decimal', precision: 10, scale: 2 },
  { name: 'id', type: 'long' },
  { name: 'ratio', type: 'double' },
  { name: 'w', type: 'window' },
  { name: 'times', type: 'array', elementType: { name: 'element', type: 'timestamp', nullable: true } },
  { name: 'm', type: 'map', keyType: { name: 'key', type: 'string', nullable: false }, valueType: { name: 'value', type: 'binary', nullable: true } },
  { name: 's', type: 'struct', fields: [{ name: 'at', type: 'timestamp', nullable: true }, { name: 'raw', type: 'binary', nullable: true }] },
];

export const RENDERING_ROW: Row = {
  b: Buffer.from([1, 2]),
  ts: 1_700_000_000_000,
  day: 20_000,
  price: 250n,
  id: 9223372036854775807n,
  ratio: 2,
  w: { start: 0, end: 60_000 },
  times: [0, null],
  m: { k: Buffer.from('hi') },
  s: { at: 1_000, raw: Buffer.from([255]) },
};

/** The row as Spark's JSON writer writes it (a timestamp in UTC with milliseconds, bytes as base64, a DOUBLE as Java's Double.toString). */
export const RENDERED_JSON =
  '{"b":"AQI=","ts":"2023-11-14T22:13:20.000Z","day":"2024-10-04","price":2.50,"id":9223372036854775807,"ratio":2.0,' +
  '"w":{"start":"1970-01-01T00:00:00.000Z","end":"1970-01-01T00:01:00.000Z"},"times":["1970-01-01T00:00:00.000Z",null],' +
  '"m":{"k":"aGk="},"s":{"at":"1970-01-01T00:00:01.000Z","raw":"/w=="}}';
