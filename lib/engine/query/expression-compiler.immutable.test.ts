/**
 * Compiling an expression never changes it: the plan it came from is read again (the planner
 * types a projection before it runs it, a preview re-plans), so a compile that rewrote its input
 * (date_trunc lower-casing its unit in place did) would make the second reading differ.
 */
import { describe, expect, it } from 'vitest';
import type { Schema } from '../types';
import { ExpressionBuilder } from './expression-builder';
import { compileExpression } from './expression-compiler';
import { parseExpression } from './parser/ast-builder';

const SCHEMA: Schema = [{ name: 'ts', type: 'timestamp' }, { name: 'n', type: 'long' }, { name: 's', type: 'string' }];

describe('the expression compiler', () => {
  it('leaves the expression it compiles as it was', () => {
    for (const text of [
      "date_trunc('YEAR', ts)", "date_part('HOUR', ts)", 'extract(MINUTE FROM ts)', "date_trunc('Month', '2015-03-05T09:32:05')",
      'try_add(n, 1)', 'mod(n, 3)', 'negative(n)', "from_json(s, 'a INT').a", "CASE WHEN n > 1 THEN 'x' ELSE s END",
    ]) {
      const expr = new ExpressionBuilder({ qualifiers: new Set(), columns: new Set(SCHEMA.map((f) => f.name)) }, text).build(parseExpression(text));
      const before = structuredClone(expr);
      compileExpression(expr, SCHEMA);
      expect(expr, text).toEqual(before);
    }
  });
});
