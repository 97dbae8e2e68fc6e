/**
 * Spark's cast functions: `timestamp(x)` is `CAST(x AS TIMESTAMP)`, `date(x)` is `CAST(x AS
 * DATE)`, and so on for each type Spark registers one for (Cast aliases in its FunctionRegistry):
 * each is replaced by its CAST.
 */
import type { TypeInfo } from './data-types';
import type { Expr } from './expression';
import type { SpecialFormDef } from './function-types';
import { bigOf, type IntegralBits, type Long } from './long';

type CastTarget = Pick<Extract<Expr, { kind: 'cast' }>, 'to' | 'integral' | 'float32' | 'decimal'>;

/** The type each cast function casts to: INT wraps at 32 bits, FLOAT is a single-precision `double` (float.ts), DECIMAL is DECIMAL(10,0). */
const TARGETS: Record<string, CastTarget> = {
  timestamp: { to: 'timestamp' }, date: { to: 'date' }, string: { to: 'string' }, bigint: { to: 'long' },
  int: { to: 'long', integral: 32 }, smallint: { to: 'long', integral: 16 }, tinyint: { to: 'long', integral: 8 },
  double: { to: 'double' }, float: { to: 'double', float32: true }, boolean: { to: 'boolean' }, binary: { to: 'binary' },
  // Spark's DecimalType.USER_DEFAULT.
  decimal: { to: 'decimal', decimal: { precision: 10, scale: 0 } },
};

export const CAST_FUNCTIONS: Record<string, SpecialFormDef> = Object.fromEntries(Object.entries(TARGETS).map(([name, target]) => [name, {
  min: 1, max: 1,
  replacement: (e, c) => {
    if (e.args.length !== 1) c.fail(e, `${e.name}() takes one argument, got ${e.args.length}`);
    return { kind: 'cast', arg: e.args[0], ...target, pos: e.pos };
  },
} satisfies SpecialFormDef]));

/**
 * For Spark's TRY_CAST to an integer type: whether a value of `source`'s type is a whole number
 * inside a `bits`-bit integer, as Spark's ANSI cast requires. TRY_CAST is NULL wherever the ANSI
 * cast fails, where the CAST Weir runs (ANSI off) gives a value; the two differ only for an
 * integer target: text with a fraction ('1.23', which CAST truncates), a number outside the type
 * (which CAST wraps or saturates: CAST(2147483648 AS INT) is -2147483648, CAST(1e10 AS INT)
 * 2147483647) and a NaN or an infinity. Everywhere else CAST with ANSI off already gives NULL where
 * the ANSI cast fails (text that does not parse, a decimal that overflows).
 */
export function fitsInteger(source: TypeInfo, bits: IntegralBits | 64): (v: unknown) => boolean {
  const max = 2n ** BigInt(bits - 1) - 1n;
  const min = -max - 1n;
  const inRange = (b: bigint) => b >= min && b <= max;
  switch (source.type) {
    case 'string':
      return (v) => { const m = /^\s*([+-]?\d+)\s*$/.exec(String(v)); return m !== null && inRange(BigInt(m[1])); };
    case 'double':
      // Truncated toward zero, as the ANSI cast does; 2^63 itself is past BIGINT's range.
      return (v) => Number.isFinite(v) && inRange(BigInt(Math.trunc(v as number)));
    case 'long':
      return (v) => inRange(bigOf(v as Long));
    case 'decimal': {
      const unit = 10n ** BigInt(source.decimal?.scale ?? 0);
      return (v) => inRange((v as bigint) / unit);
    }
    // A boolean, a timestamp's seconds and NULL always fit; nothing else casts to an integer.
    case 'boolean': case 'timestamp': case 'null': case 'date': case 'binary': case 'array': case 'map': case 'struct':
    case 'day_time_interval': case 'year_month_interval': case 'calendar_interval': case 'variant':
      return () => true;
  }
}
