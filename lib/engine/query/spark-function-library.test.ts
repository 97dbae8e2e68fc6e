/**
 * Spark's function library beyond the first sets: the answers Spark gives (or its errors, with
 * their error classes) for the forms that used to give a different answer, the collection, map,
 * struct, string and date-time functions added since, and the argument forms Spark accepts. Each
 * runs end to end (SQL text → plan → operators) on the examples of Spark's function reference
 * (the `> SELECT …` lines of each @ExpressionDescription and the results Spark prints).
 */
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import type { Row, Schema } from '../types';
import { formatDate } from './date';
import { formatDecimal } from './decimal';
import { compileStreamingQuery } from './streaming-query';
import { StatefulQueryRunner } from './testing/stateful-test-harness';

const SCHEMA: Schema = [{ name: 'id', type: 'long' }, { name: 'n', type: 'long' }, { name: 's', type: 'string' }];
const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: SCHEMA };

async function one(expr: string): Promise<unknown> {
  const q = compileStreamingQuery(`SELECT ${expr} AS v FROM src`, rel);
  let out: Row[] = [{ id: 1, n: null, s: 'Spark' }];
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  const f = q.outputSchema[0];
  if (f.type === 'date' && typeof out[0].v === 'number') return `${formatDate(out[0].v)}::DATE`;
  return f.type === 'decimal' && typeof out[0].v === 'bigint' ? `${formatDecimal(out[0].v, f.scale ?? 0)}::DECIMAL(${f.precision},${f.scale})` : out[0].v;
}

/** The error a query gives, compiled or run: its message and error class. */
async function failure(expr: string): Promise<{ message: string; errorClass?: string }> {
  try {
    await one(expr);
  } catch (e) {
    return { message: (e as Error).message, errorClass: (e as { errorClass?: string }).errorClass };
  }
  throw new Error(`expected ${expr} to fail`);
}

describe('answers where Spark fails or differs', () => {
  it("date_add with a BIGINT day count: Spark's DATATYPE_MISMATCH", async () => {
    const e = await failure("date_add('2011-11-11', 1L)");
    expect(e.errorClass).toBe('DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
    expect(e.message).toMatch(/requires the \("INT" or "SMALLINT" or "TINYINT"\) type, however it has the type "BIGINT"/);
    expect((await failure("date_sub('2011-11-11', CAST(1 AS BIGINT))")).errorClass).toBe('DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
    expect((await failure("date_add('2011-11-11', 3000000000)")).errorClass).toBe('DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
    // An INT literal, a narrower cast or a column (Weir's columns are BIGINT) still work.
    expect(await one("date_add('2011-11-11', 1)")).toBe('2011-11-12::DATE');
    expect(await one("date_add('2011-11-11', CAST(1 AS INT))")).toBe('2011-11-12::DATE');
    expect(await one("date_add('2011-11-11', id)")).toBe('2011-11-12::DATE');
  });

  it('timestamp_seconds past the microseconds a BIGINT holds overflows, as Spark', async () => {
    expect((await failure('timestamp_seconds(1230219000123123)')).message).toMatch(/ARITHMETIC_OVERFLOW\] long overflow/);
    expect(await one('timestamp_seconds(1230219000)')).toBe(Date.UTC(2008, 11, 25, 15, 30));
    expect(await one('timestamp_seconds(1230219000.123)')).toBe(Date.UTC(2008, 11, 25, 15, 30, 0, 123));
    expect(await one("timestamp_seconds(CAST('NaN' AS DOUBLE))")).toBeNull();
  });

  it("encode to a charset that cannot hold a character: Spark's MALFORMED_CHARACTER_CODING", async () => {
    expect((await failure("encode('abc😀', 'US-ASCII')")).message).toMatch(/\[MALFORMED_CHARACTER_CODING\] Invalid value found when performing `encode` with `US-ASCII`/);
    expect((await failure("encode('ā', 'ISO-8859-1')")).message).toMatch(/MALFORMED_CHARACTER_CODING/);
    expect(await one("hex(encode('abc', 'US-ASCII'))")).toBe('616263');
    expect(await one("hex(encode('é', 'ISO-8859-1'))")).toBe('E9');
    expect((await failure("decode(X'61E9', 'US-ASCII')")).message).toMatch(/\[MALFORMED_CHARACTER_CODING\] Invalid value found when performing `decode` with `US-ASCII`/);
    expect((await failure("decode(X'61FF', 'UTF-8')")).message).toMatch(/MALFORMED_CHARACTER_CODING/);
    expect(await one("decode(X'61E9', 'ISO-8859-1')")).toBe('aé');
  });

  it("regexp_replace with a position of 0 or less: Spark's VALUE_OUT_OF_RANGE", async () => {
    expect((await failure("regexp_replace('abc', 'b', 'x', 0)")).message).toMatch(/\[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE\] The `position` must be between \(0, 2147483647\], but got 0/);
    expect((await failure("regexp_replace('abc', 'b', 'x', -1)")).message).toMatch(/but got -1/);
    expect((await failure("regexp_replace('abc', 'b', 'x', id - 1)")).message).toMatch(/but got 0/);
    expect(await one("regexp_replace('abcb', 'b', 'x', 3)")).toBe('abcx');
  });

  it('conv of a negative number: the two\'s complement, all ones when it overflows, as Spark', async () => {
    expect(await one("conv('-9223372036854775807', 36, 10)")).toBe('18446744073709551615');
    expect(await one("conv('-1', 10, 10)")).toBe('18446744073709551615');
    expect(await one("conv('-10', 16, -10)")).toBe('-16');
    expect(await one("conv('100', 2, 10)")).toBe('4');
    expect(await one("conv('9223372036854775808', 10, -10)")).toBe('-9223372036854775808');
  });

  it('regexp_substr: an empty match is NULL, as no match is', async () => {
    expect(await one("regexp_substr('1a 2b 14m', '')")).toBeNull();
    expect(await one("regexp_substr('1a 2b 14m', '\\\\d+')")).toBe('1');
    expect(await one("regexp_substr('1a 2b 14m', 'x*')")).toBeNull();
  });

  it('a global aggregate in complete mode emits its one row when no row came, as Spark: count 0, sum NULL', async () => {
    const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), 'SELECT COUNT(1) AS c, sum(n) AS t FROM src WHERE false', rel, 'complete');
    expect((await q.runBatch([{ id: 1, n: 2, s: 'a' }])).output).toEqual([{ c: 0, t: null }]);
    const g = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), 'SELECT COUNT(1) AS c FROM src WHERE n > 1', rel, 'complete');
    expect((await g.runBatch([{ id: 1, n: 1, s: 'a' }])).output).toEqual([{ c: 0 }]);
    expect((await g.runBatch([{ id: 1, n: 2, s: 'a' }])).output).toEqual([{ c: 1 }]);
    // Grouped: no group, no row.
    const k = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), 'SELECT s, COUNT(1) AS c FROM src WHERE false GROUP BY s', rel, 'complete');
    expect((await k.runBatch([{ id: 1, n: 1, s: 'a' }])).output).toEqual([]);
  });
});

// [expression, Spark's documented result] (a DATE inside an array as its day number)
const COLLECTION_EXAMPLES: [string, unknown][] = [
  // array_append · array_prepend · array_compact · array_size
  ["array_append(array('b', 'd', 'c', 'a'), 'd')", ['b', 'd', 'c', 'a', 'd']],
  ['array_append(array(1, 2, 3, null), null)', [1, 2, 3, null, null]],
  // Spark's example writes CAST(null AS ARRAY<INT>); a plain NULL is one too.
  ['array_append(NULL, 2)', null],
  ["array_prepend(array('b', 'd', 'c', 'a'), 'd')", ['d', 'b', 'd', 'c', 'a']],
  ['array_prepend(array(1, 2, 3, null), null)', [null, 1, 2, 3, null]],
  ['array_prepend(NULL, 2)', null],
  ['array_compact(array(1, 2, 3, null))', [1, 2, 3]],
  ['array_compact(array("a", "b", "c"))', ['a', 'b', 'c']],
  ["array_size(array('b', 'd', 'c', 'a'))", 4],
  ['array_size(NULL)', null],
  // array_insert
  ['array_insert(array(1, 2, 3, 4), 5, 5)', [1, 2, 3, 4, 5]],
  ['array_insert(array(5, 4, 3, 2), -1, 1)', [5, 4, 3, 2, 1]],
  ['array_insert(array(5, 3, 2, 1), -4, 4)', [5, 4, 3, 2, 1]],
  ['array_insert(array(1, 2), 5, 9)', [1, 2, null, null, 9]],
  ['array_insert(array(1, 2), -5, 9)', [9, null, null, 1, 2]],
  ['array_insert(array(1, 2), 1, null)', [null, 1, 2]],
  // arrays_zip
  ['arrays_zip(array(1, 2, 3), array(2, 3, 4))', [{ 0: 1, 1: 2 }, { 0: 2, 1: 3 }, { 0: 3, 1: 4 }]],
  ['arrays_zip(array(1, 2), array(2, 3), array(3, 4))', [{ 0: 1, 1: 2, 2: 3 }, { 0: 2, 1: 3, 2: 4 }]],
  ['arrays_zip(array(1, 2), array(3))', [{ 0: 1, 1: 3 }, { 0: 2, 1: null }]],
  // array_position · array_remove · the set operations · arrays_overlap
  ['array_position(array(312, 773, 708, 708), 708)', 3],
  ['array_position(array(312, 773, 708, 708), 414)', 0],
  ['array_remove(array(1, 2, 3, null, 3), 3)', [1, 2, null]],
  ['array_union(array(1, 2, 3), array(1, 3, 5))', [1, 2, 3, 5]],
  ['array_intersect(array(1, 2, 3), array(1, 3, 5))', [1, 3]],
  ['array_except(array(1, 2, 3), array(1, 3, 5))', [2]],
  ['array_union(array(1, null), array(null, 2))', [1, null, 2]],
  ['array_except(array(1, 1, null, 2), array(2))', [1, null]],
  ['arrays_overlap(array(1, 2, 3), array(3, 4, 5))', true],
  ['arrays_overlap(array(1, 2), array(3, null))', null],
  ['arrays_overlap(array(1, 2), array(3))', false],
  ['arrays_overlap(array(1, null), array_remove(array(1), 1))', false],
  // sequence · array_repeat
  ['sequence(1, 5)', [1, 2, 3, 4, 5]],
  ['sequence(5, 1)', [5, 4, 3, 2, 1]],
  ['sequence(1, 10, 3)', [1, 4, 7, 10]],
  ["sequence(DATE '2018-01-01', DATE '2018-01-03')", [17532, 17533, 17534]],
  ["array_repeat('123', 2)", ['123', '123']],
  ['array_repeat(1, 0)', []],
  ['array_repeat(NULL, 2)', [null, null]],
  // map functions
  ["map_contains_key(map(1, 'a', 2, 'b'), 1)", true],
  ["map_contains_key(map(1, 'a', 2, 'b'), 3)", false],
  ["map_concat(map(1, 'a', 2, 'b'), map(3, 'c'))", { 1: 'a', 2: 'b', 3: 'c' }],
  ["map_from_arrays(array(1.0, 3.0), array('2', '4'))", { '1.0': '2', '3.0': '4' }],
  ["map_from_entries(array(struct(1, 'a'), struct(2, 'b')))", { 1: 'a', 2: 'b' }],
  ["map_entries(map(1, 'a', 2, 'b'))", [{ key: 1, value: 'a' }, { key: 2, value: 'b' }]],
  ["map_keys(map_concat(map('x', 1), map('y', 2)))", ['x', 'y']],
  // Maps of other types widen to one (Spark's findWiderCommonType), their values cast.
  ["map_concat(map(1, 2), map(3L, 4.5D))", { 1: 2, 3: 4.5 }],
  ["typeof(map_concat(map(1, 2), map(3L, 4.5D)))", 'map<bigint,double>'],
  ["map_concat(map('a', 1), map('b', 'x'))", { a: '1', b: 'x' }],
  // struct · named_struct
  ['named_struct("a", 1, "b", 2, "c", 3)', { a: 1, b: 2, c: 3 }],
  ['struct(1, 2)', { col1: 1, col2: 2 }],
  ['struct(id, s)', { id: 1, s: 'Spark' }],
  ["named_struct('a', 1, 'b', 'x').b", 'x'],
  ['typeof(named_struct("a", 1, "b", 2.5D))', 'struct<a:int,b:double>'],
  ["typeof(arrays_zip(array(1), array('a')))", 'array<struct<0:int,1:string>>'],
];

describe('collection, map and struct functions', () => {
  for (const [expr, expected] of COLLECTION_EXAMPLES) {
    it(expr, async () => {
      expect(await one(expr)).toEqual(expected);
    });
  }

  it('names the fields of arrays_zip after its columns', async () => {
    const r = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: [
      { name: 'xs', type: 'array' as const, elementType: { name: 'element', type: 'long' as const, nullable: true } },
      { name: 'ys', type: 'array' as const, elementType: { name: 'element', type: 'string' as const, nullable: true } },
    ] };
    const q = compileStreamingQuery('SELECT arrays_zip(xs, ys) AS z FROM src', r);
    let out: Row[] = [{ xs: [1, 2], ys: ['a', 'b'] }];
    for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
    expect(out[0].z).toEqual([{ xs: 1, ys: 'a' }, { xs: 2, ys: 'b' }]);
  });

  it("gives Spark's errors", async () => {
    expect((await failure('array_insert(array(1, 2), 0, 9)')).message).toMatch(/INVALID_INDEX_OF_ZERO/);
    expect((await failure('array_insert(array(1, 2), id - 1, 9)')).message).toMatch(/INVALID_INDEX_OF_ZERO/);
    expect((await failure('sequence(1, 5, -1)')).message).toMatch(/Illegal sequence boundaries: 1 to 5 by -1/);
    expect((await failure("map_concat(map(1, 'a'), map(1, 'b'))")).errorClass).toBe('DUPLICATED_MAP_KEY');
    expect((await failure("map_from_arrays(array(1, 2), array('a'))")).message).toMatch(/same length/);
    expect((await failure("map_from_arrays(array(1, null), array('a', 'b'))")).errorClass).toBe('NULL_MAP_KEY');
    expect((await failure("array_append(array(1), 'x')")).message).toMatch(/value of its element type/);
    expect((await failure('named_struct(s, 1)')).message).toMatch(/string literals/);
    expect((await failure('array_repeat(1, 2000000)')).message).toMatch(/over the limit/);
  });
});

// [expression, Spark's documented result] (a BINARY through hex(), a TIMESTAMP as epoch ms)
const MORE_EXAMPLES: [string, unknown][] = [
  // to_binary · try_to_binary
  ["decode(to_binary('abc', 'utf-8'), 'UTF-8')", 'abc'],
  ["decode(to_binary('537061726B2053514C', 'hex'), 'UTF-8')", 'Spark SQL'],
  ["decode(to_binary('U3BhcmsgU1FM', 'base64'), 'UTF-8')", 'Spark SQL'],
  ["hex(to_binary('abc'))", '0ABC'],
  ["decode(try_to_binary('abc', 'utf-8'), 'UTF-8')", 'abc'],
  ["try_to_binary('a!', 'base64')", null],
  ["try_to_binary('GG', 'hex')", null],
  // UTF-8 validity
  ["is_valid_utf8('Spark')", true],
  ["is_valid_utf8(x'61')", true],
  ["is_valid_utf8(x'80')", false],
  ["is_valid_utf8(x'61C262')", false],
  ["make_valid_utf8('Spark')", 'Spark'],
  ["make_valid_utf8(x'61')", 'a'],
  ["make_valid_utf8(x'80')", '\uFFFD'],
  ["make_valid_utf8(x'61C262')", 'a\uFFFDb'],
  ["validate_utf8('Spark')", 'Spark'],
  ["validate_utf8(x'61')", 'a'],
  ["try_validate_utf8('Spark')", 'Spark'],
  ["try_validate_utf8(x'61')", 'a'],
  ["try_validate_utf8(x'80')", null],
  ["try_validate_utf8(x'61C262')", null],
  // quote
  ["quote('Don\\'t')", "'Don\\'t'"],
  // like() and ilike() as functions
  ["like('Spark', '_park')", true],
  ["like('Spark', 'spark')", false],
  ["ilike('Spark', '_Park')", true],
  ["like('a_b', 'a!_b', '!')", true],
  ["like('axb', 'a!_b', '!')", false],
  // timestamp() and date() as functions (Spark's cast functions)
  ["timestamp('2016-12-31 00:12:00')", Date.UTC(2016, 11, 31, 0, 12)],
  ["date('2016-12-31')", '2016-12-31::DATE'],
  ["int('12')", 12],
  ["string(12)", '12'],
  // timestampadd · timestampdiff, and the unit-first dateadd/date_add/datediff/date_diff
  ["timestampadd(HOUR, 8, TIMESTAMP '2022-02-11 20:30:00')", Date.UTC(2022, 1, 12, 4, 30)],
  ["timestampadd(MONTH, 1, TIMESTAMP '2022-01-31 00:00:00')", Date.UTC(2022, 1, 28)],
  ["timestampadd(SECOND, -10, DATE '2022-01-01')", Date.UTC(2021, 11, 31, 23, 59, 50)],
  ["timestampadd(YEAR, 1, DATE '2022-02-15')", Date.UTC(2023, 1, 15)],
  ["dateadd(MICROSECOND, 5000, TIMESTAMP '2022-02-28 00:00:00')", Date.UTC(2022, 1, 28, 0, 0, 0, 5)],
  ["date_add(MONTH, -1, TIMESTAMP '2022-03-31 00:00:00')", Date.UTC(2022, 1, 28)],
  ["timestampdiff(HOUR, TIMESTAMP '2022-02-11 20:30:00', TIMESTAMP '2022-02-12 04:30:00')", 8],
  ["timestampdiff(MONTH, TIMESTAMP '2022-01-01 00:00:00', TIMESTAMP '2022-02-28 00:00:00')", 1],
  ["timestampdiff(SECOND, DATE '2022-01-01', TIMESTAMP '2021-12-31 23:59:50')", -10],
  ["timestampdiff(YEAR, DATE '2022-02-15', DATE '2023-02-15')", 1],
  ["timestampdiff(MONTH, TIMESTAMP '2022-01-31 10:00:00', TIMESTAMP '2022-02-28 09:00:00')", 0],
  ["timestampdiff(QUARTER, DATE '2022-01-01', DATE '2022-07-01')", 2],
  ["datediff(DAY, DATE '2022-01-01', DATE '2022-01-08')", 7],
  ["date_diff(WEEK, DATE '2022-01-01', DATE '2022-01-15')", 2],
  ["timestampdiff(MILLISECOND, TIMESTAMP '2022-01-01 00:00:00', TIMESTAMP '2022-01-01 00:00:01.5')", 1500],
  // Result types as Spark's expressions declare them: a date or time field, a length, a position
  // or a count of days is an INT (GetDateField, Length, StringLocate, DateDiff, …); an interval's
  // MONTH, HOUR and MINUTE a TINYINT (ExtractIntervalPart); timestampdiff a BIGINT.
  ...[
    "year(DATE '2022-01-01')", "quarter(DATE '2022-01-01')", "month(DATE '2022-01-01')", "day(DATE '2022-01-01')",
    "dayofmonth(DATE '2022-01-01')", "dayofweek(DATE '2022-01-01')", "dayofyear(DATE '2022-01-01')", "weekday(DATE '2022-01-01')",
    "weekofyear(DATE '2022-01-01')", "hour(TIMESTAMP '2022-01-01 10:00:00')", "minute(TIMESTAMP '2022-01-01 10:00:00')",
    "second(TIMESTAMP '2022-01-01 10:00:00')", "datediff(DATE '2022-01-02', DATE '2022-01-01')", "unix_date(DATE '2022-01-01')",
    "extract(YEAR FROM DATE '2022-01-01')", "date_part('hour', TIMESTAMP '2022-01-01 10:00:00')", 'length(s)', 'char_length(s)',
    'octet_length(s)', 'bit_length(s)', "instr(s, 'a')", "locate('a', s)", "position('a', s)", 'ascii(s)', "levenshtein(s, 'x')",
    "find_in_set('a', s)", "regexp_count(s, 'a')", "regexp_instr(s, 'a')", "json_array_length('[1]')",
    "extract(YEAR FROM INTERVAL '1-2' YEAR TO MONTH)", "extract(DAY FROM INTERVAL '1 02:03:04' DAY TO SECOND)",
  ].map((e): [string, unknown] => [`typeof(${e})`, 'int']),
  ...["extract(MONTH FROM INTERVAL '1-2' YEAR TO MONTH)", "extract(HOUR FROM INTERVAL '1 02:03:04' DAY TO SECOND)", "extract(MINUTE FROM INTERVAL '1 02:03:04' DAY TO SECOND)"]
    .map((e): [string, unknown] => [`typeof(${e})`, 'tinyint']),
  ["typeof(datediff(DAY, DATE '2022-01-01', DATE '2022-01-08'))", 'bigint'],
  // make_timestamp's time zone: the wall-clock time there (Spark's example, in UTC).
  ["CAST(make_timestamp(2014, 12, 28, 6, 30, 45.887, 'CET') AS STRING)", '2014-12-28 05:30:45.887'],
  ["CAST(make_timestamp_ltz(2014, 12, 28, 6, 30, 45.887, '+09:00') AS STRING)", '2014-12-27 21:30:45.887'],
  // An INT wraps as Spark's does with ANSI off.
  ["hour(TIMESTAMP '2022-01-01 07:00:00') * 1000000000", -1589934592],
];

describe('string, datetime and cast functions', () => {
  for (const [expr, expected] of MORE_EXAMPLES) {
    it(expr, async () => {
      expect(await one(expr)).toEqual(expected);
    });
  }

  it("gives Spark's errors", async () => {
    expect((await failure("to_binary('GG', 'hex')")).message).toMatch(/\[CONVERSION_INVALID_INPUT\] The value 'GG' \(STRING\) cannot be converted to BINARY/);
    expect((await failure("to_binary('a!', 'base64')")).message).toMatch(/CONVERSION_INVALID_INPUT/);
    expect((await failure("to_binary('abc', 'invalidFormat')")).message).toMatch(/INVALID_PARAMETER_VALUE.BINARY_FORMAT.*but got 'invalidFormat'/);
    // try_to_binary is ToBinary(…, nullOnInvalidFormat = true): NULL, not the error.
    expect(await one("try_to_binary('abc', 'invalidFormat')")).toBeNull();
    expect((await failure("validate_utf8(x'80')")).message).toMatch(/\[INVALID_UTF8_STRING\] Invalid UTF8 byte sequence found in string: \\x80/);
    expect((await failure("timestampadd('X', 1, TIMESTAMP '2022-01-01 00:00:00')")).message).toMatch(/INVALID_PARAMETER_VALUE.DATETIME_UNIT/);
    expect((await failure("like('a', 'b', 'xy')")).message).toMatch(/one-character/);
    expect((await failure("to_timestamp('2016', 'yyyy[MM')")).message).toMatch(/unclosed optional section/);
    expect((await failure("from_json('{}', 'a INT', map('timestampFormat', s))")).message).toMatch(/constant map/);
  });
});

describe('regr_* aggregates', () => {
  const xy = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: [{ name: 'y', type: 'long' as const }, { name: 'x', type: 'long' as const }] };
  // Spark's three example tables: VALUES (1, 2), (2, 2), (2, 3), (2, 4) AS tab(y, x), then with NULLs.
  const TABLES: Row[][] = [
    [{ y: 1, x: 2 }, { y: 2, x: 2 }, { y: 2, x: 3 }, { y: 2, x: 4 }],
    [{ y: 1, x: 2 }, { y: 2, x: null }, { y: 2, x: 3 }, { y: 2, x: 4 }],
    [{ y: 1, x: 2 }, { y: 2, x: null }, { y: null, x: 3 }, { y: 2, x: 4 }],
  ];
  // [function, Spark's documented result on each table]
  const EXPECTED: [string, (number | null)[]][] = [
    ['regr_count', [4, 3, 2]],
    ['regr_avgx', [2.75, 3.0, 3.0]],
    ['regr_avgy', [1.75, 1.6666666666666667, 1.5]],
    ['regr_sxx', [2.75, 2.0, 2.0]],
    ['regr_syy', [0.75, 0.6666666666666666, 0.5]],
    ['regr_sxy', [0.75, 1.0, 1.0]],
    ['regr_slope', [0.2727272727272727, 0.5, 0.5]],
    ['regr_intercept', [1.0, 0.16666666666666674, 0.0]],
    ['regr_r2', [0.2727272727272727, 0.7500000000000001, 1.0]],
  ];
  for (const [fn, results] of EXPECTED) {
    it(`${fn}(y, x) on Spark's examples`, async () => {
      for (let t = 0; t < TABLES.length; t++) {
        const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), `SELECT ${fn}(y, x) AS v FROM src`, xy, 'complete');
        const { output } = await q.runBatch(TABLES[t]);
        expect(output[0].v as number, `${fn} on table ${t + 1}`).toBeCloseTo(results[t]!, 12);
      }
    });
  }

  it('is NULL (regr_count 0) without a pair, and keeps its buffer across a restart', async () => {
    const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), 'SELECT regr_count(y, x) AS c, regr_slope(y, x) AS s FROM src', xy, 'complete');
    expect((await q.runBatch([{ y: 1, x: null }])).output).toEqual([{ c: 0, s: null }]);
    await q.runBatch(TABLES[0].slice(0, 2));
    q.restart();
    const { output } = await q.runBatch(TABLES[0].slice(2));
    expect(output[0].c).toBe(4);
    expect(output[0].s as number).toBeCloseTo(0.2727272727272727, 12);
  });
});

describe('percentile', () => {
  const col = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: [{ name: 'col', type: 'long' as const }] };
  const run = async (sql: string, rows: Row[]) => (await new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, col, 'complete').runBatch(rows)).output[0].v;

  it("gives Spark's documented results: VALUES (0), (10) AS tab(col)", async () => {
    expect(await run('SELECT percentile(col, 0.3) AS v FROM src', [{ col: 0 }, { col: 10 }])).toBe(3);
    expect(await run('SELECT percentile(col, array(0.25, 0.75)) AS v FROM src', [{ col: 0 }, { col: 10 }])).toEqual([2.5, 7.5]);
    expect(await run('SELECT percentile(col, 0.5) AS v FROM src', [{ col: 1 }, { col: 3 }, { col: 3 }, { col: null }])).toBe(3);
  });

  it('with a frequency, counts each row that many times: the answer over the rows repeated', async () => {
    const cf = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: [{ name: 'col', type: 'long' as const }, { name: 'f', type: 'long' as const }] };
    const runF = async (sql: string, rows: Row[]) => (await new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, cf, 'complete').runBatch(rows)).output[0].v;
    const weighted = [{ col: 0, f: 1 }, { col: 10, f: 3 }, { col: 4, f: 0 }, { col: 7, f: null }, { col: null, f: 2 }, { col: 2, f: 2 }];
    const repeated = weighted.flatMap((r) => (r.col === null || r.f === null ? [] : Array.from({ length: r.f }, () => ({ col: r.col }))));
    for (const p of ['0.25', '0.5', 'array(0.1, 0.9)']) {
      expect(await runF(`SELECT percentile(col, ${p}, f) AS v FROM src`, weighted), p).toEqual(await run(`SELECT percentile(col, ${p}) AS v FROM src`, repeated));
    }
    // 0, 2, 2, 10, 10, 10: position 0.25 · 5 = 1.25 is between two 2s.
    expect(await runF('SELECT percentile(col, 0.25, f) AS v FROM src', weighted)).toBe(2);
    await expect(runF('SELECT percentile(col, 0.5, f) AS v FROM src', [{ col: 1, f: -1 }])).rejects.toThrow(/NEGATIVE_VALUES_IN_FREQUENCY_EXPRESSION/);
    expect(() => compileStreamingQuery('SELECT percentile(col, 0.5, 1.5) AS v FROM src', cf, { outputMode: 'complete' })).toThrow(/frequency as an integral/);
  });

  it('between two equal values gives the value, not their weighted sum (which may round)', async () => {
    const dbl = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: [{ name: 'col', type: 'double' as const }] };
    const x = 0.24285714285714285;
    const rows = [{ col: x }, { col: x }, { col: x }];
    // Position 0.3 lies between the first two: 0.7·x + 0.3·x is 0.24285714285714283.
    expect((await new StatefulQueryRunner(new InMemoryCheckpointFileManager(), 'SELECT percentile(col, 0.15) AS v FROM src', dbl, 'complete').runBatch(rows)).output[0].v).toBe(x);
  });

  it("refuses a percentage outside [0, 1] with Spark's VALUE_OUT_OF_RANGE", () => {
    expect(() => compileStreamingQuery('SELECT percentile(col, 1.5) AS v FROM src', col, { outputMode: 'complete' })).toThrow(/DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE.*must be between \[0.0, 1.0\] \(current value = 1.5D\)/);
  });
});

const FORM_EXAMPLES: [string, unknown][] = [
  // nvl/ifnull/coalesce of arrays
  ['nvl(NULL, array(2))', [2]],
  ['ifnull(array(1), array(2))', [1]],
  ["coalesce(NULL, map('a', 1))", { a: 1 }],
  ['typeof(nvl(array(1), array(2)))', 'array<int>'],
  // numbers as text where Spark casts them
  ['contains(123, 2)', true],
  ['startswith(123, 12)', true],
  ['luhn_check(79927398713)', true],
  ['luhn_check(79927398714)', false],
  // lpad/rpad on binary: > SELECT hex(lpad(unhex('aabb'), 5)); 000000AABB …
  ["hex(lpad(unhex('aabb'), 5))", '000000AABB'],
  ["hex(lpad(unhex('aabb'), 5, unhex('1122')))", '112211AABB'],
  ["hex(rpad(unhex('aabb'), 5))", 'AABB000000'],
  ["hex(rpad(unhex('aabb'), 5, unhex('1122')))", 'AABB112211'],
  ["hex(lpad(unhex('aabbcc'), 2))", 'AABB'],
  // btrim on binary: > SELECT btrim(encode('    SparkSQL   ', 'utf-8')); SparkSQL …
  ["decode(btrim(encode('    SparkSQL   ', 'utf-8')), 'UTF-8')", 'SparkSQL'],
  ["decode(btrim(encode('SSparkSQLS', 'utf-8'), encode('SL', 'utf-8')), 'UTF-8')", 'parkSQ'],
  // UTF-32 (Spark 4's charsets): Java's big-endian bytes without a byte-order mark; read by a mark when there is one
  ["hex(encode('a€', 'UTF-32'))", '00000061000020AC'],
  ["decode(X'0000FEFF00000061', 'utf-32')", 'a'],
  ["decode(X'FFFE000061000000', 'UTF-32')", 'a'],
  // a string day count
  ["date_add('2016-07-30', '1')", '2016-07-31::DATE'],
  ["date_sub('2016-07-30', '1')", '2016-07-29::DATE'],
  // to_timestamp with optional sections: each is read when the text has it, skipped when not
  ["to_timestamp('2016-12-31 00:12:00.123456', 'yyyy-MM-dd HH:mm:ss[.SSSSSS]')", (Date.UTC(2016, 11, 31, 0, 12, 0) * 1000 + 123_456) / 1000],
  ["to_timestamp('2016-12-31 00:12:00', 'yyyy-MM-dd HH:mm:ss[.SSSSSS]')", Date.UTC(2016, 11, 31, 0, 12)],
  ["to_timestamp('2016-12-31', 'yyyy-MM-dd[ HH:mm[:ss]]')", Date.UTC(2016, 11, 31)],
  ["to_timestamp('2016-12-31 05:06', 'yyyy-MM-dd[ HH:mm[:ss]]')", Date.UTC(2016, 11, 31, 5, 6)],
  ["to_timestamp('2016-12-31 05:06:07', 'yyyy-MM-dd[ HH:mm[:ss]]')", Date.UTC(2016, 11, 31, 5, 6, 7)],
  // Spark's stringToTimestamp and stringToDate: a year alone, one-digit fields, a signed year past four digits
  ["CAST('2019' AS TIMESTAMP)", Date.UTC(2019, 0, 1)],
  ["CAST('2019-1-2 3:4:5' AS TIMESTAMP)", Date.UTC(2019, 0, 2, 3, 4, 5)],
  ["CAST(CAST('12345-01-01' AS DATE) AS STRING)", '+12345-01-01'],
  ["CAST(TIMESTAMP '-0001-02-03 04:05:06' AS STRING)", '-0001-02-03 04:05:06'],
  // …and its zones (DateTimeUtilsSuite's forms): an ID after a space or not, a short offset, a region
  ["CAST('2015-03-18 12:03:17.456 UTC' AS TIMESTAMP)", Date.UTC(2015, 2, 18, 12, 3, 17, 456)],
  ["CAST('2015-03-18T12:03:17-1:0' AS TIMESTAMP)", Date.UTC(2015, 2, 18, 13, 3, 17)],
  ["CAST('2015-03-18T12:03:17 GMT+07:30' AS TIMESTAMP)", Date.UTC(2015, 2, 18, 4, 33, 17)],
  ["CAST('2015-03-18T12:03:17.123456 Europe/Moscow' AS TIMESTAMP)", (Date.UTC(2015, 2, 18, 9, 3, 17) * 1000 + 123_456) / 1000],
  ["CAST('2015-03-18T' AS TIMESTAMP)", Date.UTC(2015, 2, 18)],
  ["CAST('2015-02-29 00:00:00Z' AS TIMESTAMP)", null],
  ["CAST('2015-03-18 12:03:17+19:00' AS TIMESTAMP)", null],
  // a field the pattern reads twice, both readings the same (Spark's sql-tests timestamp.sql.out): read once
  ["to_timestamp('123456 2019-10-06 10:11:12.123456', 'SSSSSS yyyy-MM-dd HH:mm:ss.SSSSSS')", (Date.UTC(2019, 9, 6, 10, 11, 12) * 1000 + 123_456) / 1000],
  ["to_timestamp('06 2019-10-06', 'dd yyyy-MM-dd')", Date.UTC(2019, 9, 6)],
  // try_to_timestamp, Spark 3.5's documented examples.
  ["try_to_timestamp('2016-12-31 00:12:00')", Date.UTC(2016, 11, 31, 0, 12)],
  ["try_to_timestamp('2016-12-31', 'yyyy-MM-dd')", Date.UTC(2016, 11, 31)],
  ["try_to_timestamp('foo', 'yyyy-MM-dd')", null],
  ["date_format(TIMESTAMP '2016-12-31 05:06:07', 'yyyy-MM-dd[ HH:mm]')", '2016-12-31 05:06'],
  // from_json options: > SELECT from_json('{"time":"26/08/2015"}', 'time Timestamp', map('timestampFormat', 'dd/MM/yyyy')); {"time":2015-08-26 00:00:00}
  ["from_json('{\"time\":\"26/08/2015\"}', 'time Timestamp', map('timestampFormat', 'dd/MM/yyyy'))", { time: Date.UTC(2015, 7, 26) }],
  ["from_json('{\"d\":\"26/08/2015\"}', 'd DATE', map('dateFormat', 'dd/MM/yyyy')).d", '2015-08-26::DATE'],
  ["from_json('[{\"t\":\"26/08/2015\"}]', 'ARRAY<STRUCT<t: TIMESTAMP>>', map('timestampFormat', 'dd/MM/yyyy'))", [{ t: Date.UTC(2015, 7, 26) }]],
  ["from_json('{\"time\":\"2015-08-26 01:02:03\"}', 'time Timestamp', map('mode', 'PERMISSIVE'))", { time: Date.UTC(2015, 7, 26, 1, 2, 3) }],
];

describe('argument forms Spark accepts', () => {
  for (const [expr, expected] of FORM_EXAMPLES) {
    it(expr, async () => {
      expect(await one(expr)).toEqual(expected);
    });
  }

  it("refuses a string day count that is not an integer, with Spark's SECOND_FUNCTION_ARGUMENT_NOT_INTEGER", () => {
    const col = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: [{ name: 'col', type: 'long' as const }] };
    expect(() => compileStreamingQuery("SELECT date_add('2016-07-30', 'x') AS v FROM src", col)).toThrow(/SECOND_FUNCTION_ARGUMENT_NOT_INTEGER|needs to be an integer/);
    expect(() => compileStreamingQuery("SELECT date_sub('2016-07-30', 1.5) AS v FROM src", col)).toThrow(/requires the \("INT" or "SMALLINT" or "TINYINT"\) type/);
  });

  it('octal escapes in string literals', async () => {
    expect(await one("'\\110\\145'")).toBe('He');
  });

  it('widens nvl of nested types as findWiderTypeForTwo, refuses those that do not widen', async () => {
    expect(await one("nvl(array(1), array('a'))")).toEqual(['1']);
    expect((await failure("nvl(array(1), map('a', 1))")).message).toMatch(/incompatible types: ARRAY<INT>, MAP<STRING, INT>/);
  });
});

describe('datetime patterns: the zone name z, and the patterns Spark 3 refuses', () => {
  it('formats z as the session zone, UTC, and parses a zone name, an offset or a region', async () => {
    expect(await one("date_format(TIMESTAMP '2016-04-08 10:00:00', 'yyyy-MM-dd HH:mm z')")).toBe('2016-04-08 10:00 UTC');
    expect(await one("date_format(TIMESTAMP '2016-04-08 10:00:00', 'zzzz')")).toBe('Coordinated Universal Time');
    expect(await one("to_timestamp('2016-12-31 00:12:00 UTC', 'yyyy-MM-dd HH:mm:ss z')")).toBe(Date.UTC(2016, 11, 31, 0, 12));
    expect(await one("to_timestamp('2016-12-31 00:12:00 PST', 'yyyy-MM-dd HH:mm:ss z')")).toBe(Date.UTC(2016, 11, 31, 8, 12));
    expect(await one("to_timestamp('2016-07-01 00:12:00 America/Los_Angeles', 'yyyy-MM-dd HH:mm:ss z')")).toBe(Date.UTC(2016, 6, 1, 7, 12));
    expect(await one("to_timestamp('2016-12-31 00:12:00 GMT+02:00', 'yyyy-MM-dd HH:mm:ss z')")).toBe(Date.UTC(2016, 11, 30, 22, 12));
    expect(await one("to_timestamp('2016-12-31 00:12:00 Mars/Olympus', 'yyyy-MM-dd HH:mm:ss z')")).toBeNull();
  });

  it("gives Spark's INCONSISTENT_BEHAVIOR_CROSS_VERSION for a pattern Spark 2 took and Spark 3 refuses", async () => {
    for (const [expr, letter] of [
      ["to_timestamp('2020-01-01', 'YYYY-MM-dd')", 'All week-based patterns are unsupported since Spark 3.0, detected: Y'],
      ["date_format(TIMESTAMP '2020-01-01 00:00:00', 'yyyy-ww')", 'detected: w'],
      ["date_format(TIMESTAMP '2020-01-01 00:00:00', 'u')", 'detected: u'],
      ["date_format(TIMESTAMP '2020-01-01 00:00:00', 'MMMMM')", 'Too many pattern letters: M'],
      ["date_format(TIMESTAMP '2020-01-01 00:00:00', 'yyyyyyy')", 'Too many pattern letters: y'],
      // More letters than Java's formatter takes (dd, DDD, HH, a, SSSSSSSSS …).
      ["date_format(TIMESTAMP '2020-01-01 00:00:00', 'ddd')", 'Too many pattern letters: d'],
      ["date_format(TIMESTAMP '2020-01-01 00:00:00', 'hh:mm aa')", 'Too many pattern letters: a'],
    ]) {
      const e = await failure(expr);
      expect(e.message, expr).toContain("[INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_PATTERN_RECOGNITION] You may get a different result due to the upgrading to Spark >= 3.0: Fail to recognize");
      expect(e.message, expr).toContain(letter);
    }
    // Letters Spark 2 did not take either: Spark's own message, no upgrade note.
    const e = await failure("date_format(TIMESTAMP '2020-01-01 00:00:00', 'yyyy-ee')");
    expect(e.message).toContain('All week-based patterns are unsupported since Spark 3.0, detected: e');
    expect(e.message).not.toContain('INCONSISTENT_BEHAVIOR_CROSS_VERSION');
    // Nor more than three X (SimpleDateFormat's most).
    expect((await failure("date_format(TIMESTAMP '2020-01-01 00:00:00', 'XXXXXX')")).message).not.toContain('INCONSISTENT_BEHAVIOR_CROSS_VERSION');
  });

  it("gives Spark's PARSE_DATETIME_BY_NEW_PARSER for text Spark 2's parser read and Spark 3's does not", async () => {
    for (const [fn, text, pattern] of [
      // Fewer digits than the field's letters, and text left after the pattern: SimpleDateFormat read both.
      ['to_timestamp', '2020-1-5', 'yyyy-MM-dd'],
      ['to_timestamp', '2016-12-31 00:12:00', 'yyyy-MM-dd'],
      ['to_date', '2020-01-5', 'yyyy-MM-dd'],
      ['unix_timestamp', '2020-01-01 1:02:03', 'yyyy-MM-dd HH:mm:ss'],
      ['to_unix_timestamp', '2020-01-01 01:02:03 PST', 'yyyy-MM-dd HH:mm:ss'],
      ['to_timestamp_ntz', '2020-1-01', 'yyyy-MM-dd'],
    ]) {
      const e = await failure(`${fn}('${text}', '${pattern}')`);
      expect(e.message, fn).toContain(`${fn}(): [INCONSISTENT_BEHAVIOR_CROSS_VERSION.PARSE_DATETIME_BY_NEW_PARSER] You may get a different result due to the upgrading to Spark >= 3.0: Fail to parse '${text}' in the new parser.`);
    }
    // Text neither parser reads is NULL, as in Spark; text the new parser reads is unchanged.
    expect(await one("to_timestamp('2020-xx-01', 'yyyy-MM-dd')")).toBeNull();
    expect(await one("to_date('not a date', 'yyyy-MM-dd')")).toBeNull();
    expect(await one("to_timestamp('2020-01-05', 'yyyy-MM-dd')")).toBe(Date.UTC(2020, 0, 5));
    expect(await one("to_timestamp('2020-1-5', 'yyyy-M-d')")).toBe(Date.UTC(2020, 0, 5));
  });
});

describe('convert_timezone (Spark 3.4), a TIMESTAMP_NTZ', () => {
  it("> SELECT convert_timezone('Europe/Brussels', 'America/Los_Angeles', timestamp_ntz'2021-12-06 00:00:00'); 2021-12-05 15:00:00", async () => {
    expect(await one("CAST(convert_timezone('Europe/Brussels', 'America/Los_Angeles', timestamp_ntz'2021-12-06 00:00:00') AS STRING)")).toBe('2021-12-05 15:00:00');
    expect(await one("typeof(convert_timezone('Europe/Brussels', 'America/Los_Angeles', timestamp_ntz'2021-12-06 00:00:00'))")).toBe('timestamp_ntz');
  });

  it('without a source zone reads the time in the session zone, UTC here (Spark\'s example assumes Los Angeles)', async () => {
    expect(await one("CAST(convert_timezone('Europe/Brussels', timestamp_ntz'2021-12-05 15:00:00') AS STRING)")).toBe('2021-12-05 16:00:00');
    // Summer time: Brussels is UTC+2; a string, a TIMESTAMP or a DATE is taken as its wall-clock time.
    expect(await one("CAST(convert_timezone('+09:00', 'Europe/Brussels', '2021-07-01 09:00:00') AS STRING)")).toBe('2021-07-01 02:00:00');
    expect(await one("CAST(convert_timezone('UTC', 'Asia/Seoul', DATE'2021-07-01') AS STRING)")).toBe('2021-07-01 09:00:00');
    expect(await one("convert_timezone('UTC', 'Asia/Seoul', CAST(NULL AS TIMESTAMP))")).toBeNull();
  });

  it('refuses an unknown zone and a non-timestamp', async () => {
    expect((await failure("convert_timezone('Nowhere/X', 'UTC', timestamp_ntz'2021-01-01 00:00:00')")).message).toMatch(/the time zone 'Nowhere\/X' is not known/);
    expect((await failure("convert_timezone('UTC', 1)")).message).toMatch(/expects/);
  });
});
