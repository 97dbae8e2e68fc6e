/**
 * Errors found in a query's SQL: each names the construct and its 1-based line/column, so the
 * editor can underline it and the API can return `{ path: "sql", line, column }`.
 */
import { errorClassNamedIn, ValidationError } from '../errors';
import type { SqlPosition } from './expression';

export class SqlValidationError extends ValidationError {
  readonly line?: number;
  readonly column?: number;
  constructor(message: string, pos?: SqlPosition, readonly construct?: string, errorClass?: string) {
    super(pos ? `${message} (line ${pos.line}, column ${pos.column})` : message, { path: 'sql', ...pos, construct });
    this.line = pos?.line;
    this.column = pos?.column;
    const named = errorClass ?? errorClassNamedIn(message);
    if (named) this.errorClass = named;
  }
}

/** Not supported by this version of Weir yet (as opposed to invalid SQL). */
export function notSupportedYet(construct: string, pos: SqlPosition | undefined, hint?: string): SqlValidationError {
  return new SqlValidationError(
    `${construct} is not supported yet in streaming queries${hint ? `: ${hint}` : ''}. ` +
      'Weir runs projections, WHERE, CTEs and subqueries in FROM, aggregations (GROUP BY, time windows), DISTINCT, ' +
      'ORDER BY/LIMIT where Spark allows them, joins of streams and of a stream with static tables (docs/sql.md); remove it or precompute it upstream.',
    pos,
    construct,
  );
}

export function offsetToPosition(sql: string, offset: number): SqlPosition {
  const before = sql.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return { line, column };
}
