/**
 * Every Weir type through Parquet: written by the sink's encoder and read by DuckDB (the
 * Parquet physical and logical type Spark writes, and the value), read back by the source's
 * decoder; and files DuckDB writes read by the decoder.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useDuckDB } from '../query/testing/duckdb';
import type { Field, Row, Schema } from '../types';
import { readParquetRows } from './parquet-reader';
import { encodeParquet } from './parquet-writer';
import { timestampOf } from '../query/timestamp-micros';

const duck = useDuckDB();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'weir-parquet-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function query(sql: string): Promise<Record<string, unknown>[]> {
  return (await duck().runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
}

interface TypeCase {
  field: Field;
  values: unknown[];
  /** parquet_schema(): the leaf's physical type, and the column's logical type as DuckDB prints it. */
  physical: string;
  logical: RegExp;
  /** The values as DuckDB's JSON rows show them. */
  duck: unknown[];
}

const ts = Date.UTC(2024, 0, 2, 3, 4, 5, 678);
/** A timestamp with microseconds, and one before 1970 (its fraction counts from the floored millisecond). */
const tsMicros = timestampOf(ts, 901);
const beforeEpoch = timestampOf(-1, 1);
const CASES: TypeCase[] = [
  { field: { name: 'c', type: 'long' }, values: [1, -9007199254740991, null], physical: 'INT64', logical: /^$/, duck: ['1', '-9007199254740991', null] },
  // Past 2^53 a BIGINT is a bigint, every digit kept (query/long.ts).
  { field: { name: 'c', type: 'long' }, values: [9223372036854775807n, -9007199254740993n, null], physical: 'INT64', logical: /^$/, duck: ['9223372036854775807', '-9007199254740993', null] },
  { field: { name: 'c', type: 'double' }, values: [1.5, -0, null], physical: 'DOUBLE', logical: /^$/, duck: [1.5, -0, null] },
  // FLOAT as Parquet's FLOAT: its floats stored exactly (0.1F is 0.10000000149011612 as a double).
  { field: { name: 'c', type: 'double', float32: true }, values: [Math.fround(0.1), -0, null, Math.fround(3.4e38)], physical: 'FLOAT', logical: /^$/, duck: [Math.fround(0.1), -0, null, Math.fround(3.4e38)] },
  { field: { name: 'c', type: 'string' }, values: ['Zoë', '', null], physical: 'BYTE_ARRAY', logical: /StringType/, duck: ['Zoë', '', null] },
  { field: { name: 'c', type: 'boolean' }, values: [true, false, null], physical: 'BOOLEAN', logical: /^$/, duck: [true, false, null] },
  { field: { name: 'c', type: 'binary' }, values: [Buffer.from([0, 255]), Buffer.alloc(0), null], physical: 'BYTE_ARRAY', logical: /^$/, duck: ['\\x00\\xFF', '', null] },
  { field: { name: 'c', type: 'timestamp' }, values: [ts, -1, null, tsMicros, beforeEpoch], physical: 'INT64', logical: /TimestampType\(isAdjustedToUTC=1, .*MICROS=MicroSeconds\(\)/, duck: ['2024-01-02 03:04:05.678+00', '1969-12-31 23:59:59.999+00', null, '2024-01-02 03:04:05.678901+00', '1969-12-31 23:59:59.999001+00'] },
  // TIMESTAMP_NTZ as Spark writes it: not adjusted to UTC, read back as TIMESTAMP_NTZ.
  { field: { name: 'c', type: 'timestamp', ntz: true }, values: [ts, -1, null, tsMicros], physical: 'INT64', logical: /TimestampType\(isAdjustedToUTC=0, .*MICROS=MicroSeconds\(\)/, duck: ['2024-01-02 03:04:05.678', '1969-12-31 23:59:59.999', null, '2024-01-02 03:04:05.678901'] },
  { field: { name: 'c', type: 'date' }, values: [19723, -1, null], physical: 'INT32', logical: /DateType/, duck: ['2024-01-01', '1969-12-31', null] },
  { field: { name: 'c', type: 'decimal', precision: 9, scale: 2 }, values: [12345n, -1n, null], physical: 'INT32', logical: /DecimalType\(scale=2, precision=9\)/, duck: ['123.45', '-0.01', null] },
  { field: { name: 'c', type: 'decimal', precision: 18, scale: 4 }, values: [123456789012345678n, -1n, null], physical: 'INT64', logical: /DecimalType\(scale=4, precision=18\)/, duck: ['12345678901234.5678', '-0.0001', null] },
  { field: { name: 'c', type: 'decimal', precision: 38, scale: 2 }, values: [10n ** 37n + 1n, -(10n ** 36n), null], physical: 'FIXED_LEN_BYTE_ARRAY', logical: /DecimalType\(scale=2, precision=38\)/, duck: ['100000000000000000000000000000000000.01', '-10000000000000000000000000000000000.00', null] },
  {
    field: { name: 'c', type: 'array', elementType: { name: 'element', type: 'long' } },
    values: [[1, null, 3], [], null],
    physical: 'INT64',
    logical: /ListType/,
    duck: [['1', null, '3'], [], null],
  },
  {
    field: { name: 'c', type: 'map', keyType: { name: 'key', type: 'string' }, valueType: { name: 'value', type: 'double' } },
    values: [{ a: 1.5, b: null }, {}, null],
    physical: 'DOUBLE',
    logical: /MapType/,
    duck: [[{ key: 'a', value: 1.5 }, { key: 'b', value: null }], [], null],
  },
  {
    field: { name: 'c', type: 'struct', fields: [{ name: 'n', type: 'long' }, { name: 's', type: 'string' }, { name: 'at', type: 'timestamp' }] },
    values: [{ n: 1, s: 'x', at: ts }, { n: null, s: null, at: null }, null],
    physical: 'INT64',
    logical: /^$/,
    duck: [{ n: '1', s: 'x', at: '2024-01-02 03:04:05.678+00' }, { n: null, s: null, at: null }, null],
  },
  // Spark's IntegerType, ShortType, ByteType: INT32, with INT(16) and INT(8) for the narrower two
  // (DuckDB prints the annotation's bit width as a character).
  { field: { name: 'c', type: 'long', integral: 32 }, values: [-2147483648, null, 2147483647], physical: 'INT32', logical: /^$|32/, duck: [-2147483648, null, 2147483647] },
  { field: { name: 'c', type: 'long', integral: 16 }, values: [-32768, null, 32767], physical: 'INT32', logical: new RegExp(`IntType\\(bitWidth=${String.fromCharCode(16)}, isSigned=1\\)`), duck: [-32768, null, 32767] },
  { field: { name: 'c', type: 'long', integral: 8 }, values: [-128, null, 127], physical: 'INT32', logical: new RegExp(`IntType\\(bitWidth=${String.fromCharCode(8)}, isSigned=1\\)`), duck: [-128, null, 127] },
  {
    field: { name: 'c', type: 'window' },
    values: [{ start: 0, end: 60_000 }, null, null],
    physical: 'INT64',
    logical: /^$/,
    duck: [{ start: '1970-01-01 00:00:00+00', end: '1970-01-01 00:01:00+00' }, null, null],
  },
  // Nested timestamps keep their microseconds too (Arrow's builder takes milliseconds; the writer
  // puts the microseconds in after): in a struct, a list, a map's values and a session window's end.
  {
    field: { name: 'c', type: 'struct', fields: [{ name: 'at', type: 'timestamp' }, { name: 'xs', type: 'array', elementType: { name: 'element', type: 'timestamp' } }] },
    values: [{ at: tsMicros, xs: [beforeEpoch, null, tsMicros] }, { at: null, xs: null }, null, { at: beforeEpoch, xs: [] }],
    physical: 'INT64',
    logical: /^$|Timestamp/,
    duck: [
      { at: '2024-01-02 03:04:05.678901+00', xs: ['1969-12-31 23:59:59.999001+00', null, '2024-01-02 03:04:05.678901+00'] },
      { at: null, xs: null },
      null,
      { at: '1969-12-31 23:59:59.999001+00', xs: [] },
    ],
  },
  {
    field: { name: 'c', type: 'map', keyType: { name: 'key', type: 'string' }, valueType: { name: 'value', type: 'timestamp' } },
    values: [{ a: tsMicros, b: null }, null, { c: beforeEpoch }],
    physical: 'INT64',
    logical: /MapType/,
    duck: [[{ key: 'a', value: '2024-01-02 03:04:05.678901+00' }, { key: 'b', value: null }], null, [{ key: 'c', value: '1969-12-31 23:59:59.999001+00' }]],
  },
  {
    field: { name: 'c', type: 'window' },
    values: [{ start: ts, end: tsMicros }],
    physical: 'INT64',
    logical: /^$|Timestamp/,
    duck: [{ start: '2024-01-02 03:04:05.678+00', end: '2024-01-02 03:04:05.678901+00' }],
  },
];

describe('Parquet round trip per type (written by Weir, read by DuckDB and by Weir)', () => {
  for (const c of CASES) {
    const label = c.field.type === 'decimal' ? `decimal(${c.field.precision},${c.field.scale})` : c.field.integral ? `long of ${c.field.integral} bits` : c.field.float32 ? 'float' : c.field.ntz ? 'timestamp_ntz' : c.field.type;
    it(label, async () => {
      const schema: Schema = [{ name: 'id', type: 'long' }, c.field];
      const rows: Row[] = c.values.map((v, i) => ({ id: i, c: v }));
      const file = path.join(dir, `${label.replace(/\W/g, '_')}.parquet`);
      await writeFile(file, await encodeParquet(rows, schema, 'snappy'));

      const leaves = await query(`SELECT name, type, repetition_type, logical_type FROM parquet_schema('${file}')`);
      const column = leaves.find((l) => l.name === 'c')!;
      expect(column.repetition_type).toBe('OPTIONAL');
      expect(String(column.logical_type ?? '')).toMatch(c.logical);
      expect(leaves.at(-1)!.type).toBe(c.physical);
      expect((await query(`SELECT c FROM '${file}' ORDER BY id`)).map((r) => r.c)).toEqual(c.duck);

      const back = await readParquetRows(await import('node:fs/promises').then((f) => f.readFile(file)), schema, file);
      expect(back.badRecords).toEqual([]);
      expect(back.rows).toEqual(rows);
    });
  }

  it('zstd and uncompressed are what the file says', async () => {
    for (const [codec, name] of [['zstd', 'ZSTD'], ['none', 'UNCOMPRESSED'], ['snappy', 'SNAPPY']] as const) {
      const file = path.join(dir, `codec-${codec}.parquet`);
      await writeFile(file, await encodeParquet([{ n: 1 }], [{ name: 'n', type: 'long' }], codec));
      expect((await query(`SELECT DISTINCT compression FROM parquet_metadata('${file}')`)).map((r) => r.compression)).toEqual([name]);
    }
  });
});

describe('Parquet files written by DuckDB, read by Weir', () => {
  it('reads the declared types, INT32 as long, FLOAT as double, and millisecond and nanosecond timestamps', async () => {
    const file = path.join(dir, 'duck.parquet');
    await duck().run(
      `COPY (SELECT i::BIGINT AS id, i::INTEGER AS small, (i / 2)::FLOAT AS f, 'r' || i AS s, i % 2 = 0 AS b, ` +
        `TIMESTAMP '2024-01-01 00:00:00.123' + to_seconds(i) AS ts, TIMESTAMP '2024-01-01' AS legacy, ` +
        `CASE WHEN i = 1 THEN NULL ELSE 'x'::BLOB END AS bytes FROM range(3) t(i)) TO '${file}' (FORMAT parquet, COMPRESSION zstd)`,
    );
    const nanos = path.join(dir, 'duck-ns.parquet');
    await duck().run(`COPY (SELECT '2024-01-01 00:00:01.000999999'::TIMESTAMP_NS AS ts) TO '${nanos}' (FORMAT parquet)`);
    const schema: Schema = [
      { name: 'id', type: 'long' },
      { name: 'small', type: 'long' },
      { name: 'f', type: 'double' },
      { name: 's', type: 'string' },
      { name: 'b', type: 'boolean' },
      { name: 'ts', type: 'timestamp' },
      { name: 'bytes', type: 'binary' },
    ];
    const { readFile } = await import('node:fs/promises');
    const got = await readParquetRows(await readFile(file), schema, file);
    expect(got.badRecords).toEqual([]);
    expect(got.rows).toEqual([0, 1, 2].map((i) => ({ id: i, small: i, f: i / 2, s: `r${i}`, b: i % 2 === 0, ts: Date.UTC(2024, 0, 1, 0, 0, i, 123), bytes: i === 1 ? null : Buffer.from('x') })));
    // Below the microsecond, Spark's precision, a timestamp is truncated.
    const ns = await readParquetRows(await readFile(nanos), [{ name: 'ts', type: 'timestamp' }], nanos);
    expect(ns.rows).toEqual([{ ts: timestampOf(Date.UTC(2024, 0, 1, 0, 0, 1, 0), 999) }]);
  });

  it('writes a map keyed by arrays with each key as its text, and reads the same map back', async () => {
    const schema: Schema = [{ name: 'm', type: 'map', keyType: { name: 'key', type: 'array', elementType: { name: 'element', type: 'long', integral: 32 } }, valueType: { name: 'value', type: 'string' } }];
    const rows: Row[] = [{ m: { '[1,2]': 'a', '[]': 'b' } }];
    const got = await readParquetRows(await encodeParquet(rows, schema, 'none'), schema, 'keys.parquet');
    expect(got.rows).toEqual(rows);
  });
});
