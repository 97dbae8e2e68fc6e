/**
 * Test support: the SqlValidationError that compiling `SELECT <expr> AS v FROM src` over a stream
 * raises, for the function tests that check a refusal's text (an invalid literal argument, a path
 * or schema that does not parse). Fails the test when the query compiles. And the WeirError a
 * run of a query fails with (a record the function cannot read in FAILFAST mode).
 */
import { WeirError } from '../../errors';
import type { StreamingRelation } from '../logical-plan';
import { SqlValidationError } from '../sql-error';
import { compileStreamingQuery } from '../streaming-query';

export function selectRefusal(expr: string, rel: StreamingRelation): SqlValidationError {
  try {
    compileStreamingQuery(`SELECT ${expr} AS v FROM src`, rel);
  } catch (e) {
    if (e instanceof SqlValidationError) return e;
    throw e;
  }
  throw new Error(`expected ${expr} to fail`);
}

/** The WeirError `p` rejects with; fails the test when it resolves. */
export async function failure(p: Promise<unknown>): Promise<WeirError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof WeirError) return e;
    throw e;
  }
  throw new Error('expected a failure');
}
