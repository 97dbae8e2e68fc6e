/**
 * Spark's random functions (its Nondeterministic expressions): rand/random and randn (group
 * math_funcs), uuid (misc_funcs) and shuffle (array_funcs). Each call holds one generator per task,
 * made at the task's first row from `seed + partitionIndex` as Spark's initialize(partitionIndex)
 * makes it (EvalContext.partitionIndex; a batch run in one piece is partition 0). Every micro-batch
 * is a new task, so a seeded call gives the same values to a batch and to its re-run after a
 * crash (the same partitions read the same rows); an unseeded call is seeded once when the query
 * is compiled, as Spark's ResolveRandomSeed seeds it at analysis, so a restarted query, and a
 * batch it re-runs, draws other values, as Spark's does.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { exprChildren, exprToString, type Expr } from './expression';
import { constant } from './function-args';
import type { CallCompiler, CallExpr, CompiledExpr, EvalContext, SpecialFormDef } from './function-types';
import { compiled, typeOfCompiled } from './compiled-expr';
import { XORShiftRandom } from './xorshift-random';

/** A generator per task (per evaluation context), made at its first use. */
function perTask<T>(make: (partitionIndex: number) => T): (ctx: EvalContext) => T {
  const byTask = new WeakMap<EvalContext, T>();
  return (ctx) => {
    let g = byTask.get(ctx);
    if (g === undefined) byTask.set(ctx, (g = make(ctx.partitionIndex ?? 0)));
    return g;
  };
}

/**
 * The seed of rand(seed)/randn(seed): a constant INT or BIGINT (NULL is 0, as Spark's cast of it);
 * none: a random one, drawn now (Spark's ResolveRandomSeed).
 */
function seedOf(e: CallExpr, c: CallCompiler): bigint {
  const arg = e.args[0];
  if (arg === undefined) return randomBytes(8).readBigInt64BE();
  const s = c.compile(arg);
  if (s.type !== 'null' && (s.type !== 'long' || (s.integral !== undefined && s.integral !== 32))) {
    c.mismatch(e, 'UNEXPECTED_INPUT_TYPE', `The first parameter requires the ("INT" or "BIGINT") type, however "${exprToString(arg)}" has the type "${s.type.toUpperCase()}".`, 'Write the seed as an integer literal.');
  }
  if (!constant(arg)) c.mismatch(e, 'NON_FOLDABLE_INPUT', `the input "seed" should be a foldable "INT" or "BIGINT" expression; however, got "${exprToString(arg)}".`, 'Write the seed as a literal.');
  const v = s.eval({}, { batchTimestampMs: 0 });
  return v === null || v === undefined ? 0n : BigInt(v as number | bigint);
}

/** rand() and randn(): one double per row from the task's XORShiftRandom. */
const randomDouble = (draw: (r: XORShiftRandom) => number): SpecialFormDef => ({
  min: 0, max: 1,
  compile: (e, c): CompiledExpr => {
    const seed = seedOf(e, c);
    const rng = perTask((partition) => new XORShiftRandom(BigInt.asIntN(64, seed + BigInt(partition))));
    return { type: 'double', eval: (_row, ctx) => draw(rng(ctx)) };
  },
});

export const RANDOM_MATH_FORMS: Record<string, SpecialFormDef> = {
  // Spark's Rand: uniform in [0, 1); random is its other name.
  rand: randomDouble((r) => r.nextDouble()),
  random: randomDouble((r) => r.nextDouble()),
  // Spark's Randn: standard normal.
  randn: randomDouble((r) => r.nextGaussian()),
};

export const RANDOM_MISC_FORMS: Record<string, SpecialFormDef> = {
  // Spark's Uuid: a random (version 4) UUID per row. Spark draws it from a generator seeded at
  // analysis, which no query can name, so any uniform draw is Spark's answer.
  uuid: { min: 0, max: 0, compile: () => ({ type: 'string', eval: () => randomUUID() }) },
};

export const RANDOM_ARRAY_FORMS: Record<string, SpecialFormDef> = {
  // Spark's Shuffle: a random permutation of the array (its RandomIndicesGenerator's inside-out
  // Fisher-Yates), from a generator seeded at analysis per task; NULL for NULL.
  shuffle: {
    min: 1, max: 1,
    compile: (e, c) => {
      const a = c.compile(e.args[0]);
      if (a.type !== 'array' && a.type !== 'null') c.mismatch(e, 'UNEXPECTED_INPUT_TYPE', `The first parameter requires the "ARRAY" type, however "${exprToString(e.args[0])}" has the type "${a.type.toUpperCase()}".`, 'Pass an array.');
      const seed = randomBytes(8).readBigInt64BE();
      const rng = perTask((partition) => new XORShiftRandom(BigInt.asIntN(64, seed + BigInt(partition))));
      return compiled(typeOfCompiled(a), () => {
        const get = a.eval;
        return (row, ctx) => {
          const v = get(row, ctx);
          if (!Array.isArray(v)) return v ?? null;
          const r = rng(ctx);
          const out = v.slice();
          for (let i = 1; i < out.length; i++) {
            const j = r.nextIntBounded(i + 1);
            const x = out[i];
            out[i] = out[j];
            out[j] = x;
          }
          return out;
        };
      });
    },
  },
};

const NONDETERMINISTIC: ReadonlySet<string> = new Set([...Object.keys(RANDOM_MATH_FORMS), ...Object.keys(RANDOM_MISC_FORMS), ...Object.keys(RANDOM_ARRAY_FORMS)]);

/** Whether the function `name` (lower case) draws a new value at every evaluation (rand, uuid, shuffle…). */
export function isNondeterministicFunction(name: string): boolean {
  return NONDETERMINISTIC.has(name);
}

/**
 * Whether an expression gives the same value for the same row wherever it is evaluated (Spark's
 * Expression.deterministic): no random function in it. A nondeterministic condition is not moved
 * to where it would be evaluated for other rows (the optimizer's pushdowns).
 */
export function isDeterministic(e: Expr): boolean {
  return !(e.kind === 'call' && NONDETERMINISTIC.has(e.name)) && exprChildren(e).every(isDeterministic);
}
