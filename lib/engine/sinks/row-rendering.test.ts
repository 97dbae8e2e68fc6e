import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringifyJson } from '../json-text';
import { formatDouble } from '../query/sql-values';
import { propertyRuns } from '@/lib/testing/property-runs';
import { CsvLineParser, JsonLineParser } from '../operators/record-parser';
import type { Schema } from '../types';
import { encodeRows } from './files-sink';
import { jsonWriter, renderRow, renderText } from './row-rendering';
import { RENDERED_JSON, RENDERING_ROW, RENDERING_SCHEMA } from './testing/rendering-fixture';

describe('one rendering for every sink', () => {
  it("property: a DOUBLE column's JSON is Java's Double.toString of any double, whichever path writes it", () => {
    const w = jsonWriter([{ name: 'd', type: 'double' }]);
    fc.assert(fc.property(fc.oneof(fc.double(), fc.integer().map((i) => i / 8), fc.double({ min: 1e-4, max: 1e8 })), (d) => {
      const text = w.stringify(w.row({ d }));
      expect(text).toBe(Number.isFinite(d) ? `{"d":${formatDouble(d)}}` : `{"d":"${formatDouble(d)}"}`);
    }), { numRuns: propertyRuns(500, 2000) });
  });

  it('renders every column type as Spark’s JSON writer does, nested values included', () => {
    expect(stringifyJson(renderRow(RENDERING_ROW, RENDERING_SCHEMA))).toBe(RENDERED_JSON);
    const w = jsonWriter(RENDERING_SCHEMA);
    expect(w.stringify(w.row(RENDERING_ROW))).toBe(RENDERED_JSON);
    expect(encodeRows([RENDERING_ROW], RENDERING_SCHEMA, 'json', false)).toBe(`${RENDERED_JSON}\n`);
  });

  it('CSV writes the same text, a nested value as its JSON', () => {
    const f = (name: string) => RENDERING_SCHEMA.find((x) => x.name === name)!;
    expect(renderText(RENDERING_ROW.b, f('b'))).toBe('AQI=');
    expect(renderText(RENDERING_ROW.price, f('price'))).toBe('2.50');
    expect(renderText(RENDERING_ROW.s, f('s'))).toBe('{"at":"1970-01-01T00:00:01.000Z","raw":"/w=="}');
    expect(renderText(null, f('s'))).toBeNull();
    expect(encodeRows([RENDERING_ROW], RENDERING_SCHEMA, 'csv', false).split(',')[0]).toBe('AQI=');
  });

  it("writes a DOUBLE and a FLOAT as Java's Double.toString and Float.toString, NaN and the infinities as Jackson does", () => {
    const schema: Schema = [
      { name: 'whole', type: 'double' }, { name: 'big', type: 'double' }, { name: 'small', type: 'double' }, { name: 'tenth', type: 'double' },
      { name: 'f', type: 'double', float32: true }, { name: 'nan', type: 'double' }, { name: 'inf', type: 'double' }, { name: 'ninf', type: 'double', float32: true },
      { name: 'xs', type: 'array', elementType: { name: 'element', type: 'double', nullable: true } },
    ];
    const row = { whole: 2, big: 1e21, small: 1e-7, tenth: 0.1, f: Math.fround(1.1), nan: NaN, inf: Infinity, ninf: -Infinity, xs: [3, null] };
    const line = '{"whole":2.0,"big":1.0E21,"small":1.0E-7,"tenth":0.1,"f":1.1,"nan":"NaN","inf":"Infinity","ninf":"-Infinity","xs":[3.0,null]}';
    expect(encodeRows([row], schema, 'json', false)).toBe(`${line}\n`);
    expect(stringifyJson(renderRow(row, schema))).toBe(line);
    const csv = '2.0,1.0E21,1.0E-7,0.1,1.1,NaN,Infinity,-Infinity,"[3.0,null]"';
    expect(encodeRows([row], schema, 'csv', false)).toBe(`${csv}\n`);
    // The files source reads both back as the values written (Spark's readers take these texts;
    // CSV has no arrays to read).
    expect(new JsonLineParser(schema).parse(line)).toEqual({ ok: true, row });
    const { xs: _, ...scalars } = row;
    expect(new CsvLineParser(schema.slice(0, -1)).parse(csv.replace(/,"\[.*$/, ''))).toEqual({ ok: true, row: scalars });
  });
});
