import { describe, expect, it } from 'vitest';
import { parseJobSpec } from './job-spec';
import { columnField } from './source-schema';

const spec = (schema: unknown) => ({
  name: 'types',
  source: { name: 'events', type: 'memory', options: { stream: 'types' }, schema },
  sql: 'SELECT * FROM events',
  sink: { type: 'memory', options: { table: 'types' } },
  checkpointLocation: 'memory://types',
});

describe('source schema types as Spark writes them', () => {
  it('reads every Spark type name Weir keeps, with the Field the engine reads', () => {
    expect(columnField('a', 'INT')).toEqual({ name: 'a', type: 'long', integral: 32 });
    expect(columnField('a', 'smallint')).toEqual({ name: 'a', type: 'long', integral: 16 });
    expect(columnField('a', 'Byte')).toEqual({ name: 'a', type: 'long', integral: 8 });
    expect(columnField('a', 'bigint')).toEqual({ name: 'a', type: 'long' });
    expect(columnField('a', 'float')).toEqual({ name: 'a', type: 'double', float32: true });
    expect(columnField('a', 'TIMESTAMP_NTZ')).toEqual({ name: 'a', type: 'timestamp', ntz: true });
    expect(columnField('a', 'date')).toEqual({ name: 'a', type: 'date' });
    expect(columnField('a', 'varchar(10)')).toEqual({ name: 'a', type: 'string' });
    expect(columnField('p', 'decimal(10,2)')).toEqual({ name: 'p', type: 'decimal', precision: 10, scale: 2 });
    expect(columnField('p', 'DECIMAL')).toEqual({ name: 'p', type: 'decimal', precision: 10, scale: 0 });
    expect(columnField('t', 'array<string>')).toEqual({ name: 't', type: 'array', elementType: { name: 'element', type: 'string', nullable: true } });
    expect(columnField('m', 'MAP<STRING, BIGINT>')).toEqual({
      name: 'm', type: 'map', keyType: { name: 'key', type: 'string', nullable: false }, valueType: { name: 'value', type: 'long', nullable: true },
    });
    expect(columnField('s', 'struct<x: double, `y z`: array<int> NOT NULL>')).toEqual({
      name: 's', type: 'struct', fields: [
        { name: 'x', type: 'double', nullable: true },
        { name: 'y z', type: 'array', nullable: false, elementType: { name: 'element', type: 'long', integral: 32, nullable: true } },
      ],
    });
  });

  it('refuses what is not a type, or a type Weir cannot keep, saying what to write', () => {
    expect(columnField('a', 'strin')).toMatch(/"strin" is not a type Weir reads .*write a Spark type such as BIGINT/);
    expect(columnField('a', 'decimal(40,2)')).toMatch(/DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION|precision/i);
    expect(columnField('a', 'interval')).toMatch(/a is INTERVAL, which Weir cannot keep in a column yet/);
    expect(columnField('a', 'interval day')).toEqual({ name: 'a', type: 'day_time_interval', interval: { start: 0, end: 0 } });
    expect(columnField('a', 'array<')).toMatch(/not a type Weir reads/);
    expect(columnField('m', 'map<map<int, int>, int>')).toMatch(/a map's key cannot be or hold a MAP \(INVALID_MAP_KEY_TYPE\)/);
    expect(columnField('m', 'map<array<int>, int>')).toMatchObject({ name: 'm', type: 'map', keyType: { type: 'array' } });
  });

  it('a DDL string is a schema, as Spark’s schema("…") takes it', () => {
    const r = parseJobSpec(spec('id BIGINT, tags ARRAY<STRING>, price DECIMAL(10,2), day DATE'));
    expect(r.ok && r.spec.source.schema).toEqual([
      { name: 'id', type: 'long' },
      { name: 'tags', type: 'array', elementType: { name: 'element', type: 'string', nullable: true } },
      { name: 'price', type: 'decimal', precision: 10, scale: 2 },
      { name: 'day', type: 'date' },
    ]);
    const bad = parseJobSpec(spec('id BIGINT,, x'));
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.errors.find((e) => e.path === 'source.schema')?.message).toMatch(/cannot read the schema .*'name TYPE, name TYPE'/);
    const one = parseJobSpec(spec('ARRAY<INT>'));
    expect(!one.ok && one.errors[0].message).toMatch(/is one type \(ARRAY<INT>\), not a list of columns/);
  });

  it('names the column whose type is wrong', () => {
    const r = parseJobSpec(spec([{ name: 'id', type: 'long' }, { name: 'p', type: 'decimal(x)' }]));
    expect(!r.ok && r.errors.map((e) => e.path)).toEqual(['source.schema.1.type']);
    const extra = parseJobSpec(spec([{ name: 'id', type: 'long', nulable: true }]));
    expect(!extra.ok && extra.errors[0].message).toMatch(/unknown field "nulable"/);
  });

  it('a parsed spec parses again to itself (a preview parses the parsed spec)', () => {
    for (const schema of [
      [{ name: 'a', type: 'int' }, { name: 'b', type: 'struct<x: decimal(5,1), `we ird`: map<int, array<date>>>' }],
      'a BIGINT, b ARRAY<STRUCT<c: STRING NOT NULL>>, d DECIMAL(38,10)',
    ]) {
      const once = parseJobSpec(spec(schema));
      if (!once.ok) throw new Error(JSON.stringify(once.errors));
      const twice = parseJobSpec({ ...once.spec });
      if (!twice.ok) throw new Error(JSON.stringify(twice.errors));
      expect(twice.spec.source.schema).toEqual(once.spec.source.schema);
    }
  });
});

describe('a VARIANT column', () => {
  const files = (schema: unknown, format = 'json') => ({ ...spec(schema), source: { name: 'events', type: 'files', options: { path: '/in', format }, schema } });

  it("is read from a JSON lines source's field (Spark's DDL string or the list), at the top level only", () => {
    const r = parseJobSpec(files('id BIGINT, payload VARIANT'));
    expect(r.ok && r.spec.source.schema).toEqual([{ name: 'id', type: 'long' }, { name: 'payload', type: 'variant' }]);
    expect(parseJobSpec(files([{ name: 'payload', type: 'variant' }])).ok).toBe(true);
    expect(columnField('payload', 'VARIANT')).toEqual({ name: 'payload', type: 'variant' });
    expect(columnField('payload', 'ARRAY<VARIANT>')).toMatch(/parse_json/);
    expect(columnField('payload', 'STRUCT<v: VARIANT>')).toMatch(/parse_json/);
  });

  it('is refused by a reader of another format, naming the column', () => {
    for (const r of [parseJobSpec(files('id BIGINT, payload VARIANT', 'csv')), parseJobSpec(files('id BIGINT, payload VARIANT', 'parquet')), parseJobSpec(spec('id BIGINT, payload VARIANT'))]) {
      expect(!r.ok && r.errors.map((e) => [e.path, e.message])).toEqual([['source.schema.1.type', expect.stringMatching(/column "payload" is VARIANT, which the (files|memory) source.*does not read.*parse_json/)]]);
    }
    const table = (format: string) => parseJobSpec({ ...files('id BIGINT'), staticTables: [{ name: 'dim', path: '/dim', format, schema: 'k STRING, v VARIANT' }] });
    expect(table('json').ok).toBe(true);
    const csv = table('csv');
    expect(!csv.ok && csv.errors.map((e) => [e.path, e.message])).toEqual([['staticTables.0.schema.1.type', expect.stringMatching(/column "v" is VARIANT, which a CSV file static table does not read/)]]);
  });
});
