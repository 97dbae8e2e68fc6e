/**
 * Spark 4's VARIANT: the value model (variant.ts) against Spark's VariantBuilder and
 * Variant.toJson, and the functions and casts through a stream query (variant-functions.ts,
 * variant-casts.ts), with what Spark refuses of a VARIANT.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Schema } from '../types';
import { columnField } from '../spec/source-schema';
import { JsonLineParser } from '../operators/record-parser';
import { decodeValue, encodeValue } from '../state/state-value-codec';
import type { StreamingRelation } from './logical-plan';
import { eventsQuery } from './testing/events-query';
import { runInBatches } from './testing/stateful-test-harness';
import { failure, selectRefusal } from './testing/select-refusal';
import { selectStatic } from './testing/spark-printed';
import type { WeirError } from '../errors';
import { compileStreamingQuery } from './streaming-query';
import { mergeVariantSchema, parseVariant, parseVariantPath, schemaOfVariant, schemaText, variantToJson, type Variant } from './variant';

const SCHEMA: Schema = [{ name: 'value', type: 'string' }];
const { run } = eventsQuery(SCHEMA);
const rel: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'src', schema: SCHEMA, watermarkDelayMs: 0 };

async function one(expr: string, value: string | null = '{}'): Promise<unknown> {
  const [row] = await run(`SELECT ${expr} AS v FROM events`, [{ value }]);
  return row.v;
}

describe('variant value model', () => {
  it('reads numbers as VariantBuilder does: LONG, exact DECIMAL, else DOUBLE', () => {
    expect(parseVariant('9223372036854775807')).toEqual({ t: 'long', v: 9223372036854775807n });
    expect(parseVariant('9223372036854775808')).toEqual({ t: 'decimal', unscaled: 9223372036854775808n, scale: 0 });
    expect(parseVariant('1.50')).toEqual({ t: 'decimal', unscaled: 150n, scale: 2 });
    expect(parseVariant('1e3')).toEqual({ t: 'double', v: 1000 });
    expect(parseVariant('1' + '0'.repeat(40))).toEqual({ t: 'double', v: 1e40 });
  });

  it('prints as Variant.toJson: keys sorted, decimals stripped of trailing zeros, doubles as Java', () => {
    expect(variantToJson(parseVariant('{"b": 1, "a": [true, null, "x\\n"], "c": 1.50, "d": 1e3, "e": 100.0}'))).toBe('{"a":[true,null,"x\\n"],"b":1,"c":1.5,"d":1000.0,"e":100}');
    expect(variantToJson(parseVariant('{"id": 1234567890123456789}'))).toBe('{"id":1234567890123456789}');
  });

  it('refuses malformed JSON and duplicate keys with Spark classes', () => {
    expect(() => parseVariant('{')).toThrow(/MALFORMED_RECORD_IN_PARSING/);
    expect(() => parseVariant('[1,]')).toThrow(/MALFORMED_RECORD_IN_PARSING/);
    expect(() => parseVariant('{"a":1,"a":2}')).toThrow(/VARIANT_DUPLICATE_KEY/);
  });

  // A variant kept in state (a stateful operator's buffer) is written by the state codec: plain
  // objects, arrays, bigints and bytes, which it keeps exactly.
  it('survives the state store codec exactly', () => {
    const v = parseVariant('{"id": 18446744073709551616, "amount": 12.50, "d": 1e300, "tags": ["a", {"x": null}], "n": -9223372036854775808}');
    const back = decodeValue(encodeValue(v));
    expect(back).toEqual(v);
    expect(variantToJson(back as typeof v)).toBe('{"amount":12.5,"d":1.0E300,"id":18446744073709551616,"n":-9223372036854775808,"tags":["a",{"x":null}]}');
  });

  it("reads Spark's variant paths", () => {
    expect(parseVariantPath('$')).toEqual([]);
    expect(parseVariantPath("$.user.id[0]['a b'][\"c\"]")).toEqual([{ key: 'user' }, { key: 'id' }, { index: 0 }, { key: 'a b' }, { key: 'c' }]);
    expect(parseVariantPath('user.id')).toBeUndefined();
    expect(parseVariantPath('$[-1]')).toBeUndefined();
    expect(parseVariantPath('$[*]')).toBeUndefined();
  });

  it('infers schema_of_variant as SchemaOfVariant does', () => {
    expect(schemaText(schemaOfVariant(parseVariant('[{"b":true,"a":0}]')))).toBe('ARRAY<OBJECT<a: BIGINT, b: BOOLEAN>>');
    expect(schemaText(schemaOfVariant(parseVariant('null')))).toBe('VOID');
    expect(schemaText(schemaOfVariant(parseVariant('{"c": 1.23, "d": 0.8}')))).toBe('OBJECT<c: DECIMAL(3,2), d: DECIMAL(1,1)>');
    expect(schemaText(schemaOfVariant(parseVariant('{"data": [{"a":"a"}, 5]}')))).toBe('OBJECT<data: ARRAY<VARIANT>>');
    expect(schemaText(schemaOfVariant(parseVariant('[1, 2.5, null]')))).toBe('ARRAY<DECIMAL(21,1)>');
    expect(schemaText(mergeVariantSchema({ kind: 'bigint' }, { kind: 'double' }))).toBe('DOUBLE');
  });

  // JSON with integers past 2^53 and decimals of up to 38 digits: parse then print keeps each digit.
  it('parse_json then to_json round-trips JSON exactly (property)', () => {
    const digits = (n: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: n }).map((ds) => ds.join(''));
    // Past LONG's range an integer is a DECIMAL(38,0), printed with the same digits.
    const integer = fc.tuple(fc.boolean(), digits(38)).map(([neg, d]) => `${neg ? '-' : ''}${d.replace(/^0+(?=\d)/, '')}`).filter((s) => s !== '-0');
    const decimal = fc.tuple(fc.boolean(), digits(18), digits(18)).map(([neg, i, f]) => `${neg ? '-' : ''}${i.replace(/^0+(?=\d)/, '')}.${f.replace(/0+$/, '') || '5'}`);
    const key = fc.string({ maxLength: 6 });
    const json: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
      v: fc.oneof({ depthSize: 'small' },
        integer, decimal, fc.constantFrom('true', 'false', 'null'), fc.string({ maxLength: 8 }).map((s) => JSON.stringify(s)),
        fc.array(tie('v'), { maxLength: 4 }).map((xs) => `[${xs.join(',')}]`),
        fc.uniqueArray(fc.tuple(key, tie('v')), { maxLength: 4, selector: ([k]) => k }).map((fs) => `{${fs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, x]) => `${JSON.stringify(k)}:${x}`).join(',')}}`)),
    })).v;
    // Sorted keys, no trailing zeros, no `-0`: the text Variant.toJson writes back, digit for digit.
    fc.assert(fc.property(json, (text) => {
      expect(variantToJson(parseVariant(text))).toBe(text);
    }), { numRuns: 500 });
  });
});

describe('variant functions through a stream query', () => {
  const doc = '{"user": {"id": 1234567890123456789, "name": "ann", "score": "12"}, "tags": ["a", "b"], "amount": 12.50, "ok": true, "n": null, "ts": "2024-01-02 03:04:05"}';

  it('parse_json, to_json and variant_get keep a 64-bit id exact', async () => {
    expect(await one('to_json(parse_json(value))', doc)).toBe('{"amount":12.5,"n":null,"ok":true,"tags":["a","b"],"ts":"2024-01-02 03:04:05","user":{"id":1234567890123456789,"name":"ann","score":"12"}}');
    expect(await one("variant_get(parse_json(value), '$.user.id', 'bigint')", doc)).toBe(1234567890123456789n);
    expect(await one("variant_get(parse_json(value), '$.user.name', 'string')", doc)).toBe('ann');
    expect(await one("variant_get(parse_json(value), '$.user.score', 'int')", doc)).toBe(12);
    expect(await one("variant_get(parse_json(value), '$.tags[1]', 'string')", doc)).toBe('b');
    expect(await one("variant_get(parse_json(value), '$.amount', 'decimal(10,2)')", doc)).toBe(1250n);
    expect(await one("variant_get(parse_json(value), '$.amount', 'double')", doc)).toBe(12.5);
    expect(await one("variant_get(parse_json(value), '$.ts', 'timestamp')", doc)).toBe(Date.UTC(2024, 0, 2, 3, 4, 5));
    expect(await one("variant_get(parse_json(value), '$.missing', 'int')", doc)).toBeNull();
    expect(await one("to_json(variant_get(parse_json(value), '$.tags'))", doc)).toBe('["a","b"]');
    expect(await one("variant_get(parse_json(value), '$.tags', 'array<string>')", doc)).toEqual(['a', 'b']);
    expect(await one("variant_get(parse_json(value), '$.user', 'struct<id bigint, name string, age int>')", doc)).toEqual({ id: 1234567890123456789n, name: 'ann', age: null });
    expect(await one("variant_get(parse_json(value), '$.user', 'string')", doc)).toBe('{"id":1234567890123456789,"name":"ann","score":"12"}');
  });

  it('variant_get fails where the cast fails (INVALID_VARIANT_CAST); try_variant_get and CAST are NULL', async () => {
    const err = await failure(one("variant_get(parse_json(value), '$.user.name', 'int')", doc));
    expect(err.errorClass).toBe('INVALID_VARIANT_CAST');
    expect(err.message).toContain('The variant value `"ann"` cannot be cast into `INT`');
    expect(await one("try_variant_get(parse_json(value), '$.user.name', 'int')", doc)).toBeNull();
    expect(await one("CAST(variant_get(parse_json(value), '$.user.name') AS INT)", doc)).toBeNull();
    expect(await one("try_variant_get(parse_json(value), '$.user.id', 'int')", doc)).toBeNull();
    expect(await one("try_variant_get(parse_json(value), '$.tags', 'int')", doc)).toBeNull();
  });

  it('casts a variant to each scalar type as VariantGet.cast does (ANSI off)', async () => {
    const cast = (json: string, type: string) => one(`CAST(parse_json(value) AS ${type})`, json);
    expect(await cast('"hello"', 'STRING')).toBe('hello');
    expect(await cast('{"b":1,"a":2}', 'STRING')).toBe('{"a":2,"b":1}');
    expect(await cast('12.5', 'STRING')).toBe('12.5');
    expect(await cast('1', 'BOOLEAN')).toBe(true);
    expect(await cast('"false"', 'BOOLEAN')).toBe(false);
    expect(await cast('1.9', 'INT')).toBe(1);
    expect(await cast('"1.9"', 'INT')).toBeNull();
    expect(await cast('2147483648', 'INT')).toBeNull();
    expect(await cast('9223372036854775807', 'BIGINT')).toBe(9223372036854775807n);
    expect(await cast('"1e3"', 'DOUBLE')).toBe(1000);
    expect(await cast('12.345', 'DECIMAL(5,2)')).toBe(1235n);
    expect(await cast('123456', 'DECIMAL(5,2)')).toBeNull();
    expect(await cast('"2024-03-01"', 'DATE')).toBe(19783);
    expect(await cast('1', 'DATE')).toBeNull();
    expect(await cast('1', 'TIMESTAMP')).toBe(1000);
    expect(await cast('null', 'INT')).toBeNull();
    expect(await cast('[1, "2", "x"]', 'ARRAY<INT>')).toEqual([1, 2, null]);
  });

  it('casts atomic values and arrays to VARIANT', async () => {
    expect(await one('to_json(CAST(12.50BD AS VARIANT))')).toBe('12.5');
    expect(await one('to_json(CAST(1.5D AS VARIANT))')).toBe('1.5');
    expect(await one("to_json(CAST(DATE '2024-01-02' AS VARIANT))")).toBe('"2024-01-02"');
    expect(await one("to_json(CAST(array(1, NULL, 3) AS VARIANT))")).toBe('[1,null,3]');
    expect(await one("schema_of_variant(CAST(123.4 AS VARIANT))")).toBe('DECIMAL(4,1)');
    expect(await one("to_json(to_variant_object(named_struct('b', 1, 'a', 'x')))")).toBe('{"a":"x","b":1}');
    expect(selectRefusal("CAST(named_struct('a', 1) AS VARIANT)", rel).errorClass).toBe('DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION');
  });

  it('try_parse_json, is_variant_null, schema_of_variant and a SQL NULL', async () => {
    expect(await one('try_parse_json(value)', '{"a":')).toBeNull();
    const err = await failure(one('parse_json(value)', '{"a":'));
    expect(err.errorClass).toBe('MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION');
    expect(await one('parse_json(value)', null)).toBeNull();
    expect(await one("is_variant_null(variant_get(parse_json(value), '$.n'))", doc)).toBe(true);
    expect(await one("is_variant_null(variant_get(parse_json(value), '$.missing'))", doc)).toBe(false);
    expect(await one('is_variant_null(parse_json(value))', null)).toBe(false);
    expect(await one('schema_of_variant(parse_json(value))', doc)).toBe('OBJECT<amount: DECIMAL(3,1), n: VOID, ok: BOOLEAN, tags: ARRAY<STRING>, ts: STRING, user: OBJECT<id: BIGINT, name: STRING, score: STRING>>');
    expect(await one("typeof(parse_json(value))", doc)).toBe('variant');
  });

  it('a variant column in a sink row is its JSON', async () => {
    const [row] = await run('SELECT to_json(named_struct(\'v\', parse_json(value))) AS j FROM events', [{ value: '{"id": 12345678901234567890}' }]);
    expect(row.j).toBe('{"v":{"id":12345678901234567890}}');
  });

  it('keeps a variant in an aggregation\'s state across batches', async () => {
    const events: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'events', schema: [{ name: 'k', type: 'string' }, ...SCHEMA], watermarkDelayMs: 0 };
    const rows = [{ k: 'a', value: '{"id": 12345678901234567890}' }, { k: 'a', value: '[1.50]' }, { k: 'b', value: 'null' }];
    const { output } = await runInBatches('SELECT k, collect_list(parse_json(value)) AS vs FROM events GROUP BY k', events, rows, 2);
    expect(output.map((r) => [r.k, (r.vs as Variant[]).map(variantToJson)])).toEqual([['a', ['{"id":12345678901234567890}', '[1.5]']], ['b', ['null']]]);
  });

  it("refuses a variant path that is not Spark's (INVALID_VARIANT_GET_PATH)", () => {
    expect(selectRefusal("variant_get(parse_json(value), 'user.id', 'int')", rel).errorClass).toBe('INVALID_VARIANT_GET_PATH');
  });

  it('refuses comparing, ordering, grouping and DISTINCT of a VARIANT with Spark classes', () => {
    expect(selectRefusal('parse_json(value) = parse_json(value)', rel).errorClass).toBe('DATATYPE_MISMATCH.INVALID_ORDERING_TYPE');
    expect(selectRefusal("parse_json(value) IN (parse_json('1'))", rel).errorClass).toBe('DATATYPE_MISMATCH.INVALID_ORDERING_TYPE');
    expect(selectRefusal('hash(parse_json(value))', rel).errorClass).toBe('DATATYPE_MISMATCH.HASH_VARIANT_TYPE');
    // Spark casts a VARIANT implicitly to nothing: concat(v) is refused, not the text of an object.
    expect(selectRefusal('concat(parse_json(value))', rel).errorClass).toBe('DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
    const compileError = (sql: string) => { try { compileStreamingQuery(sql, rel); } catch (e) { return (e as WeirError).errorClass; } return 'compiled'; };
    expect(compileError('SELECT max(parse_json(value)) FROM src')).toBe('DATATYPE_MISMATCH.INVALID_ORDERING_TYPE');
    expect(compileError('SELECT parse_json(value) AS v, count(*) FROM src GROUP BY 1')).toBe('GROUP_EXPRESSION_TYPE_IS_NOT_ORDERABLE');
    expect(compileError('SELECT DISTINCT parse_json(value) AS v FROM src')).toBe('UNSUPPORTED_FEATURE.SET_OPERATION_ON_VARIANT_TYPE');
    expect(compileError('SELECT parse_json(value) AS v FROM src UNION SELECT parse_json(value) FROM src')).toBe('UNSUPPORTED_FEATURE.SET_OPERATION_ON_VARIANT_TYPE');
    expect(compileError('SELECT * FROM src a JOIN src b ON parse_json(a.value) = parse_json(b.value)')).toBe('DATATYPE_MISMATCH.INVALID_ORDERING_TYPE');
    expect(compileError('SELECT coalesce(parse_json(value), parse_json(value)) AS v, isnull(parse_json(value)) AS n FROM src')).toBe('compiled');
  });

  it("reads Spark 4's path syntax v:a.b[0] as variant_get(v, '$.a.b[0]'), a VARIANT, cast by a following ::type", async () => {
    expect(await one('to_json(parse_json(value):user)', doc)).toBe('{"id":1234567890123456789,"name":"ann","score":"12"}');
    expect(await one('parse_json(value):user.id::bigint', doc)).toBe(1234567890123456789n);
    expect(await one("parse_json(value):['user']['name']::string", doc)).toBe('ann');
    expect(await one('parse_json(value) : tags [1] :: string', doc)).toBe('b');
    expect(await one('parse_json(value):user.score::int + 1', doc)).toBe(13);
    expect(await one('typeof(parse_json(value):amount)', doc)).toBe('variant');
    expect(await one('parse_json(value):missing.x::int', doc)).toBeNull();
    expect(await one('to_json(parse_json(value):[0])', '[7, 8]')).toBe('7');
    // A path reads the JSON's keys exactly (case-sensitive), as variant_get does.
    expect(await one('parse_json(value):User::string', doc)).toBeNull();
    // Through a subquery's column, and after a struct field.
    const [row] = await run("SELECT j:user.name::string AS n, s.j:ok::boolean AS ok FROM (SELECT parse_json(value) AS j, named_struct('j', parse_json(value)) AS s FROM events)", [{ value: doc }]);
    expect(row).toEqual({ n: 'ann', ok: true });
  });

  it("names a path's column as its variant_get call", () => {
    const q = compileStreamingQuery('SELECT parse_json(value):user.id, parse_json(value):[0]::int FROM src', rel);
    expect(q.outputSchema.map((f) => f.name)).toEqual(["variant_get(parse_json(value), '$.user.id')", "CAST(variant_get(parse_json(value), '$[0]') AS INT)"]);
  });

  it('refuses a path of what is no VARIANT (COLUMN_IS_NOT_VARIANT_TYPE), a NULL too', () => {
    expect(selectRefusal('value:a', rel).errorClass).toBe('COLUMN_IS_NOT_VARIANT_TYPE');
    expect(selectRefusal('NULL:a', rel).errorClass).toBe('COLUMN_IS_NOT_VARIANT_TYPE');
    expect(selectRefusal("named_struct('a', 1):a", rel).errorClass).toBe('COLUMN_IS_NOT_VARIANT_TYPE');
    // variant_get itself takes a NULL.
    expect(() => compileStreamingQuery("SELECT variant_get(NULL, '$.a') AS v FROM src", rel)).not.toThrow();
  });

  it('refuses a colon that is no path: after a string (a parameter marker to Spark 4.1), or at the start of an expression', () => {
    expect(selectRefusal("'str':a", rel).errorClass).toBe('PARSE_SYNTAX_ERROR');
    expect(selectRefusal(':a', rel).message).toContain("Syntax error at or near ':'");
    expect(selectRefusal('(parse_json(value):)', rel).errorClass).toBe('PARSE_SYNTAX_ERROR');
    // A keyword is a name there, as in Spark's grammar: the path `AS`.
    expect(() => compileStreamingQuery('SELECT parse_json(value): AS v FROM src', rel)).not.toThrow();
  });

  it('schema_of_variant_agg merges the schemas of a group\'s variants across batches, VOID for none', async () => {
    const events: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'events', schema: [{ name: 'k', type: 'string' }, ...SCHEMA], watermarkDelayMs: 0 };
    const rows = [
      { k: 'a', value: '{"id": 1, "tags": ["x"]}' }, { k: 'a', value: '{"id": 2.5, "name": "ann"}' }, { k: 'a', value: null },
      { k: 'b', value: '1' }, { k: 'b', value: '"s"' }, { k: 'c', value: null },
    ];
    const { output } = await runInBatches('SELECT k, schema_of_variant_agg(parse_json(value)) AS s FROM events GROUP BY k', events, rows, 3);
    expect(output.map((r) => [r.k, r.s])).toEqual([['a', 'OBJECT<id: DECIMAL(21,1), name: STRING, tags: ARRAY<STRING>>'], ['b', 'VARIANT'], ['c', 'VOID']]);
  });

  it('schema_of_variant_agg over a static table, and its refusals', async () => {
    const { rows } = await selectStatic(`SELECT schema_of_variant_agg(parse_json(j)) AS s FROM VALUES ('[1, 2]'), ('[3.5]'), (NULL) AS t(j)`, []);
    expect(rows).toEqual([{ s: 'ARRAY<DECIMAL(21,1)>' }]);
    const { rows: none } = await selectStatic('SELECT schema_of_variant_agg(parse_json(j)) AS s FROM VALUES (CAST(NULL AS STRING)) AS t(j) WHERE j IS NOT NULL', []);
    expect(none).toEqual([{ s: 'VOID' }]);
    const compileError = (sql: string) => { try { compileStreamingQuery(sql, rel); } catch (e) { return (e as WeirError).errorClass; } return 'compiled'; };
    expect(compileError("SELECT schema_of_variant_agg(value) FROM src GROUP BY value")).toBe('DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
    expect(compileError("SELECT schema_of_variant_agg(NULL) FROM src GROUP BY value")).toBe('DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
  });

  it("from_json reads a VARIANT field from the JSON exactly, as Spark's JacksonParser: a JSON null a variant null", async () => {
    const text = '{"id": 7, "Payload": {"n": 12345678901234567890, "d": 1.50, "x": [1e3]}, "nothing": null}';
    expect(await one("to_json(from_json(value, 'id BIGINT, payload VARIANT').payload)", text)).toBe('{"d":1.5,"n":12345678901234567890,"x":[1000.0]}');
    expect(await one("from_json(value, 'id BIGINT, payload VARIANT').payload:n::decimal(20,0)", text)).toBe(12345678901234567890n);
    expect(await one("schema_of_variant(from_json(value, 'payload VARIANT').payload)", text)).toBe('OBJECT<d: DECIMAL(2,1), n: DECIMAL(20,0), x: ARRAY<DOUBLE>>');
    expect(await one("is_variant_null(from_json(value, 'nothing VARIANT').nothing)", text)).toBe(true);
    expect(await one("from_json(value, 'missing VARIANT').missing IS NULL", text)).toBe(true);
    // Text that is no JSON object, or a key twice inside the variant's value: every field NULL (PERMISSIVE).
    expect(await one("to_json(from_json(value, 'id BIGINT, v VARIANT'))", '{"id": 1, "v": {"a": 1, "a": 2}}')).toBe('{}');
    expect(await one("from_json(value, 'v VARIANT').v IS NULL", '[1]')).toBe(true);
  });

  it("reads a JSON source's VARIANT column exactly, through a query and an aggregation's state", async () => {
    const schema: Schema = [{ name: 'k', type: 'string' }, { name: 'payload', type: 'variant' }];
    const parser = new JsonLineParser(schema);
    const rows = ['{"k": "a", "payload": {"id": 12345678901234567890, "amount": 12.50}}', '{"k": "a", "payload": {"id": 1, "tags": ["x"]}}', '{"k": "b", "payload": null}', '{"k": "b"}']
      .map((line) => { const r = parser.parse(line); if (!r.ok) throw new Error(r.reason); return r.row; });
    const events: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'events', schema, watermarkDelayMs: 0 };
    const { output } = await runInBatches('SELECT k, max(payload:id::decimal(20,0)) AS id, schema_of_variant_agg(payload) AS s, count(payload) AS n FROM events GROUP BY k', events, rows, 2);
    expect(output).toEqual([
      { k: 'a', id: 12345678901234567890n, s: 'OBJECT<amount: DECIMAL(3,1), id: DECIMAL(20,0), tags: ARRAY<STRING>>', n: 2 },
      { k: 'b', id: null, s: 'VOID', n: 1 },
    ]);
  });

  it("from_json(s, 'variant') is parse_json(s), failing where it fails", async () => {
    expect(await one("to_json(from_json(value, 'variant'))", '{"b": 1.50, "a": 12345678901234567890}')).toBe('{"a":12345678901234567890,"b":1.5}');
    expect(await one("typeof(from_json(value, ' VARIANT '))", '1')).toBe('variant');
    expect(await one("from_json(value, 'variant')", null)).toBeNull();
    expect((await failure(one("from_json(value, 'variant')", '{"a":'))).errorClass).toBe('MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION');
  });

  it('refuses a VARIANT deeper than a field where a reader would build it from text (source schema, from_json)', () => {
    expect(selectRefusal("from_json(value, 'a ARRAY<VARIANT>')", rel).message).toMatch(/parse_json/);
    expect(selectRefusal("from_json(value, 'a STRUCT<v: VARIANT>')", rel).message).toMatch(/parse_json/);
    expect(selectRefusal("from_csv(value, 'a VARIANT')", rel).message).toMatch(/parse_json/);
    expect(columnField('payload', 'ARRAY<VARIANT>')).toMatch(/parse_json/);
  });
});
