/**
 * Spark's SupportsOrderingWithinGroup: the functions that take WITHIN GROUP, and the error after
 * any other function. Apart from the aggregate functions so that the expression builder, which
 * the aggregate functions' modules read, can tell them apart.
 */
import type { SqlPosition } from './expression';
import { SqlValidationError } from './sql-error';

/** Spark 4's ListAgg and its synonym, whose WITHIN GROUP is optional. */
export const LIST_AGG_NAMES: readonly string[] = ['listagg', 'string_agg'];

/**
 * The functions that take WITHIN GROUP, written `percentile_cont(p) WITHIN GROUP (ORDER BY x
 * [DESC])` and `mode() WITHIN GROUP (ORDER BY x [DESC])`: the aggregation resolves them as Spark's
 * PercentileCont and PercentileDisc, (x, p, reverse), and Mode, (x, true, reverse); and
 * `listagg(x[, d]) WITHIN GROUP (ORDER BY k, …)` as its ListAgg, (x, d, orderings, k, …)
 * (aggregate-planner.ts withinGroup).
 */
export const WITHIN_GROUP_NAMES: readonly string[] = ['percentile_cont', 'percentile_disc', 'mode', ...LIST_AGG_NAMES];

/** Spark's INVALID_SQL_SYNTAX.FUNCTION_WITH_UNSUPPORTED_SYNTAX: a clause the function does not take. */
export function unsupportedSyntax(name: string, syntax: string, pos: SqlPosition | undefined): SqlValidationError {
  return new SqlValidationError(
    `[INVALID_SQL_SYNTAX.FUNCTION_WITH_UNSUPPORTED_SYNTAX] Invalid SQL syntax: The function \`${name}\` does not support ${syntax}. Remove it`,
    pos, name, 'INVALID_SQL_SYNTAX.FUNCTION_WITH_UNSUPPORTED_SYNTAX',
  );
}
