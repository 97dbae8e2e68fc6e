/**
 * Spark's cast functions: `timestamp(x)` is `CAST(x AS TIMESTAMP)`, `date(x)` is `CAST(x AS
 * DATE)`, and so on for each type Spark registers one for (Cast aliases in its FunctionRegistry):
 * each is replaced by its CAST.
 */
import type { Expr } from './expression';
import type { SpecialFormDef } from './function-types';

type CastTarget = Pick<Extract<Expr, { kind: 'cast' }>, 'to' | 'integral' | 'float32'>;

/** The type each cast function casts to: INT wraps at 32 bits, FLOAT is a single-precision `double` (float.ts). */
const TARGETS: Record<string, CastTarget> = {
  timestamp: { to: 'timestamp' }, date: { to: 'date' }, string: { to: 'string' }, bigint: { to: 'long' },
  int: { to: 'long', integral: 32 }, smallint: { to: 'long', integral: 16 }, tinyint: { to: 'long', integral: 8 },
  double: { to: 'double' }, float: { to: 'double', float32: true }, boolean: { to: 'boolean' }, binary: { to: 'binary' },
};

export const CAST_FUNCTIONS: Record<string, SpecialFormDef> = Object.fromEntries(Object.entries(TARGETS).map(([name, target]) => [name, {
  min: 1, max: 1,
  replacement: (e, c) => {
    if (e.args.length !== 1) c.fail(e, `${e.name}() takes one argument, got ${e.args.length}`);
    return { kind: 'cast', arg: e.args[0], ...target, pos: e.pos };
  },
} satisfies SpecialFormDef]));
