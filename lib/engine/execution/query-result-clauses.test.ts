/**
 * What Spark does with DISTRIBUTE BY, SORT BY, CLUSTER BY and the WINDOW clause on a stream,
 * through the engine: run where Spark runs them, refused with Spark's error class and message
 * where Spark refuses them (its AstBuilder.withQueryResultClauses and withWindowClause, the
 * analyzer's WindowsSubstitution, the UnsupportedOperationChecker's sorting rule).
 */
import { describe, expect, it } from 'vitest';
import { courseEvents } from './testing/course-events';

const { run, errorOf } = courseEvents('clauses');
const SORTING = '[_LEGACY_ERROR_TEMP_3102] Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode';

describe('DISTRIBUTE BY, SORT BY, CLUSTER BY', () => {
  it('DISTRIBUTE BY leaves the rows as they are; its expressions must resolve over the output', async () => {
    expect((await run('SELECT course, y2012 FROM events DISTRIBUTE BY course, upper(course)')).flat()).toEqual(['dotNET:15000', 'Java:20000', 'Java:5']);
    expect(errorOf('SELECT course FROM events DISTRIBUTE BY y2012')).toMatch(/^\[UNRESOLVED_COLUMN.WITH_SUGGESTION\] A column, variable, or function parameter with name `y2012` cannot be resolved/);
  });

  it('SORT BY and CLUSTER BY sort: refused on a stream unless over an aggregation in Complete mode', async () => {
    expect(errorOf('SELECT course FROM events SORT BY course')).toBe(SORTING);
    expect(errorOf('SELECT course FROM events CLUSTER BY course')).toBe(SORTING);
    expect(errorOf('SELECT course, count(*) AS n FROM events GROUP BY course SORT BY n', 'update')).toBe(SORTING);
    const batches = await run('SELECT course, sum(y2012) AS total FROM events GROUP BY course DISTRIBUTE BY course SORT BY total DESC', 'complete');
    expect(batches.at(-1)).toEqual(['Java:20005', 'dotNET:15000']);
    expect((await run('SELECT course, count(*) AS n FROM events GROUP BY course CLUSTER BY course', 'complete')).at(-1)).toEqual(['Java:2', 'dotNET:1']);
  });

  it('ORDER BY with SORT BY, or CLUSTER BY with DISTRIBUTE BY, is a parse error', () => {
    const combination = '[_LEGACY_ERROR_TEMP_0011] Combination of ORDER BY/SORT BY/DISTRIBUTE BY/CLUSTER BY is not supported.';
    expect(errorOf('SELECT course, count(*) AS n FROM events GROUP BY course ORDER BY n SORT BY n', 'complete')).toMatch(combination);
    expect(errorOf('SELECT course FROM events CLUSTER BY course DISTRIBUTE BY course')).toMatch(combination);
  });
});

describe('the WINDOW clause', () => {
  it('a window function over a named window is refused as one over its definition', () => {
    const refusal = (column: string) => `[NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING] Window function is not supported in SUM() (as column \`${column}\`) on streaming DataFrames/Datasets. ` +
      'Structured Streaming only supports time-window aggregation using the WINDOW function. (window specification: (PARTITION BY course ORDER BY y2012))';
    expect(errorOf('SELECT course, sum(y2012) OVER w AS total FROM events WINDOW w AS (PARTITION BY course ORDER BY y2012)')).toContain(refusal('total'));
    expect(errorOf('SELECT course, sum(y2012) OVER w2 FROM events WINDOW w1 AS (PARTITION BY course ORDER BY y2012), w2 AS w1')).toContain(refusal('sum(y2012) OVER w2'));
    expect(errorOf('SELECT course, sum(y2012) OVER w FROM events WINDOW w AS (PARTITION BY course ORDER BY y2012) ORDER BY course', 'complete')).toContain(refusal('sum(y2012) OVER w'));
  });

  it('names no WINDOW clause defines, defined twice, or a reference to a reference: Spark errors', () => {
    expect(errorOf('SELECT sum(y2012) OVER x FROM events WINDOW w AS (PARTITION BY course)')).toMatch(/^\[MISSING_WINDOW_SPECIFICATION\] Window specification x is not defined in the WINDOW clause for x\./);
    expect(errorOf('SELECT sum(y2012) OVER x FROM events')).toMatch(/^\[MISSING_WINDOW_SPECIFICATION\]/);
    expect(errorOf('SELECT sum(y2012) OVER w FROM events WINDOW w AS (PARTITION BY course), w AS (PARTITION BY s)')).toMatch(/^\[INVALID_SQL_SYNTAX.REPETITIVE_WINDOW_DEFINITION\] Invalid SQL syntax: The definition of window `w` is repetitive\./);
    expect(errorOf('SELECT sum(y2012) OVER w3 FROM events WINDOW w1 AS (PARTITION BY course), w2 AS w1, w3 AS w2')).toMatch(/^\[INVALID_SQL_SYNTAX.INVALID_WINDOW_REFERENCE\] Invalid SQL syntax: Window reference `w2` is not a window specification\./);
    expect(errorOf('SELECT sum(y2012) OVER w2 FROM events WINDOW w2 AS w9')).toMatch(/^\[INVALID_SQL_SYNTAX.UNRESOLVED_WINDOW_REFERENCE\] Invalid SQL syntax: Cannot resolve window reference `w9`\./);
  });

  it('a WINDOW clause no window function uses changes nothing', async () => {
    expect((await run('SELECT course FROM events WINDOW w AS (PARTITION BY course)')).flat()).toEqual(['dotNET', 'Java', 'Java']);
  });
});
