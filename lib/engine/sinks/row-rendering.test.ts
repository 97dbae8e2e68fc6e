import { describe, expect, it } from 'vitest';
import { stringifyJson } from '../json-text';
import { encodeRows } from './files-sink';
import { jsonWriter, renderRow, renderText } from './row-rendering';
import { RENDERED_JSON, RENDERING_ROW, RENDERING_SCHEMA } from './testing/rendering-fixture';

describe('one rendering for every sink', () => {
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
});
