/**
 * outputSchema (the logical plan's own typing, resolved-plan.ts) against the physical planner's
 * answer, node by node: for every node of every plan compiled from the corpus, both as written
 * and optimized, the columns outputSchema gives must be the ones planPhysical gives for that
 * node (names, types, nullability, nested fields, watermark metadata), strictly equal.
 *
 * The corpus (testing/plan-output-corpus.json) is every compileStreamingQuery call the engine's
 * unit tests (lib/engine) made, SQL, sources and options, recorded once, deduplicated, and kept
 * when it compiles (a test of an error has no plan to compare) and is under 20,000 characters
 * (sql-limits.test.ts's giant queries).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StaticTableSpec } from '../operators/stream-static-join';
import type { OutputMode } from '../types';
import { exprToString } from './expression';
import { compileExpression } from './expression-compiler';
import { children, type LogicalPlan, type StreamingRelation } from './logical-plan';
import { outputSchema } from './resolved-plan';
import { buildLogicalPlan } from './query-planner';
import { StatefulPlanner, withDeduplication } from './stateful-planner';
import { compileStreamingQuery, planPhysical, type CompileOptions } from './streaming-query';

interface CorpusEntry {
  sql: string;
  relations: StreamingRelation[];
  opts: CompileOptions & { staticTables?: StaticTableSpec[] };
}

/** The file lists each source and option set once; a query names its own by index. */
function readCorpus(): CorpusEntry[] {
  const file: { relations: StreamingRelation[]; options: CorpusEntry['opts'][]; queries: [string, number[], number][] } =
    JSON.parse(readFileSync(path.join(__dirname, 'testing/plan-output-corpus.json'), 'utf8'));
  return file.queries.map(([sql, relations, opts]) => ({ sql, relations: relations.map((i) => file.relations[i]), opts: file.options[opts] }));
}

const corpus = readCorpus();

function nodes(plan: LogicalPlan, out: LogicalPlan[] = []): LogicalPlan[] {
  out.push(plan);
  for (const c of children(plan)) nodes(c, out);
  return out;
}

/** A deep copy, to check that outputSchema leaves its input as it found it. */
const snapshot = (p: LogicalPlan) => JSON.stringify(p, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

/** Compares every node of the corpus's plans; the differences, and the counts. */
function differential(entries: readonly CorpusEntry[]) {
  const differences: string[] = [];
  let compiled = 0, refused = 0, compared = 0, typed = 0;
  for (const { sql, relations, opts } of entries) {
    let plans: LogicalPlan[];
    try {
      const q = compileStreamingQuery(sql, relations, opts);
      plans = [withDeduplication(buildLogicalPlan(sql, relations, opts.staticTables), opts.dedup), q.plan];
      compiled++;
    } catch {
      refused++;
      continue;
    }
    // The optimized plan keeps the analysis's types: each a Filter's or Project's expression
    // carries is the one the compiler gives it over the node's input.
    for (const node of nodes(plans[1])) {
      if (node.kind !== 'Filter' && node.kind !== 'Project') continue;
      const input = outputSchema(node.child);
      for (const e of node.kind === 'Filter' ? [node.condition] : node.list.map((n) => n.expr)) {
        if (!e.dataType) continue;
        typed++;
        const { eval: _eval, ...type } = compileExpression(e, input);
        try {
          expect(e.dataType).toEqual(type);
        } catch {
          differences.push(`${sql}\n  ${node.kind} ${exprToString(e)}: carries ${JSON.stringify(e.dataType)}, compiles to ${JSON.stringify(type)}`);
        }
      }
    }
    const mode: OutputMode = opts.outputMode ?? 'append';
    // The stateful operators' watermark as compileStreamingQuery takes it.
    const relation = relations.find((r) => r.eventTime !== undefined) ?? relations[0];
    for (const plan of plans) {
      for (const node of nodes(plan)) {
        // A static table is read by its join's operator, never planned on its own.
        if (node.kind === 'StaticRelation') continue;
        const physical = planPhysical(node, [], new StatefulPlanner(mode, relation, relations.length > 1));
        const before = snapshot(node);
        const logical = outputSchema(node);
        compared++;
        if (snapshot(node) !== before) differences.push(`${sql}\n  ${node.kind}: outputSchema changed its input`);
        try {
          expect(logical).toStrictEqual(physical);
        } catch {
          differences.push(`${sql}\n  ${node.kind}:\n    outputSchema ${JSON.stringify(logical)}\n    planPhysical ${JSON.stringify(physical)}`);
        }
      }
    }
  }
  return { differences, compiled, refused, compared, typed };
}

describe('outputSchema against the physical planner', () => {
  it('gives every node of every corpus plan the physical planner\'s columns, and every typed expression the compiler\'s type', () => {
    const r = differential(corpus);
    expect(r.differences).toEqual([]);
    expect(r.refused).toBe(0);
    expect(r.compiled).toBe(corpus.length);
    expect(r.compared).toBeGreaterThan(10_000);
    expect(r.typed).toBeGreaterThan(5_000);
  }, 120_000);
});
