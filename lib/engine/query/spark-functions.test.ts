/**
 * Spark's built-in functions on the examples of Spark's own function reference: each expected
 * value is the result Spark's documentation prints (timestamps in UTC, as epoch ms; a DATE as Spark
 * prints it, yyyy-MM-dd).
 */
import { describe, expect, it } from 'vitest';
import { WeirError } from '../errors';
import type { Row, Schema } from '../types';
import { formatDate } from './date';
import { formatDecimal } from './decimal';
import { compileStreamingQuery } from './streaming-query';

const SCHEMA: Schema = [{ name: 'id', type: 'long' }, { name: 'n', type: 'long' }];
const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: SCHEMA };
const BATCH_TS = Date.UTC(2024, 4, 6, 7, 8, 9);

async function one(expr: string): Promise<unknown> {
  const q = compileStreamingQuery(`SELECT ${expr} AS v FROM src`, rel);
  let out: Row[] = [{ id: 1, n: null }];
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: BATCH_TS });
  // A decimal as Spark prints it: its digits with its scale.
  const f = q.outputSchema[0];
  if (f.type === 'date' && typeof out[0].v === 'number') return `${formatDate(out[0].v)}::DATE`;
  return f.type === 'decimal' && typeof out[0].v === 'bigint' ? `${formatDecimal(out[0].v, f.scale ?? 0)}::DECIMAL(${f.precision},${f.scale})` : out[0].v;
}

const day = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d);

// [expression, Spark's result]
const EXAMPLES: [string, unknown][] = [
  // string
  ["instr('SparkSQL', 'SQL')", 6],
  ["locate('bar', 'foobarbar')", 4],
  ["locate('bar', 'foobarbar', 5)", 7],
  ["position('bar', 'foobarbar')", 4],
  ["position('bar' IN 'foobarbar')", 4],
  ["initcap('sPark sql')", 'Spark Sql'],
  ["translate('AaBbCc', 'abc', '123')", 'A1B2C3'],
  ["left('Spark SQL', 3)", 'Spa'],
  ["right('Spark SQL', 3)", 'SQL'],
  ["repeat('123', 2)", '123123'],
  ["substr('Spark SQL', 5)", 'k SQL'],
  ["substr('Spark SQL', -3)", 'SQL'],
  ["substr('Spark SQL', 5, 1)", 'k'],
  // Spark reckons the end from the unclamped start.
  ["substr('Spark SQL', -12, 5)", 'Sp'],
  ["substr('Spark SQL', 0, 2)", 'Sp'],
  ["substr('Spark SQL', 3, -1)", ''],
  ["trim('    SparkSQL   ')", 'SparkSQL'],
  ["trim(BOTH FROM '    SparkSQL   ')", 'SparkSQL'],
  ["trim(LEADING FROM '    SparkSQL   ')", 'SparkSQL   '],
  ["trim(TRAILING FROM '    SparkSQL   ')", '    SparkSQL'],
  ["trim('SL' FROM 'SSparkSQLS')", 'parkSQ'],
  ["trim(BOTH 'SL' FROM 'SSparkSQLS')", 'parkSQ'],
  ["trim(LEADING 'SL' FROM 'SSparkSQLS')", 'parkSQLS'],
  ["trim(TRAILING 'SL' FROM 'SSparkSQLS')", 'SSparkSQ'],
  ["btrim('SSparkSQLS', 'SL')", 'parkSQ'],
  // A BINARY where a function takes a STRING is its UTF-8 text (Spark's implicit cast): a STRING.
  ["btrim(encode('  xy ', 'utf-8'))", 'xy'],
  ["typeof(btrim(encode('yxTomxx', 'utf-8'), encode('xyz', 'utf-8')))", 'string'],
  ["upper(encode('ab', 'utf-8'))", 'AB'],
  ["ltrim('    SparkSQL   ')", 'SparkSQL   '],
  ["lpad('hi', 5, '??')", '???hi'],
  ["lpad('hi', 1, '??')", 'h'],
  ["lpad('hi', 5)", '   hi'],
  ["rpad('hi', 5, '??')", 'hi???'],
  ["rpad('hi', 5)", 'hi   '],
  ["ascii('222')", 50],
  ["chr(65)", 'A'],
  ["regexp_replace('100-200', '(\\\\d+)', 'num')", 'num-num'],
  ["regexp_replace('100-200', '(\\\\d+)-(\\\\d+)', '$2-$1')", '200-100'],
  // Characters outside the Basic Multilingual Plane: re2 counts positions in characters.
  ["regexp_replace('😀a b', 'a', 'X')", '😀X b'],
  ["regexp_replace('😀a😀a', 'a', 'X', 3)", '😀a😀X'],
  ["regexp_replace('😀b', '', '-')", '-😀-b-'],
  ["regexp_replace('x😀y', '[😀]', '_')", 'x_y'],
  // Java's replaceAll: `^` matches once, at the start (or at the position, as a region's start).
  ["regexp_replace('aaa', '^a', 'X')", 'Xaa'],
  ["regexp_replace('aaa', '^a', 'X', 2)", 'aXa'],
  ["regexp_replace('a😀a😀a', '😀|a', '-')", '-----'],
  ["regexp_extract('100-200', '(\\\\d+)-(\\\\d+)', 1)", '100'],
  ["'Spark' LIKE 'Spa%'", true],
  ["'a_b' LIKE 'a!_b' ESCAPE '!'", true],
  ["'axb' LIKE 'a!_b' ESCAPE '!'", false],
  ["'a%b' LIKE 'a\\%b'", true],
  ["'axb' LIKE 'a\\%b'", false],
  ["'Spark' NOT RLIKE '^x'", true],
  ["'Spark' REGEXP 'ar'", true],
  ["rlike('Spark', 'ar')", true],
  // Java's POSIX classes (US-ASCII), outside and inside a bracket expression, and negated.
  ["'abc' RLIKE '^\\\\p{Lower}+$'", true],
  ["regexp_replace('Hello, world! (ok)', '\\\\p{Punct}', '')", 'Hello world ok'],
  ["regexp_replace('a1 b2', '[\\\\p{Alpha}\\\\s]', '')", '12'],
  ["regexp_replace('a1 b2', '\\\\P{Alnum}', '_')", 'a1_b2'],
  ["split('a;b, c', '[\\\\p{Punct}\\\\p{Space}]+')", ['a', 'b', 'c']],
  ["r'\\d' = '\\\\d'", true],
  ["length('a\\tb')", 3],
  ["'Spark' ILIKE 'spa%'", true],
  ["'Spark' RLIKE '^Sp.*k$'", true],
  ["startswith('Spark SQL', 'Spark')", true],
  ["contains('Spark SQL', 'SQL')", true],
  // conditional and null
  ["if(1 < 2, 'a', 'b')", 'a'],
  ['nvl(NULL, 2)', 2],
  ['ifnull(NULL, 2)', 2],
  ['nvl2(NULL, 2, 1)', 1],
  ['coalesce(NULL, 1, NULL)', 1],
  ['nullif(2, 2)', null],
  ['isnull(1)', false],
  ['isnotnull(1)', true],
  // math
  ['pow(2, 3)', 8],
  ['power(2, 3)', 8],
  ['sqrt(4)', 2],
  ['pmod(10, 3)', 1],
  ['pmod(-10, 3)', 2],
  ['mod(2, 1.8)', '0.2::DECIMAL(2,1)'],
  ['2 % 1.8', '0.2::DECIMAL(2,1)'],
  ['greatest(10, 9, 2, 4, 3)', 10],
  ['least(10, 9, 2, 4, 3)', 2],
  ['round(2.5, 0)', '3::DECIMAL(2,0)'],
  ['round(-2.5, 0)', '-3::DECIMAL(2,0)'],
  ['bround(2.5, 0)', '2::DECIMAL(2,0)'],
  ['bround(-2.5, 0)', '-2::DECIMAL(2,0)'],
  ['bround(25, -1)', 20],
  ['ceil(-0.1)', '0::DECIMAL(1,0)'],
  ['ceil(5)', 5],
  // An integer or a double with a scale is made a DECIMAL first (RoundCeil takes one): INT is DECIMAL(10,0), DOUBLE DECIMAL(30,15).
  ['ceil(5, -1)', '10::DECIMAL(11,0)'],
  ['floor(-2.5D, 0)', '-3::DECIMAL(16,0)'],
  ['ceil(CAST(7 AS TINYINT), -1)', '10::DECIMAL(4,0)'],
  ['ceil(3.1411, 3)', '3.142::DECIMAL(5,3)'],
  ['ceil(3.1411, -3)', '1000::DECIMAL(4,0)'],
  ['floor(-0.1)', '-1::DECIMAL(1,0)'],
  ['floor(3.1411, 3)', '3.141::DECIMAL(5,3)'],
  ['floor(3.1411, -3)', '0::DECIMAL(4,0)'],
  ['log10(10)', 1],
  ['log2(2)', 1],
  ['ln(1)', 0],
  ['log(10, 100)', 2],
  ['exp(0)', 1],
  ['sign(-40)', -1],
  ['0.1 + 0.2', '0.3::DECIMAL(2,1)'],
  ['1.1 * 3', '3.3::DECIMAL(4,1)'],
  ['CAST(1.005 AS DECIMAL(10,2))', '1.01::DECIMAL(10,2)'],
  ['CAST(2.675 AS DECIMAL(10, 2)) * 2', '5.36::DECIMAL(12,2)'],
  // Exact decimals: Spark's result types, HALF_UP, NULL when a value does not fit (ANSI off).
  ['1 / 3.0', '0.333333::DECIMAL(8,6)'],
  ['CAST(1 AS DECIMAL(38,0)) / 3', '0.333333::DECIMAL(38,6)'],
  ['12345678901234567890123456789012345678 + 0', '12345678901234567890123456789012345678::DECIMAL(38,0)'],
  ['CAST(99999999999999999999999999999999999999 AS DECIMAL(38,0)) + 1', null],
  ['0.1234567890123456789 * 0.1234567890123456789', '0.0152415787532388367501905199875019052::DECIMAL(38,37)'],
  ["CAST('12.345' AS DECIMAL(4,2))", '12.35::DECIMAL(4,2)'],
  ["CAST('-12.345' AS DECIMAL(4,2))", '-12.35::DECIMAL(4,2)'],
  ["CAST('123.4' AS DECIMAL(4,2))", null],
  ["CAST('abc' AS DECIMAL(4,2))", null],
  ['CAST(2.50 AS STRING)', '2.50'],
  ['CAST(-2.7 AS BIGINT)', -2],
  ['CAST(2.5 AS DOUBLE)', 2.5],
  ['CAST(1.5D AS DECIMAL(3,1))', '1.5::DECIMAL(3,1)'],
  ['1.5D', 1.5],
  ['0.1 * 3 = 0.3', true],
  ['2.50 = 2.5', true],
  ['2.5 < 10', true],
  ['0.1 + 0.2D', 0.30000000000000004],
  ['floor(-2.5)', '-3::DECIMAL(2,0)'],
  ['ceil(2.1)', '3::DECIMAL(2,0)'],
  ['abs(-1.25)', '1.25::DECIMAL(3,2)'],
  ['round(-2.345, 2)', '-2.35::DECIMAL(4,2)'],
  ['round(123.45, -1)', '120::DECIMAL(4,0)'],
  ['coalesce(NULL, 1.5, 2.25)', '1.50::DECIMAL(3,2)'],
  ['CASE WHEN id = 1 THEN 1.5 ELSE 2 END', '1.5::DECIMAL(11,1)'],
  // Outside arithmetic an integer literal widens as its type (DecimalType.forType), not by its digits.
  ['CASE WHEN id = 1 THEN 1.5 ELSE 2L END', '1.5::DECIMAL(21,1)'],
  ['coalesce(1Y, 2.5)', '1.0::DECIMAL(4,1)'],
  ['greatest(1, 2.5, 3L)', '3.0::DECIMAL(21,1)'],
  ['3L + 2.5', '5.5::DECIMAL(3,1)'],
  ['id IN (1.0, 2.5)', true],
  // Spark's NaN semantics (its SQL reference, "NaN Semantics"): NaN = NaN, and NaN is above
  // every other double, in comparisons, IN, CASE, greatest and least alike.
  ["CAST('NaN' AS DOUBLE) = CAST('NaN' AS DOUBLE)", true],
  ["CAST('NaN' AS DOUBLE) > 1D", true],
  ["1D < CAST('NaN' AS DOUBLE)", true],
  ["CAST('NaN' AS DOUBLE) <=> CAST('NaN' AS DOUBLE)", true],
  ["CAST('NaN' AS DOUBLE) IN (1D, CAST('NaN' AS DOUBLE))", true],
  ["CASE CAST('NaN' AS DOUBLE) WHEN CAST('NaN' AS DOUBLE) THEN 'nan' ELSE 'no' END", 'nan'],
  ["greatest(1D, CAST('NaN' AS DOUBLE))", NaN],
  ["least(1D, CAST('NaN' AS DOUBLE))", 1],
  // Arrays and structs compare element by element, field by field; `<=>` coerces as `=` does.
  ['array(1, 2) = array(1, 2)', true],
  ['array(1, NULL) = array(1, NULL)', true],
  ['array(1, 2) < array(1, 3)', true],
  ["named_struct('a', 1, 'b', 'x') = named_struct('a', 1, 'b', 'x')", true],
  ["named_struct('a', 1) < named_struct('a', 2)", true],
  ["greatest(named_struct('a', 1), named_struct('a', 2))", { a: 2 }],
  ['1 <=> 1.0', true],
  ["'1' <=> 1", true],
  ['array(1, 2) <=> array(1, 2)', true],
  ['n <=> NULL', true],
  ["array_contains(array(1D, CAST('NaN' AS DOUBLE)), CAST('NaN' AS DOUBLE))", true],
  ["array_sort(array(named_struct('a', 2), named_struct('a', 1), NULL))", [{ a: 1 }, { a: 2 }, null]],
  ["sort_array(array(array(2), array(1, 5), array(1)))", [[1], [1, 5], [2]]],
  ['-(1.25)', '-1.25::DECIMAL(3,2)'],
  ["concat('$', 2.50)", '$2.50'],
  // concat_ws casts every atomic argument to a STRING as CAST does, as concat does.
  ["concat_ws('-', 1, TIMESTAMP '2024-01-01 10:30:15.123', DATE '2024-01-02', 2.0D)", '1-2024-01-01 10:30:15.123-2024-01-02-2.0'],
  ["concat('x', INTERVAL '1' DAY)", "xINTERVAL '1' DAY"],
  // sequence with an INTERVAL step (Spark's function reference; a month step adds months to the start).
  ["CAST(sequence(to_date('2018-01-01'), to_date('2018-03-01'), interval 1 month) AS STRING)", '[2018-01-01, 2018-02-01, 2018-03-01]'],
  ["CAST(sequence(DATE '2024-01-31', DATE '2024-04-30', INTERVAL 1 MONTH) AS STRING)", '[2024-01-31, 2024-02-29, 2024-03-31, 2024-04-30]'],
  ["CAST(sequence(DATE '2024-01-03', DATE '2024-01-01', INTERVAL -1 DAY) AS STRING)", '[2024-01-03, 2024-01-02, 2024-01-01]'],
  ["CAST(sequence(TIMESTAMP '2024-01-01 00:00:00', TIMESTAMP '2024-01-01 01:00:00', INTERVAL 30 MINUTES) AS STRING)", '[2024-01-01 00:00:00, 2024-01-01 00:30:00, 2024-01-01 01:00:00]'],
  // A string function casts an atomic argument to a STRING as CAST writes it (ImplicitTypeCasts).
  ['upper(1)', '1'],
  ['length(123)', 3],
  ["lpad(7, 3, '0')", '007'],
  ['substr(12345, 2, 2)', '23'],
  ['upper(1.50)', '1.50'],
  ["upper(DATE '2024-01-02')", '2024-01-02'],
  // …whatever the result's type (split, sentences, regexp_extract_all: StringSplit and the others
  // are ImplicitCastInputTypes of STRINGs), and outside the string group where Spark's input type
  // is STRING (url_encode); a decimal as its own text.
  ["split(123, '2')", ['1', '3']],
  ["split(12345, 3)", ['12', '45']],
  ["split(1.50, 'x')", ['1.50']],
  ['sentences(1.5)', [['1.5']]],
  ["regexp_extract_all(12345, '([0-9])', 1)", ['1', '2', '3', '4', '5']],
  ["concat_ws('-', array('a'), 12)", 'a-12'],
  ['url_encode(123)', '123'],
  ['2.50 || 1', '2.501'],
  // Spark's ConcatCoercion: BINARYs alone concatenate to a BINARY; beside anything else (a NULL
  // too) each is cast to a STRING, and concat_ws takes only strings.
  ["typeof(X'41' || X'42')", 'binary'],
  ["hex(X'41' || X'42' || X'43')", '414243'],
  ["typeof(concat(X'41', X'42', X'43'))", 'binary'],
  ["hex(concat(X'41', X'42', X'43'))", '414243'],
  ["typeof(concat(X'41', NULL))", 'string'],
  // Spark's Concat of no children: the empty STRING.
  ['typeof(concat())', 'string'],
  ['length(concat())', 0],
  ["concat('a', X'42')", 'aB'],
  ["X'41' || 'b'", 'Ab'],
  ["typeof(concat_ws('', X'41', X'42'))", 'string'],
  ["concat_ws('-', X'41', X'42')", 'A-B'],
  // array() and map() are Spark's ARRAY<VOID> and MAP<VOID, VOID> (since Spark 3.0, SPARK-29462 and
  // SPARK-30790 in its migration guide), which widen to the other side's type.
  ['typeof(array())', 'array<void>'],
  ['typeof(map())', 'map<void,void>'],
  ["typeof(map('a', NULL))", 'map<string,void>'],
  ['typeof(array_union(array(), array(1)))', 'array<int>'],
  ['array_union(array(), array(1))', [1]],
  ['array_except(array(1), array())', [1]],
  ['arrays_overlap(array(), array(1))', false],
  ['typeof(coalesce(array(), array(1)))', 'array<int>'],
  ['typeof(concat(array(), array(1)))', 'array<int>'],
  ['concat(array(), array(1))', [1]],
  ['array_append(array(), 1)', [1]],
  ["typeof(coalesce(map(), map('a', 1)))", 'map<string,int>'],
  ["map_concat(map(), map('a', 1))", { a: 1 }],
  ['sqrt(2.25)', 1.5],
  // date and time
  ["date_format(TIMESTAMP '2016-04-08 10:00:00', 'y')", '2016'],
  ["date_format(TIMESTAMP '2016-04-08 13:05:09.123', 'yyyy-MM-dd HH:mm:ss.SSS')", '2016-04-08 13:05:09.123'],
  ["date_format(TIMESTAMP '2016-04-08 13:05:09', 'EEE, MMM d, yyyy h:mm a')", 'Fri, Apr 8, 2016 1:05 PM'],
  ["to_timestamp('2016-12-31 00:12:00')", Date.UTC(2016, 11, 31, 0, 12)],
  ["to_timestamp('2016-12-31', 'yyyy-MM-dd')", day(2016, 12, 31)],
  ["to_timestamp('31/12/2016 23:59', 'dd/MM/yyyy HH:mm')", Date.UTC(2016, 11, 31, 23, 59)],
  ["to_timestamp('20161231', 'yyyyMMdd')", day(2016, 12, 31)],
  ["to_timestamp('not a date', 'yyyy-MM-dd')", null],
  // D is the day of the year: one the year has, agreeing with a month and day read beside it.
  ["to_timestamp('2020-060', 'yyyy-DDD')", day(2020, 2, 29)],
  ["to_timestamp('2020-12-366', 'yyyy-MM-DDD')", day(2020, 12, 31)],
  ["to_timestamp('2019-366', 'yyyy-DDD')", null],
  ["to_timestamp('2020-11-366', 'yyyy-MM-DDD')", null],
  ["to_timestamp('99', 'DDD')", null],
  ["to_date('2009-07-30 04:17:52')", '2009-07-30::DATE'],
  ["to_date('2016-12-31', 'yyyy-MM-dd')", '2016-12-31::DATE'],
  ["date_add('2016-07-30', 1)", '2016-07-31::DATE'],
  ["date_sub('2016-07-30', 1)", '2016-07-29::DATE'],
  ["datediff('2009-07-31', '2009-07-30')", 1],
  ["datediff('2009-07-30', '2009-07-31')", -1],
  ["add_months('2016-08-31', 1)", '2016-09-30::DATE'],
  ["last_day('2009-01-12')", '2009-01-31::DATE'],
  ["dayofyear('2016-04-09')", 100],
  ["weekofyear('2008-02-20')", 8],
  ["date_trunc('YEAR', TIMESTAMP '2015-03-05 09:32:05.359')", day(2015, 1, 1)],
  ["date_trunc('MM', TIMESTAMP '2015-03-05 09:32:05.359')", day(2015, 3, 1)],
  ["date_trunc('DD', TIMESTAMP '2015-03-05 09:32:05.359')", day(2015, 3, 5)],
  ["date_trunc('HOUR', TIMESTAMP '2015-03-05 09:32:05.359')", Date.UTC(2015, 2, 5, 9)],
  ["date_trunc('MILLISECOND', TIMESTAMP '2015-03-05 09:32:05.359')", Date.UTC(2015, 2, 5, 9, 32, 5, 359)],
  ["from_unixtime(0, 'yyyy-MM-dd HH:mm:ss')", '1970-01-01 00:00:00'],
  ["unix_timestamp('2016-04-08', 'yyyy-MM-dd')", 1460073600],
  ['current_timestamp()', BATCH_TS],
  ['now()', BATCH_TS],
  ['current_date()', '2024-05-06::DATE'],
  ['make_timestamp(2014, 12, 28, 6, 30, 45.887)', Date.UTC(2014, 11, 28, 6, 30, 45, 887)],
  // Spark's _ltz names for its TIMESTAMP, curdate for current_date (its reference's examples).
  ['make_timestamp_ltz(2014, 12, 28, 6, 30, 45.887)', Date.UTC(2014, 11, 28, 6, 30, 45, 887)],
  ["to_timestamp_ltz('2016-12-31 00:12:00')", Date.UTC(2016, 11, 31, 0, 12)],
  ["to_timestamp_ltz('2016-12-31', 'yyyy-MM-dd')", Date.UTC(2016, 11, 31)],
  ['curdate()', '2024-05-06::DATE'],
  // decimal(x) is CAST(x AS DECIMAL(10,0)) (Spark's cast alias).
  ["decimal('12.7')", '13::DECIMAL(10,0)'],
  ['decimal(12345678901)', null],
  // JSON
  ["get_json_object('{\"a\":\"b\"}', '$.a')", 'b'],
  ["to_json(from_json('{\"a\":1, \"b\":0.8}', 'a INT, b DOUBLE'))", '{"a":1,"b":0.8}'],
  // string (the rest of Spark's group)
  ["lcase('SparkSql')", 'sparksql'],
  ["ucase('SparkSql')", 'SPARKSQL'],
  ["character_length('Spark SQL ')", 10],
  ["char_length('Spark SQL ')", 10],
  ["bit_length('Spark SQL')", 72],
  ["octet_length('Spark SQL')", 9],
  ["octet_length('😀')", 4],
  ["base64('Spark SQL')", 'U3BhcmsgU1FM'],
  ["decode(unbase64('U3BhcmsgU1FM'), 'UTF-8')", 'Spark SQL'],
  // Spark's default chunks the text into lines of 76 characters, as Java's MIME encoder.
  ["base64(repeat('a', 60))", `${'YWFh'.repeat(19)}\r\n${'YWFh'.repeat(1)}`],
  ["decode(unbase64(base64(repeat('a', 60))), 'UTF-8')", 'a'.repeat(60)],
  ["concat(space(2), '1')", '  1'],
  ["split_part('11.12.13', '.', 3)", '13'],
  ["split_part('11.12.13', '.', -1)", '13'],
  ["split_part('11.12.13', '.', 4)", ''],
  ["split_part('a😀b😀c', '😀', -2)", 'b'],
  ["substring_index('www.apache.org', '.', 2)", 'www.apache'],
  ["substring_index('www.apache.org', '.', -2)", 'apache.org'],
  ["levenshtein('kitten', 'sitting')", 3],
  ["levenshtein('kitten', 'sitting', 2)", -1],
  ["levenshtein('kitten', 'sitting', 3)", 3],
  ["levenshtein('😀a', 'a')", 1],
  ["soundex('Miller')", 'M460'],
  ["find_in_set('ab','abc,b,ab,c,def')", 3],
  ["elt(1, 'scala', 'java')", 'scala'],
  ["elt(3, 'scala', 'java')", null],
  ["elt(2, 'a', 1)", '1'],
  // The index is an INT (Spark's inputTypes): written as text or a fraction it is cast to one.
  ["elt('1', 'scala', 'java')", 'scala'], ["elt(2.7, 'scala', 'java')", 'java'], ["elt('x', 'scala', 'java')", null],
  ["overlay('Spark SQL', '_', 6)", 'Spark_SQL'],
  ["overlay('Spark SQL', 'CORE', 7)", 'Spark CORE'],
  ["overlay('Spark SQL', 'ANSI ', 7, 0)", 'Spark ANSI SQL'],
  ["overlay('Spark SQL', 'tructured', 2, 4)", 'Structured SQL'],
  ["overlay('Spark SQL' PLACING '_' FROM 6)", 'Spark_SQL'],
  ["overlay('Spark SQL' PLACING 'CORE' FROM 7)", 'Spark CORE'],
  ["overlay('Spark SQL' PLACING 'ANSI ' FROM 7 FOR 0)", 'Spark ANSI SQL'],
  ["overlay('Spark SQL' PLACING 'tructured' FROM 2 FOR 4)", 'Structured SQL'],
  ["overlay('a FROM b' placing substr('xyz', 1, 1) from 1 for length('a'))", 'x FROM b'],
  ["format_number(12332.123456, 4)", '12,332.1235'],
  ["format_number(12332.123456, '##################.###')", '12332.123'],
  ["format_number(0.125D, 2)", '0.12'],
  // A DECIMAL rounds by its exact digits (the double 2.675 is a little below 2.675).
  ["format_number(2.675, 2)", '2.68'],
  ["format_number(2.675D, 2)", '2.67'],
  ["format_number(CAST(12345678901234567890.125 AS DECIMAL(38,3)), 2)", '12,345,678,901,234,567,890.12'],
  ["to_char(CAST(12345678901234567890.5 AS DECIMAL(38,1)), '99999999999999999999D9')", '12345678901234567890.5'],
  ["format_string('Hello World %d %s', 100, 'days')", 'Hello World 100 days'],
  ["printf('Hello World %d %s', 100, 'days')", 'Hello World 100 days'],
  ["format_string('%05d|%.2f|%x|%-4s|%,d', 42, 3.14159D, 255, 'ab', 1234567)", '00042|3.14|ff|ab  |1,234,567'],
  ["format_string('%.1f %e %S %%', 0.25D, 12345.678D, 'x')", '0.3 1.234568e+04 X %'],
  ["regexp_count('Steven Jones and Stephen Smith are the best players', 'Ste(v|ph)en')", 2],
  ["regexp_count('abcdefghijklmnopqrstuvwxyz', '[a-z]{3}')", 8],
  ["regexp_count('😀a😀a', 'a')", 2],
  ["regexp_count('😀', '')", 2],
  // A match with an emoji in it: the next search starts right after it, not one character later.
  ["regexp_count('😀a😀b', 'a|😀')", 3],
  ["split('😀😀', '😀|x')", ['', '', '']],
  ["regexp_extract_all('100-200, 300-400', '(\\\\d+)-(\\\\d+)', 1)", ['100', '300']],
  ["regexp_extract_all('100-200, 300-400', '(\\\\d+)-(\\\\d+)', 2)", ['200', '400']],
  ["regexp_extract_all('😀1😀22', '(\\\\d+)')", ['1', '22']],
  ["regexp_extract_all('😀b', '', 0)", ['', '', '']],
  ["regexp_instr('user@spark.apache.org', '@[^.]*')", 5],
  // Characters, where Spark counts UTF-16 units (it says 3).
  ["regexp_instr('😀a', 'a')", 2],
  ["regexp_instr('abc', 'x')", 0],
  ["regexp_substr('Steven Jones and Stephen Smith are the best players', 'Ste(v|ph)en')", 'Steven'],
  ["regexp_substr('Steven Jones and Stephen Smith are the best players', 'Jeck')", null],
  ["regexp_substr('😀ab', '[a-z]+')", 'ab'],
  ["sentences('Hi there! Good morning.')", [['Hi', 'there'], ['Good', 'morning']]],
  ["sentences('Hi there! Good morning.', 'en')", [['Hi', 'there'], ['Good', 'morning']]],
  ["sentences('Hi there! Good morning.', 'en', 'US')", [['Hi', 'there'], ['Good', 'morning']]],
  ["mask('abcd-EFGH-8765-4321')", 'xxxx-XXXX-nnnn-nnnn'],
  ["mask('abcd-EFGH-8765-4321', 'Q')", 'xxxx-QQQQ-nnnn-nnnn'],
  ["mask('AbCD123-@$#', 'Q', 'q')", 'QqQQnnn-@$#'],
  ["mask('AbCD123-@$#')", 'XxXXnnn-@$#'],
  ["mask('AbCD123-@$#', 'Q', 'q', 'd')", 'QqQQddd-@$#'],
  ["mask('AbCD123-@$#', 'Q', 'q', 'd', 'o')", 'QqQQdddoooo'],
  ["mask('AbCD123-@$#', NULL, 'q', 'd', 'o')", 'AqCDdddoooo'],
  ["mask('AbCD123-@$#', NULL, NULL, 'd', 'o')", 'AbCDdddoooo'],
  ["mask('AbCD123-@$#', NULL, NULL, NULL, 'o')", 'AbCD123oooo'],
  ["mask(NULL, NULL, NULL, NULL, 'o')", null],
  ["mask(NULL)", null],
  ["mask('AbCD123-@$#', NULL, NULL, NULL, NULL)", 'AbCD123-@$#'],
  ["luhn_check('8112189876')", true],
  ["luhn_check('79927398713')", true],
  ["luhn_check('79927398714')", false],
  ["to_number('454', '999')", '454::DECIMAL(3,0)'],
  ["to_number('454.00', '000.00')", '454.00::DECIMAL(5,2)'],
  ["to_number('12,454', '99,999')", '12454::DECIMAL(5,0)'],
  ["to_number('$78.12', '$99.99')", '78.12::DECIMAL(4,2)'],
  ["to_number('12,454.8-', '99,999.9S')", '-12454.8::DECIMAL(6,1)'],
  ["try_to_number('$78.12', '99.99')", null],
  ["to_char(454, '999')", '454'],
  ["to_char(454.00, '000D00')", '454.00'],
  ["to_char(12454, '99G999')", '12,454'],
  ["to_char(78.12, '$99.99')", '$78.12'],
  ["to_char(-12454.8, '99G999D9S')", '12,454.8-'],
  ["to_varchar(454, '999')", '454'],
  // Spark 4's to_char of a datetime is date_format (datetime-formatting.sql's different datetime types).
  ["to_char(date'2023-08-18', 'yyyy-MM-dd')", '2023-08-18'],
  ["to_varchar(timestamp_ntz'2023-08-18 09:13:14.123456', 'yyyy-MM-dd HH:mm:ss.SSSSSS')", '2023-08-18 09:13:14.123456'],
  ["to_char(timestamp'2023-08-18 09:13:14.123456', 'EEEE QQQ')", 'Friday Q3'],
  ["to_char(encode('abc', 'utf-8'), 'hex')", '616263'],
  ["to_char(encode('abc', 'utf-8'), 'base64')", 'YWJj'],
  ["to_char(encode('abc', 'utf-8'), 'utf-8')", 'abc'],
  ["to_char(-12, '99PR')", '<12>'],
  ["to_char(12, '99PR')", '12  '],
  ["to_char(-12, 'S999')", ' -12'],
  ["to_char(-12, '999MI')", ' 12-'],
  ["to_char(12, '0000')", '0012'],
  ["to_char(123456, '99,999')", '## ###'],
  ["to_char(0.5, '9.99')", '0.50'],
  ["to_number('<12>', '99PR')", '-12::DECIMAL(2,0)'],
  ["to_number('12-', '99MI')", '-12::DECIMAL(2,0)'],
  ["to_number('.5', '9.9')", '0.5::DECIMAL(2,1)'],
  ["try_to_number('123', '99')", null],
  ["try_to_number('12', '000')", null],
  ["decode(encode('abc', 'utf-8'), 'utf-8')", 'abc'],
  ["hex(encode('é', 'ISO-8859-1'))", 'E9'],
  ["hex(encode('é', 'UTF-16'))", 'FEFF00E9'],
  ["decode(encode('😀', 'UTF-16'), 'UTF-16')", '😀'],
  ["decode(2, 1, 'Southlake', 2, 'San Francisco', 3, 'New Jersey', 4, 'Seattle', 'Non domestic')", 'San Francisco'],
  ["decode(6, 1, 'Southlake', 2, 'San Francisco', 3, 'New Jersey', 4, 'Seattle', 'Non domestic')", 'Non domestic'],
  ["decode(6, 1, 'Southlake', 2, 'San Francisco', 3, 'New Jersey', 4, 'Seattle')", null],
  ["decode(null, 6, 'Spark', NULL, 'SQL', 4, 'rocks')", 'SQL'],
  // null (the rest)
  ["nanvl(cast('NaN' as double), 123)", 123],
  ['nanvl(1.5D, 2)', 1.5],
  ['equal_null(3, 3)', true],
  ["equal_null(1, '11')", false],
  ['equal_null(true, NULL)', false],
  ["equal_null(NULL, 'abc')", false],
  ['equal_null(NULL, NULL)', true],
  // math (the rest)
  ['sin(0)', 0],
  ['cos(0)', 1],
  ['tan(0)', 0],
  ['asin(0)', 0],
  ['asin(2)', NaN],
  ['acos(1)', 0],
  ['acos(2)', NaN],
  ['atan(0)', 0],
  ['atan2(0, 0)', 0],
  ['sinh(0)', 0],
  ['cosh(0)', 1],
  ['tanh(0)', 0],
  ['cot(1)', 0.6420926159343306],
  ['e()', 2.718281828459045],
  ['expm1(0)', 0],
  ['log1p(0)', 0],
  ['log1p(-1)', null],
  ['hypot(3, 4)', 5],
  ['rint(12.3456)', 12],
  ['rint(2.5)', 2],
  ['factorial(5)', 120],
  ['factorial(21)', null],
  ['factorial(5.0D)', 120],
  ['conv(10.5D, 10, 2)', '1010'],
  ['negative(1)', -1],
  ['negative(1.25)', '-1.25::DECIMAL(3,2)'],
  ['positive(1)', 1],
  ['hex(17)', '11'],
  ['hex(-1)', 'FFFFFFFFFFFFFFFF'],
  ["hex('Spark SQL')", '537061726B2053514C'],
  ["decode(unhex('537061726B2053514C'), 'UTF-8')", 'Spark SQL'],
  ["unhex('GG')", null],
  ['bin(13)', '1101'],
  ['bin(-13)', '1111111111111111111111111111111111111111111111111111111111110011'],
  ['bin(13.3)', '1101'],
  ["conv('100', 2, 10)", '4'],
  ['conv(-10, 16, -10)', '-16'],
  ["conv('ff', 16, 2)", '11111111'],
  ['width_bucket(5.3, 0.2, 10.6, 5)', 3],
  ['width_bucket(-2.1, 1.3, 3.4, 3)', 0],
  ['width_bucket(8.1, 0.0, 5.7, 4)', 5],
  ['width_bucket(-0.9, 5.2, 0.5, 2)', 3],
  ['try_add(1, 2)', 3],
  ['try_subtract(2, 1)', 1],
  ['try_multiply(2, 3)', 6],
  // BIGINT overflow (Spark's examples overflow an INT, which Weir types BIGINT).
  ['try_multiply(4294967296, 4294967296)', null],
  ['try_add(CAST(99999999999999999999999999999999999999 AS DECIMAL(38,0)), 1)', null],
  ['try_add(1.5, 2)', '3.5::DECIMAL(3,1)'],
  ['try_divide(3, 2)', 1.5],
  ['try_divide(2, 2)', 1],
  ['try_divide(1, 0)', null],
  // date and time (the rest)
  ['make_date(2013, 7, 15)', '2013-07-15::DATE'],
  ['make_date(2019, 7, NULL)', null],
  ['make_date(2019, 2, 30)', null],
  ["months_between('1997-02-28 10:30:00', '1996-10-30')", 3.94959677],
  ["months_between('1997-02-28 10:30:00', '1996-10-30', false)", 3.9495967741935485],
  ["next_day('2015-01-14', 'TU')", '2015-01-20::DATE'],
  ["next_day('2015-01-14', 'nope')", null],
  ["weekday('2009-07-30')", 3],
  ["unix_date(DATE '1970-01-02')", 1],
  ["unix_seconds(TIMESTAMP '1970-01-01 00:00:01Z')", 1],
  ["unix_micros(TIMESTAMP '1970-01-01 00:00:01Z')", 1_000_000],
  ["date_part('YEAR', TIMESTAMP '2019-08-12 01:00:00.123456')", 2019],
  ["date_part('week', TIMESTAMP '2019-08-12 01:00:00.123456')", 33],
  ["date_part('doy', DATE '2019-08-12')", 224],
  // Spark's example has microseconds (1.000001); Weir's timestamps keep milliseconds.
  ["date_part('SECONDS', TIMESTAMP '2019-10-01 00:00:01.001')", '1.001000::DECIMAL(8,6)'],
  ["datepart('YEAR', TIMESTAMP '2019-08-12 01:00:00.123456')", 2019],
  ['extract(YEAR FROM TIMESTAMP \'2019-08-12 01:00:00.123456\')', 2019],
  ['extract(week FROM TIMESTAMP \'2019-08-12 01:00:00.123456\')', 33],
  ["extract(doy FROM DATE '2019-08-12')", 224],
  ["extract(SECONDS FROM TIMESTAMP '2019-10-01 00:00:01.001')", '1.001000::DECIMAL(8,6)'],
  ["extract(DAYOFWEEK_ISO FROM DATE '2019-08-11')", 7],
  ["date_diff('2009-07-31', '2009-07-30')", 1],
  ["trunc('2019-08-04', 'week')", '2019-07-29::DATE'],
  ["trunc('2019-08-04', 'quarter')", '2019-07-01::DATE'],
  ["trunc('2009-02-12', 'MM')", '2009-02-01::DATE'],
  ["trunc('2015-10-27', 'YEAR')", '2015-01-01::DATE'],
  ["trunc('2015-10-27', 'DD')", null],
  ["from_utc_timestamp('2016-08-31', 'Asia/Seoul')", Date.UTC(2016, 7, 31, 9)],
  ["to_utc_timestamp('2016-08-31', 'Asia/Seoul')", Date.UTC(2016, 7, 30, 15)],
  ["from_utc_timestamp('2016-08-31', '+05:30')", Date.UTC(2016, 7, 31, 5, 30)],
  // Java's ZoneId.SHORT_IDS names, which Spark's getZoneId reads.
  ["from_utc_timestamp('2016-08-31', 'PST')", Date.UTC(2016, 7, 30, 17)],
  ["to_utc_timestamp('2016-08-31', 'EST')", Date.UTC(2016, 7, 31, 5)],
  ["to_utc_timestamp('2024-07-01 12:00:00', 'America/New_York')", Date.UTC(2024, 6, 1, 16)],
  // Spark prints 2008-12-25 07:30:00.123123 in America/Los_Angeles; in UTC, to the millisecond:
  ['timestamp_micros(1230219000123123)', 1230219000123123 / 1000],
  // Spark prints 1460098800 in America/Los_Angeles; Weir runs in UTC.
  ["to_unix_timestamp('2016-04-08', 'yyyy-MM-dd')", 1460073600],
  ['date_from_unix_date(1)', '1970-01-02::DATE'],
  ['current_timezone()', 'UTC'],
  ['localtimestamp()', BATCH_TS],
  // JSON (the rest)
  ["json_array_length('[1,2,3,4]')", 4],
  ["json_array_length('[1,2,3,{\"f1\":1,\"f2\":[5,6]},4]')", 5],
  ["json_array_length('[1,2')", null],
  ["json_object_keys('{}')", []],
  ["json_object_keys('{\"key\": \"value\"}')", ['key']],
  ["json_object_keys('{\"f1\":\"abc\",\"f2\":{\"f3\":\"a\", \"f4\":\"b\"}}')", ['f1', 'f2']],
  ["schema_of_json('[{\"col\":0}]')", 'ARRAY<STRUCT<col: BIGINT>>'],
  ["schema_of_json('{\"b\":1.5,\"a\":[1,2.5],\"c\":\"x\",\"d\":12345678901234567890}')", 'STRUCT<a: ARRAY<DOUBLE>, b: DOUBLE, c: STRING, d: DECIMAL(20,0)>'],
  ["schema_of_json('[{\"a\":1},{\"b\":\"x\",\"a\":null},{\"a\":2.5,\"c\":[]}]')", 'ARRAY<STRUCT<a: DOUBLE, b: STRING, c: ARRAY<STRING>>>'],
  ["schema_of_json('[1, \"a\", true]')", 'ARRAY<STRING>'],
  // Spark's JSON options: leading zeros read only when allowed (else not JSON: STRING here), fractions as DECIMALs, primitives as strings.
  ["schema_of_json('[{\"col\":01}]', map('allowNumericLeadingZeros', 'true'))", 'ARRAY<STRUCT<col: BIGINT>>'],
  ["schema_of_json('[{\"col\":01}]')", 'STRING'],
  ["schema_of_json('{\"a\":1e-05,\"b\":0.5}')", 'STRUCT<a: DOUBLE, b: DOUBLE>'],
  ["schema_of_json('{\"a\":12.50,\"b\":0.5,\"c\":3}', map('prefersDecimal', 'true'))", 'STRUCT<a: DECIMAL(4,2), b: DECIMAL(1,1), c: BIGINT>'],
  ["schema_of_json('{\"a\":1,\"b\":true,\"c\":null}', map('primitivesAsString', 'true'))", 'STRUCT<a: STRING, b: STRING, c: STRING>'],
  // casts
  ["CAST('2024-03-04 05:06:07' AS DATE)", '2024-03-04::DATE'],
  ["CAST('2024-3-4' AS DATE)", '2024-03-04::DATE'],
  ["CAST('2024' AS DATE)", '2024-01-01::DATE'],
  ["CAST('2024-02-30' AS DATE)", null],
  ["CAST('not a date' AS DATE)", null],
  ["CAST(DATE '2024-02-29' AS STRING)", '2024-02-29'],
  ["CAST(DATE '2024-02-29' AS TIMESTAMP)", day(2024, 2, 29)],
  ["CAST(TIMESTAMP '2024-02-29 23:59:59' AS DATE)", '2024-02-29::DATE'],
  ["DATE '1969-12-31'", '1969-12-31::DATE'],
  ["date_add(DATE '2024-12-31', 1)", '2025-01-01::DATE'],
  ["to_date('2016-7-3')", '2016-07-03::DATE'],
  ["DATE '2024-02-28' + 1", '2024-02-29::DATE'],
  ["2 + DATE '2024-02-28'", '2024-03-01::DATE'],
  ["DATE '2024-03-01' - 1", '2024-02-29::DATE'],
  ["DATE '2024-03-01' IN ('2024-03-01', '2024-03-02')", true],
  ["CASE WHEN n IS NULL THEN DATE '2024-03-01' ELSE TIMESTAMP '2024-01-01 10:00:00' END", day(2024, 3, 1)],
  ["date_add('2016-7-30', 1)", '2016-07-31::DATE'],
  ["datediff('2009-07-31 23:59:59', '2009-07-30T00:00:01')", 1],
  ["add_months(DATE '2024-01-31', 1)", '2024-02-29::DATE'],
  ["last_day(TIMESTAMP '2024-02-10 23:00:00')", '2024-02-29::DATE'],
  ["datediff(DATE '2024-03-01', DATE '2024-02-01')", 29],
  ["DATE '2024-01-01' = '2024-01-01'", true],
  // Text that is no date is NULL, as Spark's cast reads it with ANSI off.
  ["DATE '2024-01-01' = 'soon'", null],
  ["TIMESTAMP '2024-01-01 00:00:00' <=> 'soon'", false],
  ["DATE '2024-01-01' < TIMESTAMP '2024-01-01 00:00:01'", true],
  ["DATE '2024-01-01' = TIMESTAMP '2024-01-01 00:00:00'", true],
  ["year(DATE '2016-07-30')", 2016],
  ["hour(DATE '2016-07-30')", 0],
  ["date_format(DATE '2016-07-30', 'dd/MM/yyyy')", '30/07/2016'],
  ["concat('d=', DATE '2016-07-30')", 'd=2016-07-30'],
  ["coalesce(NULL, DATE '2016-07-30')", '2016-07-30::DATE'],
  ["to_json(from_json('{\"d\":\"2016-07-30\"}', 'd DATE'))", '{"d":"2016-07-30"}'],
  // to_json's writer options: datetime patterns, and NULL fields written when asked.
  ["to_json(named_struct('d', DATE '2016-07-30'), map('dateFormat', 'dd/MM/yyyy'))", '{"d":"30/07/2016"}'],
  ["to_json(array(named_struct('t', TIMESTAMP '2015-08-26 10:11:12.345678')), map('timestampFormat', 'yyyy-MM-dd HH:mm:ss.SSSSSS'))", '[{"t":"2015-08-26 10:11:12.345678"}]'],
  ["to_json(named_struct('t', TIMESTAMP_NTZ '2015-08-26 10:11:12'), map('timestampNTZFormat', 'dd.MM.yyyy HH:mm'))", '{"t":"26.08.2015 10:11"}'],
  // A DOUBLE as Jackson writes a Java double (Double.toString), NaN and the infinities as strings
  // (QUOTE_NON_NUMERIC_NUMBERS); from_json reads them back (allowNonNumericNumbers).
  ["to_json(named_struct('a', 2.0D))", '{"a":2.0}'],
  ["to_json(named_struct('b', 1E21, 'c', 1E-7, 'd', -0.0D, 'e', 0.1D, 'f', 1E7))", '{"b":1.0E21,"c":1.0E-7,"d":-0.0,"e":0.1,"f":1.0E7}'],
  ["to_json(array(CAST('NaN' AS DOUBLE), CAST('Infinity' AS DOUBLE), CAST('-Infinity' AS DOUBLE)))", '["NaN","Infinity","-Infinity"]'],
  ["isnan(from_json(to_json(named_struct('n', CAST('NaN' AS DOUBLE))), 'n DOUBLE').n)", true],
  ["from_json('{\"i\":\"-Infinity\"}', 'i DOUBLE').i = CAST('-Infinity' AS DOUBLE)", true],
  ["to_json(named_struct('a', 1, 'b', CAST(NULL AS INT)), map('ignoreNullFields', 'false'))", '{"a":1,"b":null}'],
  ["to_json(named_struct('a', 1, 'b', CAST(NULL AS INT)), map('ignoreNullFields', 'true'))", '{"a":1}'],
  ["to_json(map('k', named_struct('b', CAST(NULL AS INT))), map('ignoreNullFields', 'false'))", '{"k":{"b":null}}'],
  ["year('2016-07-30')", 2016],
  ["month('2016-07-30')", 7],
  ["CAST('10' AS INT) + 1", 11],
  ['CAST(TRUE AS STRING)', 'true'],
  ['CAST(1.5 AS LONG)', 1],
];

describe("Spark's function examples", () => {
  for (const [expr, expected] of EXAMPLES) {
    it(expr, async () => {
      expect(await one(expr)).toEqual(expected);
    });
  }

  it('refuses date arithmetic and casts Spark refuses, naming the function to use', async () => {
    await expect(one("DATE '2024-01-01' * 2")).rejects.toThrow(/date_add\(d, n\)/);
    await expect(one("DATE '2024-01-01' + 1.5")).rejects.toThrow(/date_add\(d, n\)/);
    await expect(one("CAST(DATE '2024-01-01' AS BIGINT)")).rejects.toThrow(/Cannot cast date to long/);
    await expect(one("DATE '2024-02-30'")).rejects.toThrow(/\[INVALID_TYPED_LITERAL\] The value of the typed literal "DATE" is invalid: '2024-02-30'/);
  });

  it('refuses the forms Weir does not take, saying what it takes instead', async () => {
    await expect(one("format_string('%t', 1)")).rejects.toThrow(/conversion %t is not supported; Weir takes %s/);
    await expect(one("sequence(DATE '2024-01-01', DATE '2024-01-03', INTERVAL 12 HOURS)")).rejects.toThrow(/sequence step must be an interval day to second of day granularity/);
    await expect(one("sequence(DATE '2024-01-01', DATE '2024-01-03', INTERVAL -1 DAY)")).rejects.toThrow(/Illegal sequence boundaries/);
    // A map has no order (Spark's INVALID_ORDERING_TYPE).
    await expect(one("sort_array(array(map('a', 1)))")).rejects.toThrow(/an array of a type with an order \(not a map\)/);
    await expect(one("array_max(array(map('a', 1)))")).rejects.toThrow(/an array of a type with an order \(not a map\)/);
    await expect(one("map('a', 1) = map('a', 1)")).rejects.toThrow(/does not support ordering on type "MAP<STRING, INT>"/);
    await expect(one("to_json(named_struct('a', 1), map('ignoreNullFields', 'maybe'))")).rejects.toThrow(/to_json\(\) option ignoreNullFields must be 'true' or 'false'/);
    await expect(one("to_json(named_struct('a', 1), map('dateFormat', CAST(n AS STRING)))")).rejects.toThrow(/to_json\(\) needs its options as a constant map/);
    await expect(one("format_string('%d', 1.5D)")).rejects.toThrow(/%d takes an integer, got double/);
    await expect(one("format_string('%s and %s', 'a')")).rejects.toThrow(/has no argument/);
    await expect(one("to_number('1', '9x9')")).rejects.toThrow(/Unexpected character 'X' found in the format string '9x9'/);
    await expect(one("to_char(1, '9,,9')")).rejects.toThrow(/Thousands separators/);
    await expect(one("to_char(1, '9$')")).rejects.toThrow(/Currency characters must appear before digits/);
    await expect(one("to_number('1', CAST(n AS STRING))")).rejects.toThrow(/must be a literal/);
    await expect(one("to_number('12a', '999')")).rejects.toThrow(/INVALID_FORMAT.MISMATCH_INPUT/);
    await expect(one("to_number('1.2,3', '9D9G9')")).rejects.toThrow(/\(INVALID_FORMAT\.THOUSANDS_SEPS_MUST_BEFORE_DEC\)/);
    await expect(one("to_number('123,000', '999G')")).rejects.toThrow(/\(INVALID_FORMAT\.CONT_THOUSANDS_SEPS\)/);
    await expect(one("to_char(1, '9$')")).rejects.toThrow(/\(INVALID_FORMAT\.CUR_MUST_BEFORE_DIGIT\)/);
    await expect(one("format_number(1.5, 'x')")).rejects.toThrow(/DecimalFormat patterns of # 0 , and \. only/);
    await expect(one("encode('a', 'EBCDIC')")).rejects.toThrow(/charset 'EBCDIC' is not supported/);
    await expect(one("from_utc_timestamp(TIMESTAMP '2024-01-01 00:00:00', 'Mars/Olympus')")).rejects.toThrow(/time zone 'Mars\/Olympus' is not known/);
    await expect(one("split_part('a', '.', 0)")).rejects.toThrow(/INVALID_INDEX_OF_ZERO/);
    // ExpectsInputTypes, not ImplicitCastInputTypes: no cast of a number to a STRING.
    await expect(one("parse_url(123, 'HOST')")).rejects.toThrow(/parse_url\(\) expects string arguments/);
    await expect(one('str_to_map(123)')).rejects.toThrow(/str_to_map\(\) takes \(text/);
    await expect(one("mask('ab', 'XY')")).rejects.toThrow(/one character/);
    await expect(one("regexp_count('a', '(a)\\\\1')")).rejects.toThrow(/not supported/);
    await expect(one("regexp_extract_all('ab', '(a)', 3)")).rejects.toThrow(/group index 3 is out of range/);
    await expect(one("date_part('nope', TIMESTAMP '2024-01-01 00:00:00')")).rejects.toThrow(/field must be one of/);
    // The same-length rewrite of EXTRACT keeps the error's position on the user's text.
    await expect(one("n + extract(nope FROM TIMESTAMP '2024-01-01 00:00:00')")).rejects.toThrow(/field must be one of .*\(line 1, column 12\)/);
    // Spark's classes (DatePart): a field it does not know, and one that is not a constant.
    await expect(one("date_part('millennium', TIMESTAMP '2024-01-01 00:00:00')")).rejects.toThrow(expect.objectContaining({ errorClass: 'INVALID_EXTRACT_FIELD' }));
    await expect(one("extract(isodow FROM DATE '2024-01-01')")).rejects.toThrow(expect.objectContaining({ errorClass: 'INVALID_EXTRACT_FIELD' }));
    // DAYOFMONTH is a function, not one of DatePart's fields (DAY, D, DAYS).
    await expect(one("date_part('dayofmonth', DATE '2024-01-05')")).rejects.toThrow(expect.objectContaining({ errorClass: 'INVALID_EXTRACT_FIELD' }));
    expect(await one("dayofmonth(DATE '2024-01-05')")).toBe(5);
    await expect(one("date_part(CAST(n AS STRING), DATE '2024-01-01')")).rejects.toThrow(expect.objectContaining({ errorClass: 'NON_FOLDABLE_ARGUMENT' }));
    await expect(one("schema_of_json(CAST(n AS STRING))")).rejects.toThrow(/literal/);
    await expect(one("levenshtein(repeat('a', 20000), repeat('b', 20000))")).rejects.toThrow(/over the limit/);
  });

  it('NULL in gives NULL out for the rest of the functions, as Spark', async () => {
    const nulls = [
      'lcase(NULL)', 'bit_length(NULL)', 'base64(NULL)', 'space(n)', "split_part(NULL, '.', 1)", "substring_index(NULL, '.', 1)", "levenshtein(NULL, 'a')",
      'soundex(NULL)', "find_in_set(NULL, 'a')", "overlay(NULL, 'a', 1)", 'luhn_check(NULL)', "format_number(n, 2)", "to_char(n, '999')",
      "regexp_count(NULL, 'a')", "regexp_instr(NULL, 'a')", "regexp_substr(NULL, 'a')", "regexp_extract_all(NULL, 'a')", 'sentences(NULL)',
      'nanvl(n, 1)', 'sin(n)', 'atan2(n, 1)', 'factorial(n)', 'hex(n)', 'bin(n)', "conv(NULL, 2, 10)", 'width_bucket(n, 0, 1, 2)', 'try_add(n, 1)', 'try_divide(1, n)',
      'make_date(n, 1, 1)', "months_between(NULL, '2024-01-01')", "next_day(NULL, 'MO')", 'weekday(NULL)', 'unix_seconds(NULL)', "trunc(NULL, 'MM')",
      "from_utc_timestamp(NULL, 'UTC')", 'timestamp_micros(n)', 'date_from_unix_date(n)', "date_part('year', NULL)",
      'json_array_length(NULL)', 'json_object_keys(NULL)', "encode(NULL, 'UTF-8')", "decode(NULL, 'UTF-8')",
    ];
    for (const f of nulls) expect(await one(f), f).toBeNull();
  });

  it('NULL in gives NULL out, as Spark', async () => {
    for (const f of ['instr(NULL, \'a\')', 'left(NULL, 2)', 'pow(n, 2)', 'date_add(NULL, 1)', 'initcap(NULL)']) expect(await one(f), f).toBeNull();
  });

  describe('random functions (Spark accepts them in a streaming Project)', () => {
    const batch = async (sql: string, rows: Row[], ctx: { partitionIndex?: number } = {}, q = compileStreamingQuery(sql, rel)) => {
      let out = rows;
      // A new context per batch, as each micro-batch is a new task in Spark.
      const batchCtx = { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: BATCH_TS, ...ctx };
      for (const op of q.operators) out = await op.execute(out, batchCtx);
      return out;
    };
    const rows = [{ id: 1, n: 1 }, { id: 2, n: 2 }, { id: 3, n: 3 }];

    it("rand(seed) and randn(seed) draw Spark's values: XORShiftRandom(seed + partitionIndex), restarted each batch", async () => {
      const q = compileStreamingQuery('SELECT id, rand(30) AS r, randn(0) AS g, rand(-1) AS m, random(CAST(NULL AS INT)) AS z FROM src', rel);
      const first = await batch('', rows, {}, q);
      // RandomSuite: Rand(30) is 0.2762195585886885; randn(0) and rand(null) are the reference's examples.
      expect(first[0]).toMatchObject({ r: 0.2762195585886885, g: 1.6034991609278433, z: 0.7604953758285915 });
      expect(new Set(first.map((r) => r.r)).size).toBe(3);
      // A batch, or its re-run after a crash, on the same partition draws the same values.
      expect(await batch('', rows, {}, q)).toEqual(first);
      // Partition 1 draws from seed + 1: rand(-1) there is rand(0).
      const p1 = await batch('', rows, { partitionIndex: 1 }, q);
      expect(p1[0].m).toBe(0.7604953758285915);
      expect(p1[0].r).not.toBe(first[0].r);
    });

    it('rand() is seeded once per compiled query: the same within a run, another after a restart', async () => {
      const sql = 'SELECT rand() AS r FROM src';
      const q = compileStreamingQuery(sql, rel);
      const a = await batch('', rows, {}, q);
      expect(await batch('', rows, {}, q)).toEqual(a);
      expect(await batch(sql, rows)).not.toEqual(a);
      for (const r of a) expect(r.r as number).toBeGreaterThanOrEqual(0);
    });

    it('the seed must be a constant INT or BIGINT', () => {
      expect(() => compileStreamingQuery('SELECT rand(n) AS r FROM src', rel)).toThrow(expect.objectContaining({ errorClass: 'DATATYPE_MISMATCH.NON_FOLDABLE_INPUT' }));
      expect(() => compileStreamingQuery('SELECT rand(1.5D) AS r FROM src', rel)).toThrow(expect.objectContaining({ errorClass: 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE' }));
    });

    it('uuid() is a version 4 UUID per row; shuffle(a) a permutation of a', async () => {
      const out = await batch('SELECT id, uuid() AS u, shuffle(array(id, n, 10, 20)) AS s, shuffle(CAST(NULL AS ARRAY<INT>)) AS x FROM src', rows);
      for (const r of out) {
        expect(r.u).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect([...(r.s as number[])].sort((x, y) => x - y)).toEqual([(r as { id: number }).id, (r as { id: number }).id, 10, 20].sort((x, y) => x - y));
        expect(r.x).toBeNull();
      }
      expect(new Set(out.map((r) => r.u)).size).toBe(3);
    });
  });

  it('json_array_length and json_object_keys of a number are refused with Spark\'s class (no implicit cast)', () => {
    for (const sql of ['SELECT json_array_length(2) AS n FROM src', 'SELECT json_object_keys(200) AS k FROM src']) {
      expect(() => compileStreamingQuery(sql, rel)).toThrow(expect.objectContaining({ errorClass: 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE' }));
    }
  });

  it('refuses monotonically_increasing_id as Spark does', () => {
    const err = (sql: string) => {
      try {
        compileStreamingQuery(sql, rel);
      } catch (e) {
        return e as WeirError;
      }
      throw new Error('expected a failure');
    };
    const m = err('SELECT monotonically_increasing_id() AS i FROM src');
    expect(m.message).toMatch(/^Expression\(s\): monotonically_increasing_id\(\) is not supported with streaming DataFrames\/Datasets/);
    expect(m.errorClass).toBe('_LEGACY_ERROR_TEMP_3102');
    // A letter Weir does not take (B, Java's day period) is refused naming it.
    expect(err("SELECT date_format(CAST('2024-01-01' AS TIMESTAMP), 'yyyy-MM-dd B') AS d FROM src").message).toMatch(/pattern letter B/);
  });

  it('refuses reflect, java_method and try_reflect saying they need a JVM', () => {
    const err = (sql: string) => {
      try {
        compileStreamingQuery(sql, rel);
      } catch (e) {
        return e as WeirError;
      }
      throw new Error('expected a failure');
    };
    for (const f of ['reflect', 'java_method', 'try_reflect']) {
      const e = err(`SELECT ${f}('java.util.UUID', 'randomUUID') AS u FROM src`);
      expect(e.errorClass).toBe('UNRESOLVED_ROUTINE');
      expect(e.message).toContain(`${f}() calls a Java method by reflection (Spark's CallMethodViaReflection), which needs a JVM`);
    }
    const e = err('SELECT spark_partition_id() AS x FROM src');
    expect(e.errorClass).toBe('UNRESOLVED_ROUTINE');
    expect(e.message).toMatch(/task layout/);
  });
});

describe("numbers at the edges, as Spark's postgreSQL/float8 golden file has them", () => {
  it("casts a string to a DOUBLE as Java's parseDouble reads it, and Spark's special literals in any case", async () => {
    expect(await one("CAST('infinity' AS DOUBLE)")).toBe(Infinity);
    expect(await one("CAST('   -INFINiTY  ' AS DOUBLE)")).toBe(-Infinity);
    expect(await one("CAST('+inf' AS DOUBLE)")).toBe(Infinity);
    expect(await one("CAST(' NAN ' AS DOUBLE)")).toBeNaN();
    expect(await one("CAST('1.5d' AS DOUBLE)")).toBe(1.5);
    expect(await one("CAST('-10e-400' AS DOUBLE)")).toBe(-0);
    // Neither Java's case-sensitive NaN nor one of Spark's literals.
    expect(await one("CAST('+nan' AS DOUBLE)")).toBeNull();
  });

  it('takes the floor and ceiling of a BIGINT as it is, and saturates a DOUBLE out of its range', async () => {
    expect(String(await one('ceil(9223372036854775807)'))).toBe('9223372036854775807');
    expect(String(await one('floor(-9223372036854775807L)'))).toBe('-9223372036854775807');
    expect(String(await one('ceil(1.2345678901234e200D)'))).toBe('9223372036854775807');
    expect(String(await one('floor(-1e300D)'))).toBe('-9223372036854775808');
  });

  it("computes asinh by Spark's formula, log(x + sqrt(x * x + 1))", async () => {
    expect(await one('asinh(1D)')).toBe(0.8813735870195429);
    expect(await one("asinh(CAST('-Infinity' AS DOUBLE))")).toBe(-Infinity);
  });
});

describe("format_string's argument indexes", () => {
  it('refuses a literal format that indexes argument 0, as Spark (INVALID_PARAMETER_VALUE.ZERO_INDEX)', async () => {
    expect(() => compileStreamingQuery("SELECT format_string('%0$s', 'Hello') AS v FROM src", rel)).toThrow(/INVALID_PARAMETER_VALUE\.ZERO_INDEX/);
    expect(await one("format_string('%1$s', 'Hello')")).toBe('Hello');
  });
});

describe('sequence of integers', () => {
  it("is an array of the arguments' wider integer type, as Spark casts them", () => {
    const typeOf = (sql: string) => compileStreamingQuery(`SELECT ${sql} AS v FROM src`, rel).outputSchema[0].elementType;
    expect(typeOf('sequence(1, 16, 3)')).toMatchObject({ type: 'long', integral: 32 });
    expect(typeOf('sequence(CAST(1 AS TINYINT), CAST(5 AS SMALLINT))')).toMatchObject({ type: 'long', integral: 16 });
    expect(typeOf('sequence(1, 5L)')?.integral).toBeUndefined();
  });
});

describe('nanvl', () => {
  it("refuses a BINARY, BOOLEAN, DATE or TIMESTAMP argument with Spark's class (its inputs DOUBLE or FLOAT)", () => {
    for (const a of ["cast('1' as binary)", 'true', "date'2017-12-11'", "timestamp'2017-12-11 09:30:00'"]) {
      for (const sql of [`SELECT nanvl(${a}, 1D) AS v FROM src`, `SELECT nanvl(1D, ${a}) AS v FROM src`]) {
        let cls: string | undefined;
        try {
          compileStreamingQuery(sql, rel);
        } catch (e) {
          cls = (e as WeirError).errorClass;
        }
        expect(cls, sql).toBe('DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
      }
    }
  });
});

describe('sum and avg', () => {
  it("refuse a BINARY, BOOLEAN or DATE with Spark's class (their input numeric or an interval)", () => {
    for (const f of ['sum', 'avg']) {
      for (const a of ["cast('1' as binary)", 'true', "date'2017-12-11'"]) {
        const sql = `SELECT ${f}(${a}) AS v FROM src`;
        let cls: string | undefined;
        try {
          compileStreamingQuery(sql, rel, { outputMode: 'complete' });
        } catch (e) {
          cls = (e as WeirError).errorClass;
        }
        expect(cls, sql).toBe('DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
      }
    }
  });
});
