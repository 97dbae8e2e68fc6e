/**
 * from_avro and to_avro as Spark's spark-avro defines them: a record decodes to a struct with
 * Spark's types, FAILFAST and PERMISSIVE modes, an evolved reader schema through the avroSchema
 * option (Avro's schema resolution), to_avro with and without a schema, exact longs. The bytes
 * are written by avsc directly, as another Avro writer would.
 */
import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { AvroCodec, avroSchemaOf } from '../avro/avro-codec';
import { RecordExpressionError } from '../errors';
import type { Row, Schema } from '../types';
import { compileStreamingQuery } from './streaming-query';

const SCHEMA: Schema = [{ name: 'value', type: 'binary' }, { name: 'n', type: 'long' }];
const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: SCHEMA };

async function run(sql: string, rows: Row[]): Promise<{ rows: Row[]; schema: Schema }> {
  const q = compileStreamingQuery(sql, rel);
  let out = rows;
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  return { rows: out, schema: q.outputSchema };
}

const ORDER_V1 = {
  type: 'record', name: 'Order', namespace: 'shop',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'region', type: 'string' },
    { name: 'amount', type: { type: 'bytes', logicalType: 'decimal', precision: 10, scale: 2 } },
    { name: 'ts', type: { type: 'long', logicalType: 'timestamp-millis' } },
    { name: 'day', type: { type: 'int', logicalType: 'date' } },
    { name: 'tags', type: { type: 'array', items: 'string' } },
    { name: 'attrs', type: { type: 'map', values: 'int' } },
    { name: 'note', type: ['null', 'string'], default: null },
    { name: 'status', type: { type: 'enum', name: 'Status', symbols: ['NEW', 'PAID'] } },
    { name: 'paid', type: 'boolean' },
    { name: 'weight', type: 'float' },
  ],
};
const V1 = JSON.stringify(ORDER_V1);
const sqlText = (s: string) => `'${s.replace(/'/g, "\\'")}'`;
const writer = avro.Type.forSchema(ORDER_V1 as avro.Schema, { wrapUnions: false });
const order = (id: number) => writer.toBuffer({
  id, region: 'eu', amount: Buffer.from([0x30, 0x39]), ts: 1_764_000_000_000, day: 20_000, tags: ['a', 'b'], attrs: { x: 1 }, note: null, status: 'PAID', paid: true, weight: 1.5,
});

describe('from_avro', () => {
  it("decodes a record into a struct with Spark's types", async () => {
    const r = await run(`SELECT from_avro(value, ${sqlText(V1)}) AS o FROM src`, [{ value: order(7), n: 1 }]);
    const o = r.schema[0];
    expect(o.type).toBe('struct');
    expect(o.fields!.map((f) => `${f.name}:${f.type}${f.type === 'decimal' ? `(${f.precision},${f.scale})` : ''}`)).toEqual([
      'id:long', 'region:string', 'amount:decimal(10,2)', 'ts:timestamp', 'day:date', 'tags:array', 'attrs:map', 'note:string', 'status:string', 'paid:boolean', 'weight:double',
    ]);
    expect(r.rows[0].o).toEqual({ id: 7, region: 'eu', amount: 12345n, ts: 1_764_000_000_000, day: 20_000, tags: ['a', 'b'], attrs: { x: 1 }, note: null, status: 'PAID', paid: true, weight: 1.5 });
  });

  it('reads fields through SQL: o.field, and a long past 2^53 exactly', async () => {
    // avsc's own long type stops at 2^53: this datum is written with Weir's (exact) codec.
    const big = AvroCodec.parse(V1) as AvroCodec;
    const bytes = big.encode({ ...(big.decode(order(1)) as Record<string, unknown>), id: 2n ** 60n });
    const r = await run(`SELECT o.id AS id, o.region AS region, o.amount * 2 AS twice FROM (SELECT from_avro(value, ${sqlText(V1)}) AS o FROM src)`, [{ value: bytes, n: 1 }]);
    expect(r.rows).toEqual([{ id: 2n ** 60n, region: 'eu', twice: 24690n }]);
  });

  it('FAILFAST (the default) fails on bytes that are not the schema, in Spark\'s words; PERMISSIVE gives a struct of NULLs', async () => {
    const bad = [{ value: Buffer.from([0x01]), n: 1 }];
    await expect(run(`SELECT from_avro(value, ${sqlText(V1)}) AS o FROM src`, bad)).rejects.toThrow(RecordExpressionError);
    await expect(run(`SELECT from_avro(value, ${sqlText(V1)}, map('mode', 'FAILFAST')) AS o FROM src`, bad)).rejects.toThrow(/Malformed records are detected in record parsing.*Parse Mode: FAILFAST.*'PERMISSIVE'/);
    const r = await run(`SELECT from_avro(value, ${sqlText(V1)}, map('mode', 'PERMISSIVE')) AS o FROM src`, [...bad, { value: order(1), n: 2 }]);
    expect(r.rows[0].o).toEqual(Object.fromEntries(ORDER_V1.fields.map((f) => [f.name, null])));
    expect((r.rows[1].o as { id: number }).id).toBe(1);
    expect((await run(`SELECT from_avro(value, '"long"', map('mode', 'PERMISSIVE')) AS v FROM src`, [{ value: Buffer.from([0x80]), n: 1 }])).rows[0].v).toBeNull();
  });

  it('reads data written with an older schema through the avroSchema option (schema evolution)', async () => {
    const v1 = { type: 'record', name: 'User', fields: [{ name: 'id', type: 'int' }, { name: 'email', type: 'string' }] };
    const v2 = { type: 'record', name: 'User', fields: [{ name: 'id', type: 'long' }, { name: 'country', type: 'string', default: 'NL' }] };
    const bytes = avro.Type.forSchema(v1 as avro.Schema).toBuffer({ id: 5, email: 'a@b' });
    const r = await run(`SELECT from_avro(value, ${sqlText(JSON.stringify(v1))}, map('avroSchema', ${sqlText(JSON.stringify(v2))})) AS u FROM src`, [{ value: bytes, n: 1 }]);
    expect(r.schema[0].fields!.map((f) => f.name)).toEqual(['id', 'country']);
    expect(r.rows[0].u).toEqual({ id: 5, country: 'NL' });
    // A reader that cannot read the writer's data is refused when the query compiles.
    const incompatible = { type: 'record', name: 'User', fields: [{ name: 'id', type: 'int' }, { name: 'age', type: 'int' }] };
    expect(() => compileStreamingQuery(`SELECT from_avro(value, ${sqlText(JSON.stringify(v1))}, map('avroSchema', ${sqlText(JSON.stringify(incompatible))})) AS u FROM src`, rel)).toThrow(/avroSchema: the writer's schema cannot be read/);
  });

  it('refuses what it cannot read when the query compiles, saying what to do', () => {
    const compile = (sql: string) => () => compileStreamingQuery(sql, rel);
    expect(compile("SELECT from_avro(value, 'not json {') AS o FROM src")).toThrow(/not JSON/);
    expect(compile(`SELECT from_avro(value, ${sqlText(JSON.stringify(['int', 'string']))}) AS o FROM src`)).toThrow(/union of int, string/);
    expect(compile(`SELECT from_avro(n, ${sqlText(V1)}) AS o FROM src`)).toThrow(/reads Avro binary/);
    expect(compile(`SELECT from_avro(value, ${sqlText(V1)}, map('mode', 'DROPMALFORMED')) AS o FROM src`)).toThrow(/only supports PERMISSIVE and FAILFAST/);
    expect(compile(`SELECT from_avro(value, ${sqlText(V1)}, map('nope', 'x')) AS o FROM src`)).toThrow(/options mode and avroSchema/);
  });
});

describe('to_avro', () => {
  it('with a schema: bytes any Avro reader reads, and from_avro reads back', async () => {
    const schema = JSON.stringify({ type: 'record', name: 'Out', fields: [{ name: 'id', type: 'long' }, { name: 'small', type: 'int' }, { name: 'at', type: { type: 'long', logicalType: 'timestamp-micros' } }] });
    const r = await run(`SELECT to_avro(named_struct('id', n, 'small', n + 1, 'at', timestamp_millis(1000)), ${sqlText(schema)}) AS b FROM src`, [{ value: null, n: 41 }]);
    expect(r.schema[0].type).toBe('binary');
    expect(avro.Type.forSchema(JSON.parse(schema) as avro.Schema).fromBuffer(r.rows[0].b as Buffer)).toEqual({ id: 41, small: 42, at: 1_000_000 });
    const back = await run(`SELECT from_avro(to_avro(named_struct('id', n, 'small', n + 1, 'at', timestamp_millis(1000)), ${sqlText(schema)}), ${sqlText(schema)}) AS o FROM src`, [{ value: null, n: 41 }]);
    expect(back.rows[0].o).toEqual({ id: 41, small: 42, at: 1000 });
  });

  it("without a schema: Spark's derived one (record topLevelRecord, nullable fields as unions with null)", async () => {
    const r = await run("SELECT to_avro(named_struct('id', n, 'name', 'x')) AS b, to_avro(n) AS l FROM src", [{ value: null, n: 3 }]);
    const spark = avro.Type.forSchema({ type: 'record', name: 'topLevelRecord', fields: [{ name: 'id', type: ['long', 'null'] }, { name: 'name', type: ['string', 'null'] }] } as avro.Schema, { wrapUnions: false });
    expect(spark.fromBuffer(r.rows[0].b as Buffer)).toEqual({ id: 3, name: 'x' });
    expect(avro.Type.forSchema('long').fromBuffer(r.rows[0].l as Buffer)).toBe(3);
  });

  it('a value that does not fit the schema is an error naming it', async () => {
    await expect(run(`SELECT to_avro(named_struct('small', n), '{"type":"record","name":"R","fields":[{"name":"small","type":"int"}]}') AS b FROM src`, [{ value: null, n: 2 ** 40 }])).rejects.toThrow(/to_avro\(\): .*does not fit the Avro int/);
  });
});

describe('INT, SMALLINT and TINYINT in Avro', () => {
  it('reads an Avro int as an INT and writes an INT, SMALLINT or TINYINT as an Avro int, as spark-avro', async () => {
    const r = await run(
      `SELECT typeof(from_avro(value, ${sqlText(V1)}).attrs) AS t, to_avro(named_struct('i', CAST(n AS INT), 's', CAST(n AS SMALLINT), 'b', CAST(n AS TINYINT), 'l', n)) AS bytes FROM src`,
      [{ value: order(1), n: -5 }],
    );
    expect(r.rows[0].t).toBe('map<string,int>');
    const record = { type: 'record', name: 'topLevelRecord', fields: ['i', 's', 'b'].map((name) => ({ name, type: ['int', 'null'] })).concat([{ name: 'l', type: ['long', 'null'] }]) };
    expect(avro.Type.forSchema(record as avro.Schema, { wrapUnions: false }).fromBuffer(r.rows[0].bytes as Buffer)).toEqual({ i: -5, s: -5, b: -5, l: -5 });
    // Avro's int and long encode alike: the schema says which.
    expect(['int', 'int', 'int', 'long'].map((_, k) => avroSchemaOf({ name: 'x', type: 'long', ...(k < 3 ? { integral: ([32, 16, 8] as const)[k] } : {}) }))).toEqual(['int', 'int', 'int', 'long']);
  });
});

describe('FLOAT in Avro', () => {
  it('reads an Avro float as a FLOAT and writes a FLOAT as an Avro float, as spark-avro', async () => {
    const r = await run(`SELECT to_avro(named_struct('f', CAST(n AS FLOAT), 'd', CAST(n AS DOUBLE))) AS bytes FROM src`, [{ value: order(1), n: -5 }]);
    const record = { type: 'record', name: 'topLevelRecord', fields: [{ name: 'f', type: ['float', 'null'] }, { name: 'd', type: ['double', 'null'] }] };
    expect(avro.Type.forSchema(record as avro.Schema, { wrapUnions: false }).fromBuffer(r.rows[0].bytes as Buffer)).toEqual({ f: -5, d: -5 });
    expect(avroSchemaOf({ name: 'x', type: 'double', float32: true })).toBe('float');
    const bytes = avro.Type.forSchema('float').toBuffer(0.1);
    const back = await run(`SELECT from_avro(value, '"float"') AS f, typeof(from_avro(value, '"float"')) AS t FROM src`, [{ value: bytes, n: 0 }]);
    expect(back.rows[0]).toEqual({ f: Math.fround(0.1), t: 'float' });
  });
});

describe('TIMESTAMP_NTZ in Avro', () => {
  it('writes a TIMESTAMP_NTZ as a local-timestamp-micros long and reads one back as TIMESTAMP_NTZ, as spark-avro', async () => {
    expect(avroSchemaOf({ name: 'x', type: 'timestamp', ntz: true })).toEqual({ type: 'long', logicalType: 'local-timestamp-micros' });
    const ms = Date.parse('2020-01-02T03:04:05.678Z');
    const bytes = avro.Type.forSchema({ type: 'long', logicalType: 'local-timestamp-micros' } as avro.Schema).toBuffer(ms * 1000);
    const back = await run(`SELECT from_avro(value, '{"type":"long","logicalType":"local-timestamp-micros"}') AS t, typeof(from_avro(value, '{"type":"long","logicalType":"local-timestamp-micros"}')) AS ty FROM src`, [{ value: bytes, n: 0 }]);
    expect(back.rows[0]).toEqual({ t: ms, ty: 'timestamp_ntz' });
  });

  it('keeps a timestamp\'s microseconds both ways (timestamp-micros), and floors them for timestamp-millis', async () => {
    const micros = "'{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}'";
    const millis = "'{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}'";
    const r = await run(
      `SELECT to_avro(timestamp_micros(-1), ${micros}) AS b, CAST(from_avro(to_avro(timestamp_micros(1577934245678901), ${micros}), ${micros}) AS STRING) AS t, ` +
        `from_avro(to_avro(timestamp_micros(-1), ${millis}), ${millis}) AS m FROM src`,
      [{ value: null, n: 0 }],
    );
    expect(avro.Type.forSchema('long').fromBuffer(r.rows[0].b as Buffer)).toBe(-1);
    expect(r.rows[0].t).toBe('2020-01-02 03:04:05.678901');
    expect(r.rows[0].m).toBe(-1);
  });
});
