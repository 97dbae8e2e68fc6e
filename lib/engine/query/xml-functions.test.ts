/**
 * Spark's XPath functions (xml_funcs) on Spark's own tests: XPathExpressionSuite (each function,
 * its NULL and empty inputs, an invalid document and path, "accept only literal path"),
 * UDFXPathUtilSuite (the evals, embedFailure) and XPathFunctionsSuite, and on answers captured
 * from Spark's JVM (XPath 1.0's number grammar, no namespaces, the JVM's narrowing casts).
 */
import { describe, expect, it, vi } from 'vitest';
import xpathModule from 'xpath';
import type { Row } from '../types';
import { printed } from './testing/spark-printed';
import { compileStreamingQuery } from './streaming-query';
import { failure, selectRefusal } from './testing/select-refusal';

const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: [{ name: 'id', type: 'long' as const }, { name: 'xml', type: 'string' as const }, { name: 'p', type: 'string' as const }] };

/** `expr` over one row whose `xml` column is `xml`: the value as Spark's shell prints it. */
async function shown(expr: string, xml: string | null = null): Promise<string> {
  const q = compileStreamingQuery(`SELECT ${expr} AS v FROM src`, rel);
  let out: Row[] = [{ id: 1, xml, p: 'a' }];
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  return printed(out[0].v, q.outputSchema[0]);
}

const lit = (s: string | null) => (s === null ? 'CAST(NULL AS STRING)' : `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`);
/** fn(xml, path) with both as literals, printed. */
const call = (fn: string, xml: string | null, path: string | null) => shown(`${fn}(xml, ${lit(path)})`, xml);

const refusal = (expr: string) => selectRefusal(expr, rel);

const FUNCTIONS = ['xpath', 'xpath_boolean', 'xpath_double', 'xpath_number', 'xpath_float', 'xpath_int', 'xpath_long', 'xpath_short', 'xpath_string'];

describe('xpath functions', () => {
  // XPathExpressionSuite's testNullAndErrorBehavior, for each function.
  it.each(FUNCTIONS)('%s: NULL or empty xml or path is NULL; a malformed document fails the row; an invalid path the query', async (fn) => {
    expect(await call(fn, "<a><b>b1</b><b id='b_2'>b2</b></a>", null)).toBe('NULL');
    expect(await call(fn, null, 'a')).toBe('NULL');
    expect(await call(fn, null, null)).toBe('NULL');
    expect(await call(fn, '', 'a')).toBe('NULL');
    expect(await call(fn, '<a></a>', '')).toBe('NULL');
    expect(await call(fn, '', '')).toBe('NULL');
    // Spark: RuntimeException "Error loading expression 'a'", caused by the parser's error.
    const e = await failure(call(fn, '<a>/a>', 'a'));
    expect(e.code).toBe('EXPRESSION_ERROR');
    expect(e.message).toMatch(/^Error loading expression 'a': the XML is not well-formed \(.+\)/);
    // Spark: "Invalid XPath '!#$'…", at its first row; Weir's compiles the path with the query.
    expect(refusal(`${fn}(xml, '!#$')`).message).toContain("Invalid XPath '!#$'");
  });

  it('xpath_boolean', async () => {
    const t = (xml: string, path: string) => call('xpath_boolean', xml, path);
    expect(await t('<a><b>b</b></a>', 'a/b')).toBe('true');
    expect(await t('<a><b>b</b></a>', 'a/c')).toBe('false');
    expect(await t('<a><b>b</b></a>', 'a/b = "b"')).toBe('true');
    expect(await t('<a><b>b</b></a>', 'a/b = "c"')).toBe('false');
    expect(await t('<a><b>10</b></a>', 'a/b < 10')).toBe('false');
    expect(await t('<a><b>10</b></a>', 'a/b = 10')).toBe('true');
    // UDFXPathUtilSuite "boolean eval".
    expect(await t('<a><b>true</b><b>false</b><b>b3</b><c>c1</c><c>c2</c></a>', 'a/b[1]/text()')).toBe('true');
    expect(await t('<a><b>true</b><b>false</b><b>b3</b><c>c1</c><c>c2</c></a>', 'a/b[4]')).toBe('false');
  });

  it('xpath_short, xpath_int, xpath_long: 0 for a non-number, the JVM narrowing of the double', async () => {
    for (const fn of ['xpath_short', 'xpath_int', 'xpath_long']) {
      expect(await call(fn, '<a>this is not a number</a>', 'a')).toBe('0');
      expect(await call(fn, '<a>try a boolean</a>', 'a = 10')).toBe('0');
      expect(await call(fn, '<a><b>10</b></a>', 'a/b = 10')).toBe('1');
      expect(await call(fn, '<a><b>INF</b></a>', 'a/b')).toBe('0');
    }
    expect(await call('xpath_short', '<a><b class="odd">10000</b><b class="even">2</b><b class="odd">4</b><c>8</c></a>', 'sum(a/b[@class="odd"])')).toBe('10004');
    expect(await call('xpath_int', '<a><b class="odd">100000</b><b class="even">2</b><b class="odd">4</b><c>8</c></a>', 'sum(a/b[@class="odd"])')).toBe('100004');
    expect(await call('xpath_long', '<a><b class="odd">9000000000</b><b class="even">2</b><b class="odd">4</b><c>8</c></a>', 'sum(a/b[@class="odd"])')).toBe('9000000004');
    // Double.shortValue is (short)(int) d: it wraps; intValue and longValue saturate.
    expect(await call('xpath_short', '<a><b>99999</b></a>', 'a/b')).toBe('-31073');
    expect(await call('xpath_short', '<a><b>32768</b></a>', 'a/b')).toBe('-32768');
    expect(await call('xpath_short', '<a><b>-40000</b></a>', 'a/b')).toBe('25536');
    expect(await call('xpath_int', '<a><b>99999999999</b></a>', 'a/b')).toBe('2147483647');
    expect(await call('xpath_long', '<a><b>99999999999999999999999</b></a>', 'a/b')).toBe('9223372036854775807');
    // The first of several nodes.
    expect(await call('xpath_int', '<a><b>7</b><b>8</b></a>', 'a/b')).toBe('7');
    const q = compileStreamingQuery("SELECT xpath_short(xml, 'a') AS s, xpath_int(xml, 'a') AS i, xpath_long(xml, 'a') AS l FROM src", rel);
    expect(q.outputSchema.map((f) => [f.type, f.integral])).toEqual([['long', 16], ['long', 32], ['long', undefined]]);
  });

  it('xpath_float, xpath_double, xpath_number: NaN for a non-number, 0 for false', async () => {
    for (const fn of ['xpath_float', 'xpath_double', 'xpath_number']) {
      expect(await call(fn, '<a>this is not a number</a>', 'a')).toBe('NaN');
      expect(await call(fn, '<a>try a boolean</a>', 'a = 10')).toBe('0.0');
      expect(await call(fn, '<a><b class="odd">1</b><b class="even">2</b><b class="odd">4</b><c>8</c></a>', 'sum(a/b[@class="odd"])')).toBe('5.0');
      // XPathFunctionsSuite.
      expect(await call(fn, '<a><b>1.0</b><b>2.1</b></a>', 'sum(a/b)')).toBe('3.1');
    }
    // UDFXPathUtilSuite "number eval".
    expect(await call('xpath_double', '<a><b>true</b><b>false</b><b>b3</b><c>c1</c><c>-77</c></a>', 'a/c[2]')).toBe('-77.0');
    expect(await call('xpath_double', '<a><b>true</b><b k="foo">FALSE</b><b>b3</b><c>c1</c><c>c2</c></a>', 'a/b[2]/@k')).toBe('NaN');
    expect(compileStreamingQuery("SELECT xpath_float(xml, 'a') AS f FROM src", rel).outputSchema[0]).toMatchObject({ type: 'double', float32: true });
  });

  it("reads a number by XPath 1.0's grammar, as the JDK does: no exponent, sign or INF, XML whitespace only", async () => {
    const d = (text: string, path = 'a/b') => call('xpath_double', `<a><b>${text}</b></a>`, path);
    for (const nan of ['INF', '-INF', '1.5e2', '1e400', '+5', '\u00a042\u00a0', '\u200342', '\u008542', '\u2028 42', '', '.', '-', '1.2.3']) {
      expect(await d(nan), JSON.stringify(nan)).toBe('NaN');
    }
    expect(await d('1.5e2', 'number(a/b)')).toBe('NaN');
    expect(await d('1.5e2', 'sum(a/b)')).toBe('NaN');
    expect(await d('INF', 'number(a/b)')).toBe('NaN');
    expect(await d(' \t42\r\n')).toBe('42.0');
    expect(await d('5.')).toBe('5.0');
    expect(await d('-.5')).toBe('-0.5');
    expect(await call('xpath_double', '<a><b>1</b><b>2</b></a>', 'number(a/b)')).toBe('1.0');
    expect(await call('xpath_double', '<a><b>10</b></a>', 'string(a/b)')).toBe('10.0');
    expect(await call('xpath_double', '<a><b>10</b></a>', 'true()')).toBe('1.0');
    expect(await call('xpath_float', '<a><b>1e300</b></a>', 'a/b')).toBe('NaN');
    expect(await call('xpath_int', '<a><b>\u00a042\u00a0</b></a>', 'a/b')).toBe('0');
  });

  it('xpath_string: the string value of the first node', async () => {
    const t = (xml: string, path: string) => call('xpath_string', xml, path);
    expect(await t('<a><b>bb</b><c>cc</c></a>', 'a')).toBe('bbcc');
    expect(await t('<a><b>bb</b><c>cc</c></a>', 'a/b')).toBe('bb');
    expect(await t('<a><b>bb</b><c>cc</c></a>', 'a/c')).toBe('cc');
    expect(await t('<a><b>bb</b><c>cc</c></a>', 'a/d')).toBe('');
    expect(await t('<a><b>b1</b><b>b2</b></a>', '//b')).toBe('b1');
    expect(await t('<a><b>b1</b><b>b2</b></a>', 'a/b[1]')).toBe('b1');
    expect(await t("<a><b>b1</b><b id='b_2'>b2</b></a>", "a/b[@id='b_2']")).toBe('b2');
    expect(await t('<a><b>b1</b><b>b2</b></a>', 'a/b')).toBe('b1');
    // UDFXPathUtilSuite "generic eval" and "string eval".
    expect(await t('<a><b>b1</b><b>b2</b><b>b3</b><c>c1</c><c>c2</c></a>', 'a/c[2]/text()')).toBe('c2');
    expect(await t('<a><b>true</b><b>false</b><b>b3</b><c>c1</c><c>c2</c></a>', 'a/b[3]/text()')).toBe('b3');
    expect(await t('<a><b>true</b><b>false</b><b>b3</b><c>c1</c><c>c2</c></a>', 'a/b[4]/text()')).toBe('');
    expect(await t('<a><b>true</b><b k="foo">FALSE</b><b>b3</b><c>c1</c><c>c2</c></a>', 'a/b[2]/@k')).toBe('foo');
    expect(await t('<a>&#x41;&lt;<![CDATA[x<y]]></a>', 'a')).toBe('A<x<y');
    expect(await t('<!--c--><?p d?><a>\ufffd</a>', '/comment()')).toBe('c');
    expect(await t('<!--c--><?p d?><a>\ufffd</a>', '/processing-instruction("p")')).toBe('d');
    expect(await t('<!--c--><?p d?><a>\ufffd</a>', 'a')).toBe('\ufffd');
    expect(await t('<?xml version="1.0"?>\r\n<a>x\r\ny</a>', 'a')).toBe('x\ny');
  });

  it("xpath: each matched node's value, NULL for an element", async () => {
    const xml = '<a><b>b1</b><b>b2</b><b>b3</b><c>c1</c><c>c2</c></a>';
    expect(await call('xpath', xml, 'a/text()')).toBe('[]');
    // Document order, whatever order the path finds them in.
    expect(await call('xpath', xml, 'a/c/text() | a/b/text()')).toBe('["b1","b2","b3","c1","c2"]');
    expect(await call('xpath', xml, '//text()[. = "c2" or . = "b1"]')).toBe('["b1","c2"]');
    expect(await call('xpath', '<a x="1"><b y="2">t</b></a>', '//@* | //text()')).toBe('["1","2","t"]');
    expect(await call('xpath', xml, 'a/*/text()')).toBe('["b1","b2","b3","c1","c2"]');
    expect(await call('xpath', xml, 'a/b/text()')).toBe('["b1","b2","b3"]');
    expect(await call('xpath', xml, 'a/c/text()')).toBe('["c1","c2"]');
    expect(await call('xpath', "<a><b class='bb'>b1</b><b>b2</b><b>b3</b><c class='bb'>c1</c><c>c2</c></a>", "a/*[@class='bb']/text()")).toBe('["b1","c1"]');
    expect(await call('xpath', xml, 'a/b')).toBe('[null,null,null]');
    expect(await call('xpath', '<a b="1" c="2"/>', 'a/@*')).toBe('["1","2"]');
    expect(await shown("coalesce(xpath('<a></a>', 'a')[0], 'nul')")).toBe('nul');
    // A path of a number, a string or a boolean gives no nodes (Spark: "Can not convert #NUMBER to a NodeList!").
    expect((await failure(call('xpath', '<a/>', 'count(a)'))).message).toContain("the path 'count(a)' gives a single value, not nodes");
  });

  it('walks every axis as XPath 1.0 defines it', async () => {
    const xml = '<!--top--><r k="0"><a k="1">t1<b>2</b><!--c--></a><c>3</c><a k="2"/></r>';
    const x = (path: string) => call('xpath', xml, path);
    // following: after the node and its descendants; preceding: before it, but its ancestors.
    expect(await x('//b/following::node()/self::text() | //b/following::comment()')).toBe('["c","3"]');
    expect(await x('//b/following::*')).toBe('[null,null]');
    expect(await x('//c/preceding::node()')).toBe('["top",null,"t1",null,"2","c"]');
    expect(await x('//c/preceding::*[1]/@k')).toBe('[]');
    expect(await x('//c/preceding::*[2]/@k')).toBe('["1"]');
    expect(await x('//a[1]/@k/following::text()')).toBe('["t1","2","3"]');
    expect(await x('//a[2]/preceding-sibling::*')).toBe('[null,null]');
    expect(await x('//b/ancestor::*/@k')).toBe('["0","1"]');
    expect(await call('xpath_string', xml, '//b/ancestor::*[1]/@k')).toBe('1');
    expect(refusal("xpath(xml, '//a/namespace::*')").message).toContain('the namespace axis');
  });

  it('reads the document without namespaces, as Spark (its parser is not namespace-aware)', async () => {
    expect(await call('xpath_string', '<a xmlns="http://x"><b>v</b></a>', 'a/b')).toBe('v');
    expect(await call('xpath_int', '<a xmlns="http://x"><b>7</b></a>', 'a/b')).toBe('7');
    expect(refusal("xpath_string(xml, 'a/p:b')").message).toContain('the prefix p: has no namespace');
    // An element's name is its whole qualified name, and an undeclared prefix is no error.
    expect(await call('xpath_string', '<a><p:b>1</p:b></a>', 'a/*')).toBe('1');
    expect(await call('xpath_string', '<a><p:b>1</p:b></a>', 'a/b')).toBe('');
    expect(await call('xpath_string', '<a><p:b>1</p:b></a>', "name(a/*)")).toBe('p:b');
    // xmlns declares a namespace, it is not an attribute.
    expect(await call('xpath', '<a xmlns="u" xmlns:q="v" b="1"/>', 'a/@*')).toBe('["1"]');
  });

  it('reads no external entity (UDFXPathUtilSuite embedFailure): the row fails, nothing is read', async () => {
    const xml = '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE test [ \n    <!ENTITY embed SYSTEM "/etc/passwd"> \n]>\n<foo>&embed;</foo>';
    const e = await failure(call('xpath_string', xml, '/foo'));
    expect(e.message).toContain('undefined entity');
    expect(e.message).not.toContain('root:');
    // A DOCTYPE naming an external DTD is not fetched.
    expect(await call('xpath_string', '<!DOCTYPE a SYSTEM "http://127.0.0.1:9/x.dtd"><a>ok</a>', 'a')).toBe('ok');
  });

  it('refuses a path that is not foldable, not a string, or names what XPath 1.0 cannot bind', () => {
    // XPathExpressionSuite "accept only literal path".
    const e = refusal('xpath_int(xml, p)');
    expect(e.errorClass).toBe('DATATYPE_MISMATCH.NON_FOLDABLE_INPUT');
    expect(e.message).toContain('the input `path` should be a foldable "STRING" expression');
    // (Spark's suite folds concat('/', '/'), a path its first row then fails on: Weir compiles the path with the query.)
    expect(() => compileStreamingQuery("SELECT xpath_int(xml, concat('a', '/b')) AS v FROM src", rel)).not.toThrow();
    expect(refusal('xpath_int(xml, 1)').errorClass).toBe('DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
    expect(refusal("xpath_int(1, 'a')").errorClass).toBe('DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
    expect(refusal("xpath_int(xml, 'a/text(')").message).toContain("Invalid XPath 'a/text('");
    expect(refusal("xpath_double(xml, '1, 2')").message).toContain("Invalid XPath '1, 2'");
    expect(refusal("xpath_int(xml, 'foo(a)')").message).toContain('there is no XPath 1.0 function foo()');
    expect(refusal("xpath_int(xml, '$v')").message).toContain('the variable $v has no value');
  });

  it('compiles the path once for the query, not per row', async () => {
    const parse = vi.spyOn(xpathModule as unknown as { parse(p: string): unknown }, 'parse');
    try {
      const q = compileStreamingQuery("SELECT xpath_int(xml, 'sum(a/b)') AS v FROM src", rel);
      const compiledWith = parse.mock.calls.length;
      const rows: Row[] = Array.from({ length: 50 }, (_, i) => ({ id: i, xml: `<a><b>${i}</b><b>1</b></a>`, p: null }));
      let out = rows;
      for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
      expect(out.map((r) => r.v)).toEqual(rows.map((r) => (r.id as number) + 1));
      expect(parse.mock.calls.length).toBe(compiledWith);
    } finally {
      parse.mockRestore();
    }
  });
});
