/**
 * The editor's function list is what the engine runs: every function it offers compiles as a
 * call (an argument of the wrong type may be refused, an unknown name never is), and Spark's
 * signatures read as their arities say.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WeirError } from '../errors';
import { sqlFunctionCatalog } from './function-catalog';
import { compileStreamingQuery } from './streaming-query';

const rel = {
  kind: 'StreamingRelation' as const,
  sourceName: 'src',
  schema: [{ name: 's', type: 'string' as const }, { name: 'n', type: 'long' as const }, { name: 'ts', type: 'timestamp' as const }],
};

describe('sqlFunctionCatalog', () => {
  it('writes each signature from the arity', () => {
    const byName = new Map(sqlFunctionCatalog().map((f) => [f.name, f.signature]));
    expect(byName.get('upper')).toBe('upper(expr)');
    expect(byName.get('substr')).toBe('substr(expr1, expr2[, expr3])');
    expect(byName.get('current_timestamp')).toBe('current_timestamp()');
    expect(byName.get('concat')).toMatch(/^concat\((expr, …|expr1, …)\)$/);
    expect(byName.get('array')).toBe('array(expr, …)');
    expect(byName.get('window')).toBe('window(expr1, expr2[, expr3, expr4])');
    expect(byName.has('json_tuple_item')).toBe(false);
    // Higher-order functions: their arguments as Spark's reference names them.
    expect(byName.get('transform')).toBe('transform(expr, func)');
    expect(byName.get('aggregate')).toBe('aggregate(expr, start, merge[, finish])');
    expect(byName.get('array_sort')).toBe('array_sort(expr[, func])');
    expect(byName.get('map_zip_with')).toBe('map_zip_with(map1, map2, function)');
  });

  it('offers only functions the compiler knows', () => {
    for (const f of sqlFunctionCatalog()) {
      if (f.kind !== 'scalar' || f.name === 'window' || f.name === 'session_window') continue;
      const args = Array.from({ length: argCount(f.signature) }, () => 's');
      try {
        compileStreamingQuery(`SELECT ${f.name}(${args.join(', ')}) AS v FROM src`, rel);
      } catch (e) {
        expect(e, f.name).toBeInstanceOf(WeirError);
        expect((e as Error).message, f.name).not.toMatch(/Cannot resolve routine/);
      }
    }
  });

  it('offers every aggregate with its arity, each resolving as an aggregate, each documented in docs/sql.md', () => {
    const byName = new Map(sqlFunctionCatalog().map((f) => [f.name, f]));
    expect(byName.get('stddev')).toEqual({ name: 'stddev', signature: 'stddev(expr)', kind: 'aggregate' });
    expect(byName.get('corr')?.signature).toBe('corr(expr1, expr2)');
    expect(byName.get('first')?.signature).toBe('first(expr1[, expr2])');
    expect(byName.get('percentile_approx')?.signature).toBe('percentile_approx(expr1, expr2[, expr3])');
    const docs = readFileSync(path.join(import.meta.dirname, '../../../docs/sql.md'), 'utf8');
    const section = docs.slice(docs.indexOf('### Aggregate functions'), docs.indexOf('### Refused in streaming'));
    for (const f of sqlFunctionCatalog()) {
      if (f.kind !== 'aggregate') continue;
      expect(section, f.name).toContain(`\`${f.name}(`);
      const args = Array.from({ length: argCount(f.signature) }, () => 'n');
      try {
        compileStreamingQuery(`SELECT s, ${f.name}(${args.join(', ')}) AS v FROM src GROUP BY s`, rel, { outputMode: 'complete' });
      } catch (e) {
        // A wrong argument type may be refused; an unknown or ungrouped name never is.
        expect(e, f.name).toBeInstanceOf(WeirError);
        expect((e as Error).message, f.name).not.toMatch(/Cannot resolve routine|neither present in the group by/);
      }
    }
  });
});

/** The number of required arguments a signature shows. */
function argCount(signature: string): number {
  const inner = signature.slice(signature.indexOf('(') + 1, signature.lastIndexOf(')')).split('[')[0];
  return inner.split(',').map((x) => x.trim()).filter((x) => x && x !== '…').length;
}
