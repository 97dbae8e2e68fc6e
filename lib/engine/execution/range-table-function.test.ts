/**
 * Spark's table-valued function range() (its Range: `range(end)`, `range(start, end[, step[,
 * numSlices]])`, one BIGINT column `id`) and the generators called in FROM (`explode(…) AS t(x)`):
 * static data where an inline table is (a join's static side, IN, a scalar subquery, a CTE, a
 * set operation of static queries), Range's exact ids (a negative step, an empty range, a step
 * that does not divide the span, BIGINT's ends near 2^63), its refusals with Spark's error
 * classes, and its rows generated only in the run, where more than the limit fail it by name.
 */
import { describe, expect, it } from 'vitest';
import { rangeIds } from '../query/generators';
import { eventsQueries } from './testing/events-query';

const { run, outputSchema, errorOf } = eventsQueries('range');
/** The ids of range(args), the arguments as Range reads them (each a BIGINT). */
const ids = (...args: (number | bigint)[]) => rangeIds(args, []).map(String);

describe("range()'s ids (Spark's Range.numElements and RangeExec)", () => {
  it('counts from start to end, exclusive, by step; range(end) from 0', () => {
    expect(ids(3)).toEqual(['0', '1', '2']);
    expect(ids(5, 10)).toEqual(['5', '6', '7', '8', '9']);
    expect(ids(0, 10, 2)).toEqual(['0', '2', '4', '6', '8']);
    expect(ids(0, 10, 1, 200)).toHaveLength(10);
  });

  it('counts down by a negative step; a step that does not divide the span stops before end', () => {
    expect(ids(10, 0, -3)).toEqual(['10', '7', '4', '1']);
    expect(ids(0, 10, 3)).toEqual(['0', '3', '6', '9']);
    expect(ids(-5, -12, -2)).toEqual(['-5', '-7', '-9', '-11']);
  });

  it('is empty where end is not beyond start in the step\'s direction', () => {
    expect(ids(5, 0)).toEqual([]);
    expect(ids(0, 5, -1)).toEqual([]);
    expect(ids(3, 3)).toEqual([]);
    expect(ids(0)).toEqual([]);
    expect(ids(-4)).toEqual([]);
  });

  it("is exact at BIGINT's ends: no id overflows, each past 2^53 a bigint", () => {
    expect(ids(9223372036854775805n, 9223372036854775807n)).toEqual(['9223372036854775805', '9223372036854775806']);
    expect(ids(-9223372036854775808n, 9223372036854775807n, 9223372036854775807n)).toEqual(['-9223372036854775808', '-1', '9223372036854775806']);
    expect(ids(9223372036854775807n, -9223372036854775808n, -9223372036854775808n)).toEqual(['9223372036854775807', '-1']);
    expect(rangeIds([2 ** 53 - 1, 2 ** 53 + 2], []).map((v) => typeof v)).toEqual(['number', 'bigint', 'bigint']);
  });

  it('fails on a step of 0 or a NULL argument with Spark\'s classes, and over its limit by name', () => {
    expect(() => rangeIds([0, 5, 0], [])).toThrow(expect.objectContaining({ errorClass: 'FAILED_FUNCTION_CALL' }));
    expect(() => rangeIds([1, null], [{ kind: 'literal', value: null, type: 'null' }, { kind: 'literal', value: null, type: 'null' }])).toThrow(expect.objectContaining({ errorClass: 'UNEXPECTED_INPUT_TYPE' }));
    expect(() => rangeIds([9223372036854775807n], [])).toThrow(/9,223,372,036,854,775,807 rows, over the limit of 1,048,576 rows a range\(\) generates/);
  });
});

describe('range() beside a stream', () => {
  it('joins as a static table, its column id or the alias list\'s name', async () => {
    expect(await run('SELECT e.id, r.id AS rid FROM events e JOIN range(1, 3) AS r ON r.id = e.k')).toEqual(['1:1', '2:2']);
    expect(await run('SELECT e.id, x FROM events e JOIN range(1, 3) AS r(x) ON r.x = e.k')).toEqual(['1:1', '2:2']);
    expect(await run('SELECT e.id FROM events e, range(6 + cos(3)) r WHERE r.id = e.k')).toEqual(['1', '2', '3']);
  });

  it('is read by IN, NOT IN and a scalar subquery, in a CTE and in a set operation', async () => {
    expect(await run('SELECT id FROM events WHERE k IN (SELECT id FROM range(2, 10, 2))')).toEqual(['2']);
    expect(await run('SELECT id FROM events WHERE k NOT IN (SELECT id FROM range(2, 10, 2))')).toEqual(['1', '3']);
    expect(await run('SELECT id, (SELECT max(id) FROM range(5)) AS m FROM events WHERE k = 1')).toEqual(['1:4']);
    expect(await run('WITH r AS (SELECT id AS rid FROM range(3)) SELECT e.id FROM events e JOIN r ON r.rid = e.k')).toEqual(['1', '2']);
    expect(await run('SELECT e.id FROM events e JOIN (SELECT id FROM range(1) UNION ALL SELECT id FROM range(3, 4)) r ON r.id = e.k')).toEqual(['3']);
  });

  it("types id a BIGINT (Range's output)", () => {
    expect(outputSchema('SELECT r.id AS rid FROM events e JOIN range(3) r ON r.id = e.k')).toEqual(['rid long']);
  });

  it('alone is no streaming query, and says how to read it', () => {
    expect(errorOf('SELECT * FROM range(3)')).toMatch(/FROM range\(3\): a table-valued function's rows are static data, which a streaming query reads by joining them with a stream \(FROM events JOIN range\(3\) AS t ON …\)/);
  });

  it("refuses what Spark's Range refuses, with its error classes", () => {
    const join = (call: string) => errorOf(`SELECT e.id FROM events e JOIN ${call} ON r.id = e.k`);
    expect(join('range(1, 1, 1, 1, 1) r')).toMatch(/^\[WRONG_NUM_ARGS.WITHOUT_SUGGESTION\] The `range` requires \[1, 2, 3, 4\] parameters but the actual number is 5/);
    expect(join('range(1, null) r')).toMatch(/^\[UNEXPECTED_INPUT_TYPE\] Parameter 2 of function `range` requires the "BIGINT" type, however "NULL" has the type "VOID"/);
    expect(join('range(array(1, 2, 3)) r')).toMatch(/^\[UNEXPECTED_INPUT_TYPE\] Parameter 2 of function `range` requires the "BIGINT" type, however .* has the type "ARRAY<INT>"/);
    expect(join('range(0, 5, true) r')).toMatch(/^\[UNEXPECTED_INPUT_TYPE\] Parameter 3 of function `range`/);
    expect(join('range(0, 5, 0) r')).toMatch(/^\[FAILED_FUNCTION_CALL\] Failed preparing of the function `range` for call/);
    expect(join('range(0, 5, -0.5) r')).toMatch(/^\[FAILED_FUNCTION_CALL\]/);
    expect(join('range(0, rand()) r')).toMatch(/^\[NON_FOLDABLE_ARGUMENT\] The function `range` requires the parameter `end` to be a foldable expression of the type "BIGINT"/);
    expect(join('range(0, (SELECT 1)) r')).toMatch(/^\[NON_FOLDABLE_ARGUMENT\]/);
    expect(join('range(3) r(a, b)')).toMatch(/^\[NUM_TABLE_VALUE_ALIASES_MISMATCH\] Number of given aliases does not match number of output columns. Function name: `range`; number of aliases: 2; number of output columns: 1/);
    expect(join('dummy(3) r')).toMatch(/^\[UNRESOLVABLE_TABLE_VALUED_FUNCTION\] Could not resolve `dummy` to a table-valued function/);
    // Not a function of the select list (Spark: UNRESOLVED_ROUTINE).
    expect(errorOf('SELECT range(3) FROM events')).toMatch(/^\[UNRESOLVED_ROUTINE\]/);
  });

  it('is not generated while the query is validated: a range too large fails the run, naming the limit', async () => {
    const sql = 'SELECT e.id FROM events e JOIN range(9223372036854775807) r ON r.id = e.k';
    // Validation generates no row: the limit is met only by the run.
    expect(errorOf(sql)).toBe('');
    await expect(run(sql)).rejects.toThrow(/range\(0, 9223372036854775807, 1\) has 9,223,372,036,854,775,807 rows, over the limit of 1,048,576 rows/);
  });
});

describe('generators called in FROM', () => {
  it('are static data as range() is, named by the alias list', async () => {
    expect(await run('SELECT e.id, t.v FROM events e JOIN explode(array(1, 3)) t(v) ON t.v = e.k')).toEqual(['1:1', '3:3']);
    expect(await run("SELECT e.id, t.pos, t.c FROM events e JOIN posexplode(array('a', 'b')) t(pos, c) ON t.pos = e.k")).toEqual(['1:1:b']);
    expect(errorOf('SELECT e.id FROM events e JOIN explode(array(1)) t(a, b) ON t.a = e.k')).toMatch(/^\[NUM_TABLE_VALUE_ALIASES_MISMATCH\]/);
  });
});
