/**
 * Test support: the SqlValidationError that compiling `SELECT <expr> AS v FROM src` over a stream
 * raises, for the function tests that check a refusal's text (an invalid literal argument, a path
 * or schema that does not parse). Fails the test when the query compiles.
 */
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
