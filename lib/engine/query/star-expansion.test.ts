/**
 * A star inside an expression, as Spark's ResolveReferences expands one (expandStarExpression):
 * in a function's arguments and in IN's list, in the select list and in WHERE (a Filter's
 * condition); anywhere else it is refused (INVALID_USAGE_OF_STAR_OR_REGEX).
 */
import { describe, expect, it } from 'vitest';
import type { Schema } from '../types';
import { eventsQuery } from './testing/events-query';
import { weirAnswer } from './testing/spark-golden-file';

const INT = { type: 'long', integral: 32 } as const;
const SCHEMA: Schema = [{ name: 'c1', ...INT }, { name: 'c2', ...INT }, { name: 'c3', ...INT }];
const { run } = eventsQuery(SCHEMA);
const ROWS = [{ c1: 1, c2: 2, c3: null }, { c1: null, c2: 4, c3: 5 }];

describe('a star in IN\'s list and in WHERE\'s calls', () => {
  it('reads IN (*) as IN of the columns, in the select list', async () => {
    expect(await run('SELECT 2 IN (*) AS two, 5 IN (events.*) AS five FROM events', ROWS)).toEqual([{ two: true, five: null }, { two: null, five: true }]);
  });

  it('expands a star in WHERE\'s calls and IN lists', async () => {
    expect(await run('SELECT c2 FROM events WHERE coalesce(*) = 1', ROWS)).toEqual([{ c2: 2 }]);
    expect(await run('SELECT c2 FROM events WHERE 5 IN (*)', ROWS)).toEqual([{ c2: 4 }]);
    expect(await run('SELECT c2 FROM events WHERE array(*) = array(1, 2, NULL)', ROWS)).toEqual([{ c2: 2 }]);
  });

  it('refuses a star that is an operand, not an argument (INVALID_USAGE_OF_STAR_OR_REGEX)', async () => {
    await expect(run('SELECT c2 FROM events WHERE * = 1', ROWS)).rejects.toMatchObject({ errorClass: 'INVALID_USAGE_OF_STAR_OR_REGEX' });
  });

  it('refuses a star in ORDER BY\'s or HAVING\'s calls, which Spark leaves unexpanded; an aggregate\'s in the select list is expanded', async () => {
    const refused = { errorClass: 'INVALID_USAGE_OF_STAR_OR_REGEX' };
    await expect(run('SELECT c2, count(*) AS n FROM events GROUP BY c2 ORDER BY coalesce(*)', ROWS)).rejects.toMatchObject(refused);
    await expect(run('SELECT max(c1) AS m FROM events HAVING max(coalesce(*)) = 1', ROWS)).rejects.toMatchObject(refused);
    await expect(run('SELECT c2 FROM events GROUP BY c2 HAVING 4 IN (*)', ROWS)).rejects.toMatchObject(refused);
    // count(*) is count(1), no star; coalesce(1, 2, NULL) is 1, coalesce(NULL, 4, 5) is 4.
    const batch = await weirAnswer('SELECT max(coalesce(*)) AS m FROM VALUES (1, 2, NULL), (NULL, 4, 5) AS t(c1, c2, c3) HAVING count(*) > 1 ORDER BY count(*)');
    expect(batch.output).toBe('4');
    expect((await weirAnswer('SELECT c1 FROM VALUES (1, 2), (3, 4) AS t(c1, c2) ORDER BY coalesce(*)')).output).toBe('error INVALID_USAGE_OF_STAR_OR_REGEX');
  });
});
