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
  ["trim('    SparkSQL   ')", 'SparkSQL'],
  ["trim(BOTH FROM '    SparkSQL   ')", 'SparkSQL'],
  ["trim(LEADING FROM '    SparkSQL   ')", 'SparkSQL   '],
  ["trim(TRAILING FROM '    SparkSQL   ')", '    SparkSQL'],
  ["trim('SL' FROM 'SSparkSQLS')", 'parkSQ'],
  ["trim(BOTH 'SL' FROM 'SSparkSQLS')", 'parkSQ'],
  ["trim(LEADING 'SL' FROM 'SSparkSQLS')", 'parkSQLS'],
  ["trim(TRAILING 'SL' FROM 'SSparkSQLS')", 'SSparkSQ'],
  ["btrim('SSparkSQLS', 'SL')", 'parkSQ'],
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
  ["regexp_extract('100-200', '(\\\\d+)-(\\\\d+)', 1)", '100'],
  ["'Spark' LIKE 'Spa%'", true],
  ["'a_b' LIKE 'a!_b' ESCAPE '!'", true],
  ["'axb' LIKE 'a!_b' ESCAPE '!'", false],
  ["'a%b' LIKE 'a\\%b'", true],
  ["'axb' LIKE 'a\\%b'", false],
  ["'Spark' NOT RLIKE '^x'", true],
  ["'Spark' REGEXP 'ar'", true],
  ["rlike('Spark', 'ar')", true],
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
  ['bround(2.5, 0)', 2],
  ['bround(-2.5, 0)', -2],
  ['bround(25, -1)', 20],
  ['ceil(-0.1)', '0::DECIMAL(1,0)'],
  ['ceil(5)', 5],
  ['ceil(3.1411, 3)', 3.142],
  ['ceil(3.1411, -3)', 1000],
  ['floor(-0.1)', '-1::DECIMAL(1,0)'],
  ['floor(3.1411, 3)', 3.141],
  ['floor(3.1411, -3)', 0],
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
  ['id IN (1.0, 2.5)', true],
  ['-(1.25)', '-1.25::DECIMAL(3,2)'],
  ["concat('$', 2.50)", '$2.50'],
  ['2.50 || 1', '2.501'],
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
  // JSON
  ["get_json_object('{\"a\":\"b\"}', '$.a')", 'b'],
  ["to_json(from_json('{\"a\":1, \"b\":0.8}', 'a INT, b DOUBLE'))", '{"a":1,"b":0.8}'],
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
  ["DATE '2024-01-01' < TIMESTAMP '2024-01-01 00:00:01'", true],
  ["DATE '2024-01-01' = TIMESTAMP '2024-01-01 00:00:00'", true],
  ["year(DATE '2016-07-30')", 2016],
  ["hour(DATE '2016-07-30')", 0],
  ["date_format(DATE '2016-07-30', 'dd/MM/yyyy')", '30/07/2016'],
  ["concat('d=', DATE '2016-07-30')", 'd=2016-07-30'],
  ["coalesce(NULL, DATE '2016-07-30')", '2016-07-30::DATE'],
  ["to_json(from_json('{\"d\":\"2016-07-30\"}', 'd DATE'))", '{"d":"2016-07-30"}'],
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
    await expect(one("DATE '2024-02-30'")).rejects.toThrow(/Invalid DATE literal/);
    await expect(one("DATE '2024-01-01' = 'soon'")).rejects.toThrow(/'soon' is not a date/);
  });

  it('NULL in gives NULL out, as Spark', async () => {
    for (const f of ['instr(NULL, \'a\')', 'left(NULL, 2)', 'pow(n, 2)', 'date_add(NULL, 1)', 'initcap(NULL)']) expect(await one(f), f).toBeNull();
  });

  it('refuses functions that make a replay differ, and monotonically_increasing_id as Spark does', () => {
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
    expect(err('SELECT rand() AS r FROM src').message).toMatch(/not deterministic.*exactly-once/);
    expect(err("SELECT date_format(CAST('2024-01-01' AS TIMESTAMP), 'yyyy-MM-dd G') AS d FROM src").message).toMatch(/pattern letter G/);
  });
});
