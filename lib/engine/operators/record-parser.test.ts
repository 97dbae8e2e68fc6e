import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeRows } from '../sinks/files-sink';
import type { Schema } from '../types';
import { CsvLineParser, JsonLineParser, splitCsvLine } from './record-parser';
import { convertValue } from '../sources/value-conversion';
import { variantToJson, type Variant } from '../query/variant';

const SCHEMA: Schema = [
  { name: 'id', type: 'long' },
  { name: 's', type: 'string' },
  { name: 'x', type: 'double' },
  { name: 'b', type: 'boolean' },
  { name: 'ts', type: 'timestamp' },
];

const rowArb = fc.record({
  id: fc.option(fc.integer({ min: -1e9, max: 1e9 }), { nil: null }),
  // Any single-line text (CSV fields here never hold line breaks), including commas and quotes.
  s: fc.option(fc.string({ unit: fc.constantFrom('a', 'b', ',', '"', ' ', 'é', '\t', "'") , minLength: 1, maxLength: 8 }), { nil: null }),
  x: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null }),
  b: fc.option(fc.boolean(), { nil: null }),
  ts: fc.option(fc.integer({ min: 0, max: 4102444800000 }), { nil: null }),
});

/** Any double, NaN, the infinities and -0 too: Spark's writers give them texts its readers take back. */
const writtenRowArb = fc.tuple(rowArb, fc.option(fc.double(), { nil: null })).map(([r, x]) => ({ ...r, x }));

describe('record parser', () => {
  it('reads back what the files sink writes, JSON lines and CSV (property)', () => {
    fc.assert(
      fc.property(fc.array(writtenRowArb, { minLength: 1, maxLength: 20 }), (rows) => {
        for (const format of ['json', 'csv'] as const) {
          const lines = encodeRows(rows, SCHEMA, format, true).trimEnd().split('\n');
          const parser = format === 'json' ? new JsonLineParser(SCHEMA) : new CsvLineParser(SCHEMA, splitCsvLine(lines.shift()!)!);
          const back = lines.map((l) => parser.parse(l));
          for (let i = 0; i < rows.length; i++) {
            const r = back[i];
            expect(r.ok, `${format} line ${lines[i]}`).toBe(true);
            expect(r.ok && r.row).toEqual(rows[i]);
          }
        }
      }),
      { numRuns: 200, seed: 99 },
    );
  });

  it('reads typed JSON in any key order, with extra keys, as exactly the schema’s row (property)', () => {
    const parser = new JsonLineParser(SCHEMA);
    fc.assert(
      fc.property(rowArb, fc.boolean(), fc.boolean(), (row, shuffle, extra) => {
        const entries = Object.entries(row);
        if (shuffle) entries.reverse();
        if (extra) entries.push(['zzz', 1]);
        const r = parser.parse(JSON.stringify(Object.fromEntries(entries)));
        expect(r.ok).toBe(true);
        if (r.ok) {
          expect(Object.keys(r.row)).toEqual(SCHEMA.map((f) => f.name));
          expect(r.row).toEqual(row);
        }
      }),
      { numRuns: 300, seed: 5 },
    );
  });

  it('says when a parsed line reads as its row, column by column (the scan tests its filter on it)', () => {
    const p = new JsonLineParser(SCHEMA, ['id', 'ts']);
    const obj = (line: string) => p.parseObject(line) as Record<string, unknown>;
    expect(p.typedObject(obj('{"id":1,"s":7,"ts":5}'))).toBe(true); // s is pruned: not read
    expect(p.typedObject(obj('{"s":"a"}'))).toBe(true); // absent columns read as NULL
    expect(p.typedObject(obj('{"id":1,"ts":"2026-01-01T00:00:00Z"}'))).toBe(false); // a timestamp to coerce
    expect(p.typedObject(obj('{"id":1.5,"ts":5}'))).toBe(false); // a bad line: the row parser says why
    expect(p.parseObject('[1]')).toBe('expected a JSON object per line');
    expect(p.parseObject('{')).toMatch(/^malformed JSON/);
    // An absent column named like an Object.prototype member would read as the inherited member.
    const inherited = new JsonLineParser([{ name: 'constructor', type: 'string' }]);
    expect(inherited.typedObject(inherited.parseObject('{}') as Record<string, unknown>)).toBe(false);
    expect(inherited.parse('{}')).toEqual({ ok: true, row: { constructor: null } });
  });

  it('materializes only the columns it is given (column pruning)', () => {
    const p = new JsonLineParser(SCHEMA, ['ts', 'id']);
    expect(p.parse('{"id":1,"s":"a","x":2.5,"b":true,"ts":5}')).toEqual({ ok: true, row: { id: 1, ts: 5 } });
    // A pruned column is not read, so its bad value does not make the line bad.
    expect(p.parse('{"id":1,"s":7,"ts":5}')).toEqual({ ok: true, row: { id: 1, ts: 5 } });
    const c = new CsvLineParser(SCHEMA, undefined, ['x', 'id']);
    expect(c.parse('1,a,2.5,true,0')).toEqual({ ok: true, row: { id: 1, x: 2.5 } });
    expect(c.parse('1,a,2.5')).toMatchObject({ ok: false, reason: expect.stringMatching(/expected at least 5 fields/) });
  });

  it('keeps every digit of a 64-bit id, in JSON numbers and CSV text (Spark reads them into a BIGINT)', () => {
    const j = new JsonLineParser(SCHEMA);
    expect(j.parse('{"id": 9007199254740993, "s": "x"}')).toEqual({ ok: true, row: { id: 9007199254740993n, s: 'x', x: null, b: null, ts: null } });
    expect(j.parse('{"id": -9223372036854775808}')).toMatchObject({ ok: true, row: { id: -9223372036854775808n } });
    // A double column takes the big integer as a double; a small id stays a number.
    expect(j.parse('{"id": 12, "x": 12345678901234567890}')).toMatchObject({ ok: true, row: { id: 12, x: 12345678901234567000 } });
    expect(new CsvLineParser(SCHEMA).parse('1234567890123456789,a,2.5,true,0')).toMatchObject({ ok: true, row: { id: 1234567890123456789n } });
  });

  it('explains why a line is bad', () => {
    const j = new JsonLineParser(SCHEMA);
    expect(j.parse('{"id": 1.5}')).toEqual({ ok: false, reason: 'field "id": expected a long, got 1.5' });
    expect(j.parse('[1,2]')).toEqual({ ok: false, reason: 'expected a JSON object per line' });
    expect(j.parse('{"ts": "yesterday"}')).toMatchObject({ ok: false, reason: expect.stringMatching(/field "ts": expected a timestamp/) });
    expect(j.parse('{"id": 1e20}')).toEqual({ ok: false, reason: 'field "id": long 100000000000000000000 is not exact; write it as plain digits' });
    expect(j.parse('{"id": 9223372036854775808}')).toEqual({ ok: false, reason: 'field "id": long 9223372036854775808 is outside BIGINT\'s 64-bit range' });
    const c = new CsvLineParser(SCHEMA);
    expect(c.parse('1,"a,b",2.5,true,2024-01-01T00:00:00Z')).toEqual({ ok: true, row: { id: 1, s: 'a,b', x: 2.5, b: true, ts: Date.UTC(2024, 0, 1) } });
    expect(c.parse('1,"open,2,true,0')).toEqual({ ok: false, reason: 'malformed CSV: unbalanced quotes' });
    expect(c.parse('1,a')).toMatchObject({ ok: false, reason: expect.stringMatching(/expected at least 5 fields/) });
    expect(c.parse('x,a,1,true,0')).toMatchObject({ ok: false, reason: 'field "id": expected a long, got "x"' });
  });

  it('reads a window column as the struct of its start and end timestamps, as the JSON sinks write it', () => {
    const w: Schema = [{ name: 'w', type: 'window' }, { name: 'n', type: 'long' }];
    const j = new JsonLineParser(w);
    expect(j.parse('{"w":{"start":"2026-01-02T03:00:00.000Z","end":"2026-01-02T03:10:00.000Z"},"n":2}')).toEqual({
      ok: true, row: { w: { start: Date.UTC(2026, 0, 2, 3), end: Date.UTC(2026, 0, 2, 3, 10) }, n: 2 },
    });
    // A TIMESTAMP_NTZ window's bounds are wall-clock times: text with a zone is not one.
    const ntz = new JsonLineParser([{ name: 'w', type: 'window', ntz: true }]);
    expect(ntz.parse('{"w":{"start":"2026-01-02T03:00:00.000","end":"2026-01-02T03:10:00.000"}}')).toEqual({ ok: true, row: { w: { start: Date.UTC(2026, 0, 2, 3), end: Date.UTC(2026, 0, 2, 3, 10) } } });
    expect(ntz.parse('{"w":{"start":"2026-01-02T03:00:00.000Z","end":"2026-01-02T03:10:00.000"}}')).toMatchObject({ ok: false, reason: expect.stringMatching(/^field "w": field "start": expected a timestamp/) });
    expect(j.parse('{"w":{"start":"soon","end":"2026-01-02T03:10:00.000Z"},"n":2}')).toMatchObject({ ok: false, reason: expect.stringMatching(/^field "w": field "start": expected a timestamp .*"soon"/) });
    expect(j.parse('{"w":"2026-01-02","n":2}')).toMatchObject({ ok: false, reason: 'field "w": "2026-01-02" is not an object (a struct)' });
    expect(convertValue({ start: '2026-01-02T03:00:00Z', end: 0 }, { name: 'w', type: 'window' })).toEqual({ ok: true, value: { start: Date.UTC(2026, 0, 2, 3), end: 0 } });
  });
});

describe('INT, SMALLINT and TINYINT columns', () => {
  const NARROW: Schema = [
    { name: 'i', type: 'long', integral: 32 },
    { name: 's', type: 'long', integral: 16 },
    { name: 't', type: 'long', integral: 8 },
  ];
  const edges = (bits: number) => fc.integer({ min: -(2 ** bits), max: 2 ** bits });

  it('reads a value in the type’s range, and makes one outside it a bad record (JSON, CSV and a source value)', () => {
    fc.assert(
      fc.property(edges(31), edges(15), edges(7), (i, s, t) => {
        const fits = i >= -(2 ** 31) && i < 2 ** 31 && s >= -(2 ** 15) && s < 2 ** 15 && t >= -128 && t < 128;
        const json = new JsonLineParser(NARROW).parse(JSON.stringify({ i, s, t }));
        const csv = new CsvLineParser(NARROW, ['i', 's', 't']).parse(`${i},${s},${t}`);
        const shuffled = new JsonLineParser(NARROW).parse(JSON.stringify({ t, s, i }));
        for (const r of [json, csv, shuffled]) {
          expect(r.ok).toBe(fits);
          if (r.ok) expect(r.row).toEqual({ i, s, t });
          else expect(r.reason).toMatch(/is outside (INT|SMALLINT|TINYINT)'s range/);
        }
        const converted = NARROW.map((f) => convertValue({ i, s, t }[f.name], f));
        expect(converted.every((c) => c.ok)).toBe(fits);
      }),
      { numRuns: 300 },
    );
  });
});

describe('a VARIANT column of JSON lines', () => {
  const parser = new JsonLineParser([{ name: 'id', type: 'long' }, { name: 'payload', type: 'variant' }]);
  const payload = (line: string) => {
    const r = parser.parse(line);
    if (!r.ok) throw new Error(r.reason);
    return r.row.payload === null ? null : variantToJson(r.row.payload as Variant);
  };

  it("is the field's JSON as Spark's JacksonParser builds it: every digit kept, a JSON null a variant null, a missing field NULL", () => {
    expect(payload('{"id": 1, "payload": {"n": 12345678901234567890, "d": 1.50, "b": [true, null, 1e3]}}')).toBe('{"b":[true,null,1000.0],"d":1.5,"n":12345678901234567890}');
    expect(payload('{"payload": 9007199254740993, "id": 2}')).toBe('9007199254740993');
    expect(payload('{"id": 3, "payload": null}')).toBe('null');
    expect(payload('{"id": 4}')).toBeNull();
    // A key twice at the line's level keeps the last, as a struct's field; inside the value it is a bad line.
    expect(payload('{"payload": 1, "payload": "x"}')).toBe('"x"');
    expect(parser.parse('{"payload": {"a": 1, "a": 2}}')).toMatchObject({ ok: false, reason: expect.stringMatching(/VARIANT_DUPLICATE_KEY/) });
    // Read by column (a pushed filter reads the parsed line): the variant, never the plain JSON value.
    const src = parser.parseObject('{"id": 5, "payload": {"a": 1}}') as Record<string, unknown>;
    expect(parser.typedObject(src)).toBe(false);
  });
});
