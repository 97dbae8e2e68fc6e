/**
 * No function file imports another in a cycle, type-only imports included: shared helpers and
 * types live in leaf modules (function-args.ts, function-types.ts). check:circular runs dpdm
 * with -T, which skips type-only imports, so it would not see such a cycle.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = path.dirname(new URL(import.meta.url).pathname);

/** The function files: each Spark group's file (aggregates and generators too) and the shared modules beside them. */
const isFunctionFile = (f: string) => /(^|-)functions\.ts$|^function-[a-z-]+\.ts$|-aggregates\.ts$|^generators\.ts$/.test(f) && !f.endsWith('.test.ts');

/** The function files `file`'s imports (type-only ones too) name in this directory. */
function importsOf(file: string, files: ReadonlySet<string>): string[] {
  const text = readFileSync(path.join(DIR, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+'\.\/([\w-]+)'/gms)) {
    const target = `${m[1]}.ts`;
    if (files.has(target)) out.push(target);
  }
  return out;
}

/** Every cycle found by a depth-first walk, each as the files in its order. */
function cycles(graph: ReadonlyMap<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const g of graph.get(f) ?? []) {
      if (state.get(g) === 'open') found.push([...stack.slice(stack.indexOf(g)), g]);
      else if (!state.has(g)) visit(g);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return found;
}

describe('function files', () => {
  const files = new Set(readdirSync(DIR).filter(isFunctionFile));
  const graph = new Map([...files].map((f) => [f, importsOf(f, files)]));

  it('are found, with their imports of one another', () => {
    expect(files.has('string-functions.ts') && files.has('function-types.ts') && files.has('function-registry.ts')).toBe(true);
    expect(graph.get('function-registry.ts')).toContain('string-functions.ts');
    // A type-only import counts as much as a value import.
    expect(graph.get('aggregate-functions.ts')).toContain('function-types.ts');
  });

  it('import one another in no cycle, type-only imports included', () => {
    expect(cycles(graph).map((c) => c.join(' → '))).toEqual([]);
  });

  it('a cycle is found when there is one', () => {
    expect(cycles(new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts']]]))).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
  });
});
