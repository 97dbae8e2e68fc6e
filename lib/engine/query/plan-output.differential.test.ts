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
import type { TypeInfo } from './data-types';
import { exprChildren, exprToString, type Expr } from './expression';
import { compileExpression, type ImplicitCasts } from './expression-compiler';
import { children, isStreamStreamJoin, type LogicalPlan, type StreamingRelation } from './logical-plan';
import { outputSchema } from './resolved-plan';
import { buildLogicalPlan } from './query-planner';
import { isCountStar, StatefulPlanner, withDeduplication } from './stateful-planner';
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

/** `e` and every subexpression below it. */
const subtree = (e: Expr): Expr[] => [e, ...exprChildren(e).flatMap(subtree)];

/**
 * The expressions a node holds that must carry their types. A stream-static join's ON is read as
 * its key pairs (StaticRelation.keys), its text kept for the explain: its two sides may name one
 * column, so it is typed by the pairs, not on its own.
 */
function heldExpressions(node: LogicalPlan): Expr[] {
  switch (node.kind) {
    case 'Filter': return [node.condition];
    case 'Project': return node.list.map((n) => n.expr);
    case 'Generate': return node.generator.args;
    case 'Expand': return node.groupBy;
    case 'Aggregate': return [...node.groupBy, ...node.aggregates.map((a) => a.expr)];
    case 'Join': return node.condition && isStreamStreamJoin(node) ? [node.condition] : [];
    case 'Sort': return node.order.map((o) => o.expr);
    case 'Window': return [...node.partitionSpec, ...node.orderSpec.map((o) => o.expr), ...node.functions.flatMap((f) => f.args.filter((a) => !(a.kind === 'literal' && a.value === '*')))];
    case 'Deduplicate': case 'Limit': case 'Offset': case 'StaticRelation': case 'StreamingRelation': case 'Union':
    default: return [];
  }
}

/** Compares every node of the corpus's plans; the differences, and the counts. */
function differential(entries: readonly CorpusEntry[]) {
  const differences: string[] = [];
  const untyped: string[] = [];
  const castsAgain: string[] = [];
  let compiled = 0, refused = 0, compared = 0, typed = 0, implicitCasts = 0;
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
    // The optimized plan is typed through and through: every expression a node holds and each of
    // its subexpressions carries its type (but count(*)'s star, no expression, and a lambda, a
    // function's argument rather than a value), what the optimizer made included; in a Filter or
    // Project each is the type the compiler gives it over the node's input.
    for (const node of nodes(plans[1])) {
      for (const e of heldExpressions(node)) {
        for (const x of subtree(e)) {
          if (x.kind === 'cast' && x.implicit) implicitCasts++;
          if (!x.dataType && x.kind !== 'lambda' && !(e.kind === 'call' && isCountStar(e) && x === e.args[0])) untyped.push(`${sql}\n  ${node.kind}: ${exprToString(x)} in ${exprToString(e)}`);
        }
      }
      if (node.kind !== 'Filter' && node.kind !== 'Project') continue;
      const input = outputSchema(node.child);
      for (const e of heldExpressions(node)) {
        const compiledTypes = new Map<Expr, TypeInfo>();
        const casts: ImplicitCasts = new Map();
        compileExpression(e, input, compiledTypes, casts);
        // The analysis wrote each implicit cast into the plan: compiled again, every operand is of
        // the type it is read as, and nothing is converted a second time.
        const nodesOfE = new Set(subtree(e));
        for (const [parent, operands] of casts) {
          if (!nodesOfE.has(parent)) continue;
          for (const [operand, to] of operands) castsAgain.push(`${sql}\n  ${node.kind} ${exprToString(parent)}: ${exprToString(operand)} read as ${JSON.stringify(to)}`);
        }
        for (const x of subtree(e)) {
          const type = compiledTypes.get(x);
          if (!x.dataType || !type) continue;
          typed++;
          try {
            expect(x.dataType).toEqual(type);
          } catch {
            differences.push(`${sql}\n  ${node.kind} ${exprToString(x)} in ${exprToString(e)}: carries ${JSON.stringify(x.dataType)}, compiles to ${JSON.stringify(type)}`);
          }
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
  return { differences, untyped, castsAgain, compiled, refused, compared, typed, implicitCasts };
}

describe('outputSchema against the physical planner', () => {
  it('gives every node of every corpus plan the physical planner\'s columns, and every expression the compiler\'s type', () => {
    const r = differential(corpus);
    expect(r.differences).toEqual([]);
    expect(r.untyped).toEqual([]);
    expect(r.castsAgain).toEqual([]);
    expect(r.implicitCasts).toBeGreaterThan(200);
    expect(r.refused).toBe(0);
    expect(r.compiled).toBe(corpus.length);
    expect(r.compared).toBeGreaterThan(10_000);
    expect(r.typed).toBeGreaterThan(20_000);
  }, 120_000);
});
