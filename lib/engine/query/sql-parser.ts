/**
 * Parses a query's SQL with node-sql-parser (PostgreSQL dialect, with source locations) into
 * its SELECT AST. Syntax errors become SqlValidationError with line/column and the text found.
 */
import pkg from 'node-sql-parser';
import type { SqlNode } from './expression-builder';
import { SqlValidationError } from './sql-error';

const { Parser } = pkg as unknown as { Parser: new () => { astify(sql: string, opt: object): unknown } };
const parser = new Parser();

export function parseSelect(sql: string): SqlNode {
  let ast: unknown;
  try {
    ast = parser.astify(sql, { database: 'PostgreSQL', parseOptions: { includeLocations: true } });
  } catch (e) {
    const err = e as { location?: { start?: { line: number; column: number } }; found?: string | null; message?: string };
    const pos = err.location?.start ? { line: err.location.start.line, column: err.location.start.column } : undefined;
    if (!pos) throw new SqlValidationError(`SQL syntax error: ${err.message ?? String(e)}`);
    const found = err.found === null || err.found === undefined ? 'end of input' : `"${err.found}"`;
    throw new SqlValidationError(`SQL syntax error: unexpected ${found}`, pos, 'syntax');
  }
  const statements = (Array.isArray(ast) ? ast : [ast]) as SqlNode[];
  if (statements.length !== 1) throw new SqlValidationError(`Expected exactly one SELECT statement, found ${statements.length}`, undefined, 'statements');
  const stmt = statements[0];
  if (stmt.type !== 'select') {
    throw new SqlValidationError(`Only SELECT queries can run as streams, found ${String(stmt.type).toUpperCase()}`, { line: 1, column: 1 }, String(stmt.type));
  }
  return stmt;
}
