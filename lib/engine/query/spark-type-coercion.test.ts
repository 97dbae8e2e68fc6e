/**
 * Spark's string promotion (TypeCoercion.PromoteStrings, InConversion, CaseWhenCoercion; ANSI off)
 * measured against Spark's own answers: queries of Spark's SQL tests
 * (sql-tests/inputs/typeCoercion/native/promoteStrings.sql, inConversion.sql,
 * caseWhenCoercion.sql, binaryComparison.sql, ifCoercion.sql) with what their expected output (results/…/*.sql.out) prints, run over a
 * one-row stream as Spark runs them over `t`, and queries of the other operators whose casts the
 * analysis writes (div, the bitwise operators and shifts, ||, datetime arithmetic, array_contains)
 * with the answers Spark gives. A query Spark refuses is expected to be refused.
 * Where Weir answers otherwise, SPARK_DIFFERENCES lists it with the reason; the test fails on any
 * other difference and on a listed one that now agrees.
 */
import { describe, expect, it } from 'vitest';
import { weirAnswer } from './testing/spark-golden-file';
import { printed, select } from './testing/spark-printed';

const ERROR = 'error';
const NUMBERS = ['cast(1 as tinyint)', 'cast(1 as smallint)', 'cast(1 as int)', 'cast(1 as bigint)', 'cast(1 as float)', 'cast(1 as double)', 'cast(1 as decimal(10, 0))', "'1'"];
const OTHERS = ["cast('1' as binary)", 'cast(1 as boolean)', "cast('2017-12-11 09:30:00.0' as timestamp)", "cast('2017-12-11 09:30:00' as date)"];

/** [query, what Spark prints ("error": Spark refuses it)]. */
const CASES: [string, string][] = [
  // promoteStrings.sql: a string operand of arithmetic is a DOUBLE; beside a BINARY, BOOLEAN, TIMESTAMP, DATE refused.
  ...([['+', '2.0'], ['-', '0.0'], ['*', '1.0'], ['/', '1.0'], ['%', '0.0']] as const).flatMap(([op, v]): [string, string][] => [
    ...NUMBERS.map((n): [string, string] => [`'1' ${op} ${n}`, v]),
    ...NUMBERS.slice(0, -1).map((n): [string, string] => [`${n} ${op} '1'`, v]),
    [`'1' ${op} cast('1' as binary)`, ERROR], [`'1' ${op} cast(1 as boolean)`, ERROR],
  ]),
  ...(['*', '/', '%'] as const).flatMap((op): [string, string][] => [[`'1' ${op} ${OTHERS[2]}`, ERROR], [`'1' ${op} ${OTHERS[3]}`, ERROR]]),
  // promoteStrings.sql: a string compared with a number is cast to its type, beside a DECIMAL to a DOUBLE, beside a BOOLEAN to a BOOLEAN.
  ...([['=', 'true'], ['<', 'false'], ['<=', 'true'], ['>', 'false'], ['>=', 'true'], ['<>', 'false']] as const).flatMap(([op, v]): [string, string][] => [
    ...[...NUMBERS, OTHERS[0], OTHERS[1]].map((n): [string, string] => [`'1' ${op} ${n}`, v]),
    ...[...NUMBERS.slice(0, -1), OTHERS[0], OTHERS[1]].map((n): [string, string] => [`${n} ${op} '1'`, v]),
    [`'1' ${op} ${OTHERS[2]}`, 'NULL'], [`'1' ${op} ${OTHERS[3]}`, 'NULL'],
  ]),
  // The cast's values (Spark's non-ANSI string casts): spaces trimmed, an integer's fraction
  // truncated, text that does not parse NULL, a value out of the type's range NULL.
  ["' 42 ' = 42", 'true'], ["'1.5' = 1", 'true'], ["'1.5' = 1.5", 'true'], ["'abc' = 1", 'NULL'], ["'1e1' = 10", 'NULL'], ["'1e1' = 10.0", 'true'],
  ["cast(1 as tinyint) = '1000'", 'NULL'], ["'1.4' = cast(1 as decimal(10, 0))", 'false'], ["'1.4' > cast(1 as decimal(10, 0))", 'true'], ["'yes' = true", 'true'], ["'0' = false", 'true'], ["'maybe' = true", 'NULL'],
  ["'10' > 9", 'true'], ["'10' > '9'", 'false'], ["'2' BETWEEN 1 AND 3", 'true'],
  ["'2' * id", '2.0'], ["'a' + 1", 'NULL'], ["' 1.5 ' + 1", '2.5'],
  // A string's negation is a DOUBLE's (PromoteStrings' UnaryMinus).
  ["-'1'", '-1.0'], ["-'x'", 'NULL'],
  // inConversion.sql: a string among numbers makes them all STRINGs (findWiderCommonType): a
  // FLOAT's or DOUBLE's text is 1.0; a number beside a BINARY, BOOLEAN, TIMESTAMP or DATE refused.
  ...NUMBERS.slice(0, -1).flatMap((n): [string, string][] => [
    [`${n} in (cast(1 as string))`, n.includes('float') || n.includes('double') ? 'false' : 'true'],
    [`cast(1 as string) in (${n})`, n.includes('float') || n.includes('double') ? 'false' : 'true'],
    ...OTHERS.map((o): [string, string] => [`${n} in (${o})`, ERROR]),
  ]),
  ["cast(1 as tinyint) in ('1')", 'true'], ["cast(1 as int) in ('1', 2)", 'true'], ["'1' in (cast(1 as bigint))", 'true'],
  ["cast(1 as decimal(10, 0)) in ('1')", 'true'], ["1.0 in ('1')", 'false'], ["cast(1 as double) in ('1')", 'false'], ["cast(1 as double) in ('1.0')", 'true'],
  ["cast(1 as boolean) in ('1')", ERROR], ["cast('1' as binary) in ('1')", ERROR],
  // …and beside a DATE or TIMESTAMP (findWiderCommonType's stringPromotion): the value's text is
  // compared, so a string in another form, or no date at all, is not equal (where `=` reads it as a DATE).
  ["cast(1 as string) in (cast(1 as string), cast('2017-12-11 09:30:00' as date))", 'true'],
  ["DATE '2024-01-01' in ('2024-01-01', '2024-01-02')", 'true'], ["DATE '2024-01-01' in ('2024-1-1')", 'false'],
  ["DATE '2024-01-01' in ('2024-01-01 00:00:00')", 'false'], ["DATE '2024-01-01' in ('soon')", 'false'], ["DATE '2024-01-01' in ('soon', NULL)", 'NULL'],
  ["DATE '2024-01-01' = '2024-1-1'", 'true'],
  ["TIMESTAMP '2024-01-01 00:00:00' in ('2024-01-01')", 'false'], ["TIMESTAMP '2024-01-01 00:00:00' in ('2024-01-01 00:00:00')", 'true'],
  // caseWhenCoercion.sql: a number and a string widen to a STRING; a number beside a BINARY, BOOLEAN, TIMESTAMP or DATE is refused.
  ...NUMBERS.slice(0, -1).flatMap((n): [string, string][] => [
    [`CASE WHEN true THEN ${n} ELSE cast(2 as string) END`, n.includes('float') || n.includes('double') ? '1.0' : '1'],
    ...OTHERS.map((o): [string, string] => [`CASE WHEN true THEN ${n} ELSE ${o.replace("'1'", "'2'").replace('(1 ', '(2 ')} END`, ERROR]),
  ]),
  ["CASE WHEN true THEN cast(1 as tinyint) ELSE '2' END", '1'], ["CASE WHEN false THEN cast(1 as int) ELSE '2' END", '2'],
  ["CASE WHEN true THEN cast(1 as double) ELSE '2' END", '1.0'], ["CASE WHEN true THEN cast(1 as float) ELSE cast(2 as string) END", '1.0'], ["CASE WHEN true THEN cast(1 as decimal(10, 0)) ELSE '2' END", '1'],
  ["CASE WHEN true THEN cast('2017-12-12 09:30:00' as date) ELSE '2' END", '2017-12-12'],
  ["CASE WHEN true THEN cast(1 as boolean) ELSE '2' END", ERROR], ["CASE WHEN true THEN cast('1' as binary) ELSE '2' END", ERROR],
  // coalesce, if, nvl and nvl2 widen as CASE does (findWiderCommonType); greatest does not (Spark refuses it).
  ["coalesce(cast(1 as int), '2')", '1'], ["coalesce(NULL, cast(1.50 as decimal(3, 2)), 'a')", '1.50'], ["coalesce(cast(1 as float), 'a')", '1.0'],
  ["if(true, cast(1 as bigint), 'a')", '1'], ["if(false, 1, 'a')", 'a'], ["nvl(NULL, 2) || 'x'", '2x'], ["nvl2(NULL, 'a', cast(3 as smallint))", '3'],
  // findWiderCommonType folds the strings first ("(TimestampType, IntegerType, StringType) should
  // have StringType as the wider common type"), so a DOUBLE, a DATE and a STRING are STRINGs.
  ["coalesce(cast(2 as double), cast('2017-12-12' as date), 'a')", '2.0'], ["coalesce(true, 'a')", ERROR], ["greatest(1, '2')", ERROR],
  ["coalesce(cast('2017-12-12' as date), 'a')", '2017-12-12'],
  // functionArgumentConversion.sql: greatest and least cast no STRING (findWiderTypeWithoutStringPromotion), not to a DATE or TIMESTAMP either.
  ["greatest(cast(1 as string), cast('2017-12-12 09:30:00.0' as timestamp))", ERROR], ["least(cast('2017-12-11 09:30:00' as date), cast(2 as string))", ERROR],
  // …and nanvl of two FLOATs is a FLOAT (its inputs DOUBLE or FLOAT, a FLOAT beside a DOUBLE cast to it).
  ['typeof(nanvl(cast(1 as float), cast(2 as float)))', 'float'], ['typeof(nanvl(cast(1 as float), cast(2 as double)))', 'double'], ['typeof(nanvl(cast(1 as float), 2))', 'double'],
  ['typeof(nanvl(cast(1 as float), NULL))', 'float'], ['typeof(nanvl(NULL, cast(1 as float)))', 'double'],
  // ifCoercion.sql, caseWhenCoercion.sql: a DATE beside a TIMESTAMP is a TIMESTAMP, its midnight (findTightestCommonType).
  ...['IF(true, ', 'coalesce(', 'nvl(', 'nvl2(1, '].map((f): [string, string] => [`${f}cast('2017-12-12 09:30:00' as date), cast('2017-12-11 09:30:00.0' as timestamp))`, '2017-12-12 00:00:00']),
  ["CASE WHEN true THEN cast('2017-12-12 09:30:00' as date) ELSE cast('2017-12-11 09:30:00.0' as timestamp) END", '2017-12-12 00:00:00'],
  ["coalesce(date'2020-01-02', timestamp_ntz'2020-01-01 00:00:00')", '2020-01-02 00:00:00'], ["typeof(if(true, date'2020-01-02', timestamp_ntz'2020-01-01 00:00:00'))", 'timestamp_ntz'],
  // promoteStrings.sql: a string beside a TIMESTAMP or DATE in arithmetic.
  [`'1' + ${OTHERS[2]}`, ERROR], [`'1' + ${OTHERS[3]}`, ERROR], [`'1' - ${OTHERS[2]}`, ERROR], [`'1' - ${OTHERS[3]}`, 'NULL'],
  ["'2017-12-12' - cast('2017-12-11' as date)", 'INTERVAL \'1\' DAY'], ["'x' - cast('2017-12-11' as date)", 'NULL'],
  // promoteStrings.sql: pmod of a string is a DOUBLE's; a function taking a number casts a string to a DOUBLE (ImplicitTypeCasts, PromoteStrings' Abs).
  ...NUMBERS.map((n): [string, string] => [`pmod('1', ${n})`, '0.0']),
  // decimalPrecision.sql: pmod of a decimal and an integer or a decimal is Remainder's decimal (DecimalPrecision), NULL where it does not fit.
  ['pmod(cast(1 as tinyint), cast(1 as decimal(10, 0)))', '0'], ['pmod(cast(1 as decimal(20, 0)), cast(1 as bigint))', '0'],
  ['pmod(-7.5, 2)', '0.5'], ['pmod(7.5, -2)', '1.5'], ['pmod(-10.25, 3.1)', '2.15'], ['pmod(1.5, 0)', 'NULL'],
  ['pmod(cast(-1 as decimal(1, 0)), cast(100 as decimal(3, 0)))', 'NULL'],
  // Both negative: r + n (-14) is wider than the type, (r + n) % n (-5) is not.
  ['pmod(-7.5, -2)', '-1.5'], ['pmod(cast(-5 as decimal(1, 0)), cast(-9 as decimal(1, 0)))', '-5'],
  ['pmod(cast(1 as decimal(10, 0)), cast(1 as double))', '0.0'],
  ["abs('-1')", '1.0'], ["sqrt('4')", '2.0'], ["ln('x')", 'NULL'], ["round('2.5')", '3.0'], ["bin('3')", '11'], ["hex('17')", '3137'],
  // binaryComparison.sql: a string beside a BINARY is cast to BINARY, whose bytes compare unsigned, the shorter first.
  ...([['=', 'false', 'false'], ['>', 'true', 'false'], ['>=', 'true', 'false'], ['<', 'false', 'true'], ['<=', 'false', 'true'], ['<>', 'true', 'true']] as const).flatMap(([op, l, r]): [string, string][] => [
    [`' ' ${op} X'${op === '=' ? '0020' : '001F'}'`, l], [`X'${op === '=' ? '0020' : '001F'}' ${op} ' '`, r],
    [`cast(null as string) ${op} X'001F'`, 'NULL'], [`X'001F' ${op} cast(null as string)`, 'NULL'],
  ]),
  // binaryComparison.sql: a string beside a DATE or TIMESTAMP is cast to it; a NULL string beside any type is NULL.
  ["'1996-09-09' = date('1996-09-09')", 'true'], ["'1996-9-10' > date('1996-09-09')", 'true'], ["date('1996-9-10') <= '1996-09-09'", 'false'],
  ["'1996-09-09 12:12:12.5' > timestamp('1996-09-09 12:12:12.4')", 'true'], ["timestamp('1996-09-09 12:12:12.4' )= '1996-09-09 12:12:12.4'", 'true'],
  ...[...NUMBERS.slice(0, -1), "date('1996-09-09')", "timestamp('1996-09-09 12:12:12.4')", "X'0020'"].map((n): [string, string] => [`cast(null as string) < ${n}`, 'NULL']),
  // Two BINARY values are equal by their bytes (IN, CASE x WHEN).
  ["X'61' IN (X'0061', X'61')", 'true'], ["X'61' IN (X'6100')", 'false'], ["CASE cast('a' as binary) WHEN X'61' THEN 'y' ELSE 'n' END", 'y'],
  // Integers of two widths compare as the wider; a BIGINT beside a DOUBLE where a value passes through is a DOUBLE (ifCoercion.sql), past 2^53 its nearest.
  ["cast(1 as tinyint) = cast(1 as bigint)", 'true'], ["cast(-1 as smallint) < cast(1 as int)", 'true'], ["cast(2 as int) BETWEEN cast(1 as tinyint) AND cast(3 as bigint)", 'true'],
  ["IF(true, cast(1 as bigint), cast(2 as double))", '1.0'], ["coalesce(cast(9007199254740993 as bigint), cast(1 as double))", '9.007199254740992E15'],
  ["nvl(cast(null as bigint), cast(2 as double))", '2.0'], ["CASE WHEN true THEN cast(1 as bigint) ELSE cast(2 as double) END", '1.0'],
  // CASE x WHEN v compares x = v (CaseKeyWhen): the string cast to x's type.
  ["CASE 1 WHEN '1' THEN 'y' ELSE 'n' END", 'y'], ["CASE 1 WHEN '1.0' THEN 'y' ELSE 'n' END", 'y'],
  // div casts an INT, SMALLINT or TINYINT to BIGINT (IntegralDivision): INT's minimum div -1 does not overflow.
  ["cast(7 as tinyint) div cast(2 as smallint)", '3'], ["cast(-2147483648 as int) div -1", '2147483648'], ['7 div 0', 'NULL'], ['cast(7.9 as double) div 2', '3'],
  // The bitwise operators read integers of two widths as the wider; a shift's distance is an INT (a BIGINT's low 32 bits).
  ["cast(1 as tinyint) & cast(3 as bigint)", '1'], ["cast(-1 as tinyint) | cast(256 as int)", '-1'], ["cast(5 as smallint) ^ cast(3 as tinyint)", '6'],
  ['shiftleft(cast(1 as tinyint), 31)', '-2147483648'], ['shiftleft(1, 33L)', '2'], ['shiftleft(1L, 4294967297L)', '2'],
  // || casts a non-string operand to STRING (concat.sql): its text as CAST(… AS STRING) gives it.
  ["cast(1 as int) || 'a'", '1a'], ["cast(1.5 as float) || 'x'", '1.5x'], ["true || 'x'", 'truex'], ["cast('2017-12-11' as date) || 'x'", '2017-12-11x'],
  ["1.50 || ''", '1.50'], ["NULL || 'a'", 'NULL'], ["cast(1 as double) || cast(2 as bigint)", '1.02'],
  // concat.sql: || of arrays of two element types is of the wider (ConcatCoercion: findWiderCommonType).
  ['typeof(array(2Y, 1Y) || array(3S, 4S))', 'array<smallint>'], ['typeof(array(2, 1) || array(3L, 4L))', 'array<bigint>'],
  ['array(2L, 1L) || array(9223372036854775808, 9223372036854775809)', '[2,1,9223372036854775808,9223372036854775809]'],
  ['typeof(array(2.0D, 1.0D) || array(float(3.0), float(4.0)))', 'array<double>'],
  ["array('a', 'b') || array(date '2016-03-12', date '2016-03-11')", '["a","b","2016-03-12","2016-03-11"]'], ["array('a', 'b') || array(3, 4)", '["a","b","3","4"]'],
  // array_union, array_intersect, array_except of two element types: of their tightest common type (BinaryArrayExpressionWithImplicitCast).
  ['typeof(array_union(array(1Y), array(2S)))', 'array<smallint>'], ['typeof(array_except(array(1, 2), array(1L)))', 'array<bigint>'],
  ['array_intersect(array(1.0D), array(float(1.0)))', '[1.0]'], ['array_union(array(float(0.1)), array(0.2D))', '[0.10000000149011612,0.2]'],
  // A DATE beside a TIMESTAMP subtracted, or plus a day-time interval with a time part, is cast to a TIMESTAMP (its midnight).
  ["cast('2017-12-11' as date) - cast('2017-12-10 12:00:00' as timestamp)", "INTERVAL '0 12:00:00' DAY TO SECOND"],
  ["cast('2017-12-11 09:30:00' as timestamp) - cast('2017-12-11' as date)", "INTERVAL '0 09:30:00' DAY TO SECOND"],
  ["cast('2017-12-11' as date) + interval '1' hour", '2017-12-11 01:00:00'], ["cast('2017-12-11' as date) - interval '2' day", '2017-12-09'],
  // dateTimeOperations.sql: a string plus or minus a day-time interval is the time it names, moved, as a STRING; a number or a BOOLEAN is refused.
  ["cast('2017-12-11' as string) + interval 2 day", '2017-12-13 00:00:00'], ["cast('2017-12-11 09:30:00' as string) - interval 2 day", '2017-12-09 09:30:00'],
  ["interval 2 day + cast('2017-12-11 09:30:00' as string)", '2017-12-13 09:30:00'], ["'x' + interval 2 day", 'NULL'],
  ['cast(1 as int) + interval 2 day', ERROR], ['cast(1 as boolean) - interval 2 day', ERROR], ["cast('2017-12-11 09:30:00' as date) + interval 2 day", '2017-12-13'],
  // array_contains reads its value as the elements' type (findWiderTypeWithoutStringPromotion).
  ['array_contains(array(cast(1 as bigint), 2L), cast(1 as int))', 'true'], ['array_contains(array(1.50, 2.25), 1.5)', 'true'],
  ['array_contains(array(1.0D, 2.0D), cast(1 as float))', 'true'], ['array_contains(array(cast(1 as decimal(10, 2))), cast(1 as tinyint))', 'true'],
];

/** Where Weir answers otherwise, and why: none now. */
const SPARK_DIFFERENCES: Record<string, string> = {};

/** What Weir prints for `SELECT expr FROM t`, or "error" when it refuses the query. */
async function weirPrints(expr: string): Promise<string> {
  try {
    const { row, schema } = await select(`${expr} AS v`);
    return printed(row.v, schema[0]);
  } catch {
    return ERROR;
  }
}

describe("Spark's string promotion (ANSI off)", () => {
  it('refuses arithmetic on operands of two types with BINARY_OP_DIFF_TYPES, as Spark (division.sql, promoteStrings.sql)', async () => {
    for (const o of OTHERS) {
      for (const q of [`cast(1 as tinyint) / ${o}`, `cast(1 as decimal(10, 0)) * ${o}`, `cast(1 as int) % ${o}`]) {
        expect((await weirAnswer(`SELECT ${q}`)).output, q).toBe('error DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES');
      }
    }
    expect((await weirAnswer("SELECT '1' + cast(1 as boolean)")).output).toBe('error DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES');
    expect((await weirAnswer('SELECT true + false')).output).toBe('error DATATYPE_MISMATCH.BINARY_OP_WRONG_TYPE');
    // Arrays of element types with no tightest common type (array set operations) or no wider one (concat).
    for (const q of ['array_union(array(1.5), array(2L))', "array_except(array('a'), array(1))", "arrays_overlap(array('a'), array(1))"]) {
      expect((await weirAnswer(`SELECT ${q}`)).output, q).toBe('error DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES');
    }
    expect((await weirAnswer("SELECT array(1) || array(x'01')")).output).toBe('error DATATYPE_MISMATCH.DATA_DIFF_TYPES');
    // A decimal pmod's type: Remainder's (min(p1 - s1, p2 - s2) + max(s1, s2), max(s1, s2)).
    expect((await weirAnswer('SELECT pmod(-10.25, 3.1)')).schema?.[0]).toMatchObject({ type: 'decimal', precision: 3, scale: 2 });
  });
  it('refuses values of no common type with DATA_DIFF_TYPES, as Spark (ifCoercion.sql, caseWhenCoercion.sql)', async () => {
    for (const q of ["IF(true, cast(1 as tinyint), cast('2' as binary))", "CASE WHEN true THEN cast(1 as int) ELSE cast(2 as boolean) END", 'coalesce(1, true)', 'nvl2(1, 2, true)', "greatest(1, '2')"]) {
      expect((await weirAnswer(`SELECT ${q}`)).output, q).toBe('error DATATYPE_MISMATCH.DATA_DIFF_TYPES');
    }
  });

  it("gives what Spark's typeCoercion tests print, but for the differences listed with their reason", async () => {
    const got: Record<string, string> = {};
    for (const [q] of CASES) got[q] = await weirPrints(q);
    const differing = Object.fromEntries(CASES.filter(([q, v]) => got[q] !== v).map(([q]) => [q, got[q]]));
    expect(differing).toEqual(SPARK_DIFFERENCES);
    expect(CASES.length).toBeGreaterThan(360);
  });
});
