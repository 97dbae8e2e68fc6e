/**
 * Compiles the safe Expr AST into closures over a row, type-checking against the input schema
 * on the way (analysis happens at validation, not per row). Semantics follow Spark SQL with
 * ANSI mode off: three-valued logic (NULL AND false = false, NULL OR true = true), NULL in
 * arithmetic or comparison yields NULL, `/` is always double and x/0 is NULL, failed string
 * conversions yield NULL. Column names resolve case-insensitively, as in Spark.
 *
 * No user text reaches eval or new Function: the only code that runs is this file's closures.
 */
import type { Field, Row, Schema } from '../types';
import { exprToString, type Expr } from './expression';
import { DATE_TRUNC_UNITS, FUNCTIONS } from './functions';
import { STREAMING_REFUSED } from './spark-functions';
import { fromJson, parseDdlSchema, toJson } from './json-functions';
import { compileLike, type LikeMatcher } from './like-matcher';
import { SqlValidationError } from './sql-error';
import { canCast, castValue, isNumeric, unifyTypes, type ExprType } from './sql-values';
import { checkStringLength } from './value-limits';

export interface EvalContext {
  /** offsets/N's batchTimestampMs: what current_timestamp() returns, stable on a re-run. */
  batchTimestampMs: number;
}

export type Evaluator = (row: Row, ctx: EvalContext) => unknown;

export interface CompiledExpr {
  type: ExprType;
  eval: Evaluator;
  /** The fields of a `struct` result (a window column is the struct { start, end }). */
  fields?: Field[];
  /**
   * A decimal's scale (digits after the point). Weir computes decimals as doubles and rounds
   * each result half up to the scale Spark's decimal arithmetic gives it, so `2 % 1.8` is 0.2
   * as in Spark, not 0.19999999999999996: exact while a value has at most 15 significant digits.
   */
  scale?: number;
}

/** Half up (away from zero) to `scale` digits, as Spark's decimal rounding. */
function roundDecimal(v: number, scale: number): number {
  const f = 10 ** scale;
  // 15 significant digits first: 1.005 * 100 is 100.49999999999999 in binary, 100.5 as Spark's decimal.
  const r = Math.round(Number((Math.abs(v) * f).toPrecision(15))) / f;
  return v < 0 ? -r : r;
}

/** The scale of an operand in decimal arithmetic: a decimal's own, 0 for an integer, none for a double. */
const scaleOf = (c: CompiledExpr): number | undefined => c.scale ?? (c.type === 'long' ? 0 : undefined);

/** Spark's window struct: what `window.start` and `window.end` read. */
const WINDOW_FIELDS: Field[] = [
  { name: 'start', type: 'timestamp', nullable: true },
  { name: 'end', type: 'timestamp', nullable: true },
];

/** A schema field's expression type, and its fields when it is a struct. */
function fieldExprType(f: Field): { type: ExprType; fields?: Field[] } {
  switch (f.type) {
    case 'window':
      return { type: 'struct', fields: WINDOW_FIELDS };
    case 'struct':
      return { type: 'struct', fields: f.fields ?? [] };
    case 'unknown':
      return { type: 'string' };
    case 'long': case 'double': case 'string': case 'boolean': case 'timestamp': case 'binary':
      return { type: f.type };
  }
}

/** Finds a column by exact name, else by a unique case-insensitive match. */
export function resolveColumn(schema: Schema, name: string): Schema[number] | undefined {
  const exact = schema.find((f) => f.name === name);
  if (exact) return exact;
  const ci = schema.filter((f) => f.name.toLowerCase() === name.toLowerCase());
  return ci.length === 1 ? ci[0] : undefined;
}

const COMPARE: Record<string, (a: never, b: never) => boolean> = {
  '=': (a, b) => a === b,
  '<>': (a, b) => a !== b,
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
};

export function compileExpression(e: Expr, schema: Schema): CompiledExpr {
  return new ExpressionCompiler(schema).compile(e);
}

class ExpressionCompiler {
  constructor(private readonly schema: Schema) {}

  private fail(e: Expr, msg: string): never {
    throw new SqlValidationError(`${msg} in ${exprToString(e)}`, e.pos, e.kind);
  }

  compile(e: Expr): CompiledExpr {
    switch (e.kind) {
      case 'literal': {
        const v = e.value;
        return { type: e.type, eval: () => v, ...(e.scale !== undefined ? { scale: e.scale } : {}) };
      }
      case 'column': {
        const f = resolveColumn(this.schema, e.name);
        if (!f) {
          throw new SqlValidationError(
            `Column "${e.name}" does not exist; available columns: ${this.schema.map((x) => x.name).join(', ')}`,
            e.pos,
            'column reference',
          );
        }
        const key = f.name;
        return { ...fieldExprType(f), eval: (row) => row[key] ?? null };
      }
      case 'field': {
        const a = this.compile(e.arg);
        if (a.type !== 'struct') this.fail(e, `${exprToString(e.arg)} is a ${a.type}, not a struct (or a table alias), so it has no field ${e.field}`);
        const f = resolveColumn(a.fields ?? [], e.field);
        if (!f) this.fail(e, `No such struct field ${e.field} in ${exprToString(e.arg)}; its fields are ${(a.fields ?? []).map((x) => x.name).join(', ')}`);
        const key = f.name;
        const get = a.eval;
        return {
          ...fieldExprType(f),
          eval: (r, c) => {
            const v = get(r, c) as Record<string, unknown> | null;
            return v === null || v === undefined ? null : (v[key] ?? null);
          },
        };
      }
      case 'unary': {
        const a = this.compile(e.arg);
        if (e.op === 'NOT') {
          this.expectBoolean(e, a.type);
          return { type: 'boolean', eval: (r, c) => { const v = a.eval(r, c); return v === null ? null : !v; } };
        }
        if (!isNumeric(a.type)) this.fail(e, `Unary minus needs a number, got ${a.type}`);
        return { type: a.type === 'null' ? 'long' : a.type, scale: a.scale, eval: (r, c) => { const v = a.eval(r, c); return v === null ? null : -(v as number); } };
      }
      case 'binary':
        return this.binary(e);
      case 'isNull': {
        const a = this.compile(e.arg);
        const neg = e.negated;
        return { type: 'boolean', eval: (r, c) => (a.eval(r, c) === null) !== neg };
      }
      case 'in': {
        const a = this.compile(e.arg);
        const list = e.list.map((x) => this.coerceTo(x, a.type));
        for (const l of list) if (!unifyTypes(a.type, l.type)) this.fail(e, `IN list value of type ${l.type} does not match ${a.type}`);
        const neg = e.negated;
        return {
          type: 'boolean',
          eval: (r, c) => {
            const v = a.eval(r, c);
            if (v === null) return null;
            let sawNull = false;
            for (const l of list) {
              const x = l.eval(r, c);
              if (x === null) sawNull = true;
              else if (x === v) return !neg;
            }
            return sawNull ? null : neg;
          },
        };
      }
      case 'between': {
        const ge = this.binary({ kind: 'binary', op: '>=', left: e.arg, right: e.low, pos: e.pos });
        const le = this.binary({ kind: 'binary', op: '<=', left: e.arg, right: e.high, pos: e.pos });
        const neg = e.negated;
        return {
          type: 'boolean',
          eval: (r, c) => {
            const v = and(ge.eval(r, c), () => le.eval(r, c));
            return v === null ? null : v !== neg;
          },
        };
      }
      case 'like':
        return this.like(e);
      case 'case':
        return this.caseWhen(e);
      case 'cast': {
        const a = this.compile(e.arg);
        if (!canCast(a.type, e.to)) this.fail(e, `Cannot cast ${a.type} to ${e.to}`);
        const from = a.type;
        const to = e.to;
        const scale = e.scale;
        if (scale !== undefined) {
          return {
            type: to,
            scale,
            eval: (r, c) => {
              const v = castValue(a.eval(r, c), from, to);
              return v === null ? null : roundDecimal(v as number, scale);
            },
          };
        }
        return { type: to, eval: (r, c) => castValue(a.eval(r, c), from, to) };
      }
      case 'call':
        return this.call(e);
    }
  }

  private expectBoolean(e: Expr, t: ExprType): void {
    if (t !== 'boolean' && t !== 'null') this.fail(e, `Expected a boolean, got ${t}`);
  }

  /** Compiles `x`; a string literal compared with a timestamp is read as a timestamp. */
  private coerceTo(x: Expr, target: ExprType): CompiledExpr {
    const c = this.compile(x);
    if (target === 'timestamp' && c.type === 'string' && x.kind === 'literal') {
      const ms = castValue(x.value, 'string', 'timestamp');
      if (ms === null) this.fail(x, `'${x.value}' is not a timestamp (use 'YYYY-MM-DD HH:MM:SS')`);
      return { type: 'timestamp', eval: () => ms };
    }
    return c;
  }

  private binary(e: Extract<Expr, { kind: 'binary' }>): CompiledExpr {
    if (e.op === 'AND' || e.op === 'OR') {
      const l = this.compile(e.left);
      const r = this.compile(e.right);
      this.expectBoolean(e.left, l.type);
      this.expectBoolean(e.right, r.type);
      // Inlined three-valued logic (no per-row closure): this is the hot path of every filter.
      const le = l.eval;
      const re = r.eval;
      return e.op === 'AND'
        ? {
            type: 'boolean',
            eval: (row, c) => {
              const a = le(row, c);
              if (a === false) return false;
              const b = re(row, c);
              if (b === false) return false;
              return a === null || b === null ? null : true;
            },
          }
        : {
            type: 'boolean',
            eval: (row, c) => {
              const a = le(row, c);
              if (a === true) return true;
              const b = re(row, c);
              if (b === true) return true;
              return a === null || b === null ? null : false;
            },
          };
    }
    if (e.op === '||') {
      const l = this.compile(e.left);
      const r = this.compile(e.right);
      const lt = l.type;
      const rt = r.type;
      return {
        type: 'string',
        eval: (row, c) => {
          const a = l.eval(row, c);
          const b = r.eval(row, c);
          if (a === null || b === null) return null;
          const x = castValue(a, lt, 'string') as string;
          const y = castValue(b, rt, 'string') as string;
          checkStringLength('||', x.length + y.length);
          return x + y;
        },
      };
    }
    let l = this.compile(e.left);
    let r = this.compile(e.right);
    if (COMPARE[e.op]) {
      if (l.type === 'timestamp') r = this.coerceTo(e.right, 'timestamp');
      if (r.type === 'timestamp') l = this.coerceTo(e.left, 'timestamp');
      if (!unifyTypes(l.type, r.type)) this.fail(e, `Cannot compare ${l.type} with ${r.type}; CAST one side`);
      const cmp = COMPARE[e.op] as (a: unknown, b: unknown) => boolean;
      return {
        type: 'boolean',
        eval: (row, c) => {
          const a = l.eval(row, c);
          if (a === null) return null;
          const b = r.eval(row, c);
          return b === null ? null : cmp(a, b);
        },
      };
    }
    if (!isNumeric(l.type) || !isNumeric(r.type)) this.fail(e, `Operator ${e.op} needs numbers, got ${l.type} and ${r.type}`);
    const bothLong = (l.type === 'long' || l.type === 'null') && (r.type === 'long' || r.type === 'null');
    const type: ExprType = e.op === '/' ? 'double' : bothLong ? 'long' : 'double';
    // Decimal arithmetic (one side a decimal, the other a decimal or an integer): Spark's result
    // scale is max(s1, s2) for + - %, s1 + s2 for *; `/` stays a double in Weir.
    const ls = scaleOf(l);
    const rs = scaleOf(r);
    const decimal = ls !== undefined && rs !== undefined && (l.scale !== undefined || r.scale !== undefined) && e.op !== '/';
    const scale = decimal ? (e.op === '*' ? ls + rs : Math.max(ls, rs)) : undefined;
    const num = (f: (a: number, b: number) => number | null): CompiledExpr => ({
      type,
      ...(scale !== undefined ? { scale } : {}),
      eval: scale !== undefined
        ? (row, c) => {
            const a = l.eval(row, c);
            if (a === null) return null;
            const b = r.eval(row, c);
            if (b === null) return null;
            const v = f(a as number, b as number);
            return v === null ? null : roundDecimal(v, scale);
          }
        : (row, c) => {
            const a = l.eval(row, c);
            if (a === null) return null;
            const b = r.eval(row, c);
            return b === null ? null : f(a as number, b as number);
          },
    });
    switch (e.op) {
      case '+': return num((a, b) => a + b);
      case '-': return num((a, b) => a - b);
      case '*': return num((a, b) => a * b);
      case '/': return num((a, b) => (b === 0 ? null : a / b));
      case '%':
        // A decimal remainder on the scaled integers: in doubles, -23.4 % 1.8 is -1.7999… (Spark: 0).
        if (scale !== undefined) {
          const f = 10 ** scale;
          const int = (v: number) => Math.round(Number((v * f).toPrecision(15)));
          return num((a, b) => (b === 0 ? null : (int(a) % int(b)) / f || 0));
        }
        return num((a, b) => (b === 0 ? null : a % b));
      // Compared above; listed so that a new operator is a lint error until it is handled here.
      case '=': case '<>': case '<': case '<=': case '>': case '>=':
        break;
    }
    return this.fail(e, `Operator ${e.op} is not supported`);
  }

  private like(e: Extract<Expr, { kind: 'like' }>): CompiledExpr {
    const a = this.compile(e.arg);
    const p = this.compile(e.pattern);
    if (a.type !== 'string' && a.type !== 'null') this.fail(e, `LIKE needs a string, got ${a.type}`);
    if (p.type !== 'string' && p.type !== 'null') this.fail(e, `LIKE pattern must be a string, got ${p.type}`);
    if (e.escape !== undefined && Array.from(e.escape).length !== 1) this.fail(e, `ESCAPE must be a single character, got '${e.escape}'`);
    const opts = { escape: e.escape, caseInsensitive: e.caseInsensitive };
    const neg = e.negated;
    if (e.pattern.kind === 'literal' && typeof e.pattern.value === 'string') {
      const match = compileLike(e.pattern.value, opts);
      const arg = a.eval;
      return {
        type: 'boolean',
        eval: (row, c) => {
          const s = arg(row, c);
          return s === null ? null : match(s as string) !== neg;
        },
      };
    }
    // A pattern read from a column: matchers by pattern text, bounded.
    const cache = new Map<string, LikeMatcher>();
    const matcher = (pat: string) => {
      let m = cache.get(pat);
      if (!m) {
        m = compileLike(pat, opts);
        if (cache.size >= 1000) cache.clear();
        cache.set(pat, m);
      }
      return m;
    };
    return {
      type: 'boolean',
      eval: (row, c) => {
        const s = a.eval(row, c);
        const pat = p.eval(row, c);
        if (s === null || pat === null) return null;
        return matcher(pat as string)(s as string) !== neg;
      },
    };
  }

  private caseWhen(e: Extract<Expr, { kind: 'case' }>): CompiledExpr {
    const operand = e.operand ? this.compile(e.operand) : undefined;
    const whens = e.branches.map((b) => {
      if (operand) {
        const w = this.coerceTo(b.when, operand.type);
        if (!unifyTypes(operand.type, w.type)) this.fail(b.when, `CASE value of type ${w.type} does not match ${operand.type}`);
        return w;
      }
      const w = this.compile(b.when);
      this.expectBoolean(b.when, w.type);
      return w;
    });
    const thens = e.branches.map((b) => this.compile(b.then));
    const otherwise = e.otherwise ? this.compile(e.otherwise) : undefined;
    let type: ExprType | undefined = 'null';
    for (const t of [...thens, ...(otherwise ? [otherwise] : [])]) {
      type = unifyTypes(type!, t.type);
      if (!type) this.fail(e, 'CASE branches have incompatible types');
    }
    return {
      type: type!,
      eval: (row, c) => {
        const ov = operand?.eval(row, c);
        for (let i = 0; i < whens.length; i++) {
          const w = whens[i].eval(row, c);
          if (operand ? ov !== null && w !== null && ov === w : w === true) return thens[i].eval(row, c);
        }
        return otherwise ? otherwise.eval(row, c) : null;
      },
    };
  }

  /** from_json(text, 'DDL schema'): the schema must be a literal (Spark requires a foldable one). */
  fromJson(e: Extract<Expr, { kind: 'call' }>): CompiledExpr {
    const [text, schema] = e.args;
    if (schema.kind !== 'literal' || typeof schema.value !== 'string') this.fail(e, "from_json() needs its schema as a string literal, such as 'id BIGINT, region STRING, ts TIMESTAMP'");
    const fields = parseDdlSchema(schema.value);
    if (typeof fields === 'string') this.fail(e, `from_json(): ${fields}`);
    const t = this.compile(text);
    if (t.type !== 'string' && t.type !== 'binary' && t.type !== 'null') this.fail(e, `from_json() reads a string (or binary UTF-8 JSON), got ${t.type}`);
    const from = t.type;
    return {
      type: 'struct',
      fields,
      eval: (r, c) => {
        const v = t.eval(r, c);
        if (v === null || v === undefined) return null;
        return fromJson(castValue(v, from, 'string') as string, fields);
      },
    };
  }

  /** to_json(struct) */
  private toJson(e: Extract<Expr, { kind: 'call' }>): CompiledExpr {
    const a = this.compile(e.args[0]);
    if (a.type !== 'struct') this.fail(e, `to_json() takes a struct (such as from_json(...) or window), got ${a.type}`);
    const fields = a.fields ?? [];
    return {
      type: 'string',
      eval: (r, c) => {
        const v = a.eval(r, c) as Record<string, unknown> | null;
        if (v === null || v === undefined) return null;
        const s = toJson(v, fields);
        checkStringLength('to_json()', s.length);
        return s;
      },
    };
  }

  private call(e: Extract<Expr, { kind: 'call' }>): CompiledExpr {
    const refused = STREAMING_REFUSED[e.name];
    if (refused) throw new SqlValidationError(refused.message, e.pos, `${e.name}()`, refused.errorClass);
    const def = FUNCTIONS[e.name];
    if (!def) {
      throw new SqlValidationError(
        `Function ${e.name}() is not supported; supported functions: ${Object.keys(FUNCTIONS).sort().join(', ')}`,
        e.pos,
        `${e.name}()`,
      );
    }
    if (e.args.length < def.min || e.args.length > def.max) {
      const n = def.min === def.max ? `${def.min}` : `${def.min} to ${def.max}`;
      this.fail(e, `${e.name}() takes ${n} argument(s), got ${e.args.length}`);
    }
    // mod(a, b) is a % b, decimal scale included.
    if (e.name === 'mod' && e.args.length === 2) return this.binary({ kind: 'binary', op: '%', left: e.args[0], right: e.args[1], pos: e.pos });
    if (e.name === 'to_timestamp' && e.args.length === 1) return this.compile({ kind: 'cast', arg: e.args[0], to: 'timestamp', pos: e.pos });
    if (e.name === 'from_json') return this.fromJson(e);
    if (e.name === 'to_json') return this.toJson(e);
    if (e.name === 'extract' || e.name === 'date_trunc') {
      const unit = e.args[0];
      const allowed = e.name === 'extract' ? ['year', 'month', 'day', 'dayofmonth', 'hour', 'minute', 'second', 'dayofweek', 'quarter'] : [...DATE_TRUNC_UNITS];
      if (unit.kind !== 'literal' || typeof unit.value !== 'string' || !allowed.includes(unit.value.toLowerCase())) {
        this.fail(e, `${e.name} unit must be one of ${allowed.join(', ')}`);
      }
      unit.value = unit.value.toLowerCase();
    }
    const args = e.args.map((a) => this.compile(a));
    const types = args.map((a) => a.type);
    let type = def.type(types);
    if (e.name === 'coalesce') type = types.reduce<ExprType | undefined>((t, x) => (t ? unifyTypes(t, x) : t), 'null') ?? 'coalesce() arguments have incompatible types';
    if (e.name === 'nullif') type = unifyTypes(types[0], types[1]) ? types[0] : 'nullif() arguments have incompatible types';
    if (!['long', 'double', 'string', 'boolean', 'timestamp', 'binary', 'null'].includes(type)) this.fail(e, `${e.name}() ${type}`);
    const badLiterals = def.checkLiterals?.(e.args.map((a) => (a.kind === 'literal' ? a.value : undefined)));
    if (badLiterals) this.fail(e, badLiterals);
    const nullIntolerant = def.nullIntolerant !== false;
    const impl = def.impl;
    if (args.length === 1 && nullIntolerant) {
      const a0 = args[0].eval;
      return {
        type: type as ExprType,
        eval: (row, c) => {
          const v = a0(row, c);
          return v === null ? null : impl([v], c, types);
        },
      };
    }
    return {
      type: type as ExprType,
      eval: (row, c) => {
        const vs = args.map((a) => a.eval(row, c));
        if (nullIntolerant && vs.some((v) => v === null)) return null;
        return impl(vs, c, types);
      },
    };
  }
}

function and(l: unknown, r: () => unknown): boolean | null {
  if (l === false) return false;
  const rv = r();
  if (rv === false) return false;
  return l === null || rv === null ? null : true;
}
