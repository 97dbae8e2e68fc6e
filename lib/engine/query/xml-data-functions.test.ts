/**
 * from_xml, schema_of_xml and to_xml on the examples of Spark's function reference, on
 * XmlFunctionsSuite's cases (attributes, the value tag, arrays, the parse modes and the corrupt
 * record) and on StaxXmlGenerator's output through Woodstox (indentation, empty elements,
 * escaping).
 */
import { describe, expect, it } from 'vitest';
import type { Row } from '../types';
import { printed } from './testing/spark-printed';
import { compileStreamingQuery } from './streaming-query';
import { failure, selectRefusal } from './testing/select-refusal';

const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: [{ name: 'id', type: 'long' as const }, { name: 'xml', type: 'string' as const }] };

/** `expr` over one row whose `xml` column is `xml`: the value as Spark's shell prints it. */
async function shown(expr: string, xml: string | null = null): Promise<string> {
  const q = compileStreamingQuery(`SELECT ${expr} AS v FROM src`, rel);
  let out: Row[] = [{ id: 1, xml }];
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  return printed(out[0].v, q.outputSchema[0]);
}

const refusal = (expr: string) => selectRefusal(expr, rel);

describe('from_xml', () => {
  it("gives the examples of Spark's reference", async () => {
    expect(await shown("from_xml('<p><a>1</a><b>0.8</b></p>', 'a INT, b DOUBLE')")).toBe('{"a":1,"b":0.8}');
    expect(await shown("from_xml('<p><time>26/08/2015</time></p>', 'time Timestamp', map('timestampFormat', 'dd/MM/yyyy'))")).toBe('{"time":2015-08-26 00:00:00}');
    expect(await shown("from_xml('<p><teacher>Alice</teacher><student><name>Bob</name><rank>1</rank></student><student><name>Charlie</name><rank>2</rank></student></p>', 'STRUCT<teacher: STRING, student: ARRAY<STRUCT<name: STRING, rank: INT>>>')"))
      .toBe('{"teacher":"Alice","student":[{"name":"Bob","rank":1},{"name":"Charlie","rank":2}]}');
  });

  it('reads attributes as _-prefixed fields, the root\'s too, and text beside them as _VALUE', async () => {
    expect(await shown("from_xml(xml, '_id INT, a STRUCT<_VALUE: STRING, _x: INT>, b INT')", '<p id="5"><a x="1"> t </a><b>2</b></p>')).toBe('{"_id":5,"a":{"_VALUE":"t","_x":1},"b":2}');
    expect(await shown("from_xml(xml, 'a STRUCT<_VALUE: STRING, _x: INT>', map('excludeAttribute', 'true'))", '<p><a x="1">t</a></p>')).toBe('{"a":{"_VALUE":"t","_x":null}}');
    // An element of child elements read as a STRING is its content as XML.
    expect(await shown("from_xml(xml, 'a STRING')", '<p><a><b>1</b></a></p>')).toBe('{"a":"<b>1</b>"}');
    // Names match case-insensitively; elements the schema does not name are skipped.
    expect(await shown("from_xml(xml, 'A INT')", '<p><x><y/></x><a>7</a></p>')).toBe('{"A":7}');
  });

  it('keeps the partial row of a record with a bad value (PERMISSIVE), with the corrupt record', async () => {
    expect(await shown("from_xml(xml, 'a INT, b INT, _corrupt_record STRING')", '<p><a>x</a><b>2</b></p>')).toBe('{"a":null,"b":2,"_corrupt_record":"<p><a>x</a><b>2</b></p>"}');
    expect(await shown("from_xml(xml, 'a INT, b BOOLEAN')", '<p><a>+3</a><b>1</b></p>')).toBe('{"a":3,"b":true}');
  });

  it('gives a struct of NULLs for text that is not XML, or fails it with FAILFAST', async () => {
    expect(await shown("from_xml(xml, 'a INT')", '<p><a>1</a>')).toBe('{"a":null}');
    expect(await shown("from_xml(xml, 'a INT, bad STRING', map('columnNameOfCorruptRecord', 'bad'))", 'not xml')).toBe('{"a":null,"bad":"not xml"}');
    expect((await failure(shown("from_xml(xml, 'a INT', map('mode', 'FAILFAST'))", '<p><a>x</a></p>'))).errorClass).toBe('MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION');
    expect(await shown("from_xml(xml, 'a INT')", null)).toBe('NULL');
  });

  it('fails a date only Spark 2\'s lenient parser reads (02-29 of 1970), as Spark\'s data sources do', async () => {
    const e = await failure(shown("from_xml(xml, 'd DATE', map('dateFormat', 'MM-dd'))", '<p><d>02-29</d></p>'));
    expect(e.errorClass).toBe('INCONSISTENT_BEHAVIOR_CROSS_VERSION.PARSE_DATETIME_BY_NEW_PARSER');
    expect(await shown("from_xml(xml, 'd DATE', map('dateFormat', 'MM-dd'))", '<p><d>02-28</d></p>')).toBe('{"d":1970-02-28}');
  });

  it("refuses what Spark refuses, with Spark's classes", () => {
    expect(refusal("from_xml(xml, 1)").errorClass).toBe('INVALID_SCHEMA.NON_STRING_LITERAL');
    expect(refusal("from_xml(xml, 'a InvalidType')").errorClass).toBe('PARSE_SYNTAX_ERROR');
    expect(refusal("from_xml(xml, 'a INT', named_struct('mode', 'PERMISSIVE'))").errorClass).toBe('INVALID_OPTIONS.NON_MAP_FUNCTION');
    expect(refusal("from_xml(xml, 'a INT', map('mode', 'DROPMALFORMED'))").message).toContain('PARSE_MODE_UNSUPPORTED');
    expect(refusal("from_xml(xml, 'a INT, _corrupt_record INT')").message).toContain('INVALID_CORRUPT_RECORD_TYPE');
    expect(refusal("from_xml(1, 'a INT')").errorClass).toBe('DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
  });
});

describe('schema_of_xml', () => {
  it("gives the examples of Spark's reference", async () => {
    expect(await shown("schema_of_xml('<p><a>1</a></p>')")).toBe('STRUCT<a: BIGINT>');
    expect(await shown("schema_of_xml('<p><a attr=\"2\">1</a><a>3</a></p>', map('excludeAttribute', 'true'))")).toBe('STRUCT<a: ARRAY<BIGINT>>');
  });

  it("infers by Spark's cascade, attributes and the value tag, and sorts the fields by name", async () => {
    expect(await shown("schema_of_xml('<p><t>2012-12-15 15:15:15</t><d>2012-12-15</d><f>1.5</f><b>TRUE</b><n/><s>x</s></p>')"))
      .toBe('STRUCT<b: BOOLEAN, d: DATE, f: DOUBLE, n: STRING, s: STRING, t: TIMESTAMP>');
    expect(await shown("schema_of_xml('<p id=\"1\"><a attr=\"2\">1</a><a>3</a></p>')")).toBe('STRUCT<_id: BIGINT, a: ARRAY<STRUCT<_VALUE: BIGINT, _attr: BIGINT>>>');
    expect(await shown("schema_of_xml('<p><a>1</a><a>1.5</a><b><c>x</c></b><B><d>1</d></B></p>')")).toBe('STRUCT<a: ARRAY<DOUBLE>, b: ARRAY<STRUCT<c: STRING, d: BIGINT>>>');
    expect(await shown("schema_of_xml('<p><a>1.5</a></p>', map('prefersDecimal', 'true'))")).toBe('STRUCT<a: DECIMAL(2,1)>');
  });

  it('needs a literal sample, as Spark does', () => {
    expect(refusal('schema_of_xml(xml)').errorClass).toBe('DATATYPE_MISMATCH.NON_FOLDABLE_INPUT');
    expect(refusal('schema_of_xml(NULL)').errorClass).toBe('DATATYPE_MISMATCH.UNEXPECTED_NULL');
  });
});

describe('to_xml', () => {
  it("gives the examples of Spark's reference", async () => {
    expect(await shown("to_xml(named_struct('a', 1, 'b', 2))")).toBe('<ROW>\n    <a>1</a>\n    <b>2</b>\n</ROW>');
    expect(await shown("to_xml(named_struct('time', to_timestamp('2015-08-26', 'yyyy-MM-dd')), map('timestampFormat', 'dd/MM/yyyy'))")).toBe('<ROW>\n    <time>26/08/2015</time>\n</ROW>');
  });

  it('writes nested structs and arrays indented, attributes and the value tag, and leaves NULLs out', async () => {
    expect(await shown("to_xml(named_struct('_id', 1, 'n', array(1, NULL, 3), 's', named_struct('_k', 'v', '_VALUE', 2.5D), 'x', CAST(NULL AS INT)))"))
      .toBe('<ROW id="1">\n    <n>1</n>\n    <n>3</n>\n    <s k="v">2.5</s>\n</ROW>');
    expect(await shown("to_xml(named_struct('o', named_struct('i', named_struct('c', TIMESTAMP '2015-08-26 00:00:00')), 'm', map('_a', 1, 'b', 2)))"))
      .toBe('<ROW>\n    <o>\n        <i>\n            <c>2015-08-26T00:00:00.000Z</c>\n        </i>\n    </o>\n    <m a="1">\n        <b>2</b>\n    </m>\n</ROW>');
    expect(await shown("to_xml(named_struct('n', array(array(1, 2))))")).toBe('<ROW>\n    <n>\n        <item>1</item>\n        <item>2</item>\n    </n>\n</ROW>');
  });

  it('closes an element without content in its start tag, and one of empty text with an end tag', async () => {
    expect(await shown("to_xml(named_struct('a', CAST(NULL AS INT)))")).toBe('<ROW/>');
    expect(await shown("to_xml(named_struct('t', ''))")).toBe('<ROW>\n    <t></t>\n</ROW>');
  });

  it('escapes text as Woodstox does', async () => {
    expect(await shown("to_xml(named_struct('a', 'x < y & z > w', 'b', '>x]]>'))")).toBe('<ROW>\n    <a>x &lt; y &amp; z > w</a>\n    <b>&gt;x]]&gt;</b>\n</ROW>');
  });

  it('reads rowTag, indent, nullValue and the datetime formats', async () => {
    expect(await shown("to_xml(named_struct('a', 1, 'b', CAST(NULL AS INT)), map('rowTag', 'r', 'indent', '', 'nullValue', 'NA'))")).toBe('<r><a>1</a><b>NA</b></r>\n');
    expect(await shown("to_xml(named_struct('d', DATE '2015-08-26', 'f', CAST(1.1 AS FLOAT), 'g', 1E21D), map('dateFormat', 'dd/MM/yyyy'))")).toBe('<ROW>\n    <d>26/08/2015</d>\n    <f>1.1</f>\n    <g>1.0E21</g>\n</ROW>');
  });

  it('reads back what it writes', async () => {
    expect(await shown("from_xml(to_xml(named_struct('_id', 1, 'n', array(1, 2), 's', named_struct('c', 'x'))), '_id INT, n ARRAY<INT>, s STRUCT<c: STRING>')")).toBe('{"_id":1,"n":[1,2],"s":{"c":"x"}}');
  });

  it('takes a struct only', () => {
    expect(refusal('to_xml(array(1))').errorClass).toBe('DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
  });
});
