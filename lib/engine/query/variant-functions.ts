/**
 * Spark 4's variant functions (variant.ts holds the value): parse_json, try_parse_json,
 * variant_get, try_variant_get, is_variant_null, schema_of_variant and to_variant_object.
 * variant_get(v, path, type) is the CAST of variant_get(v, path) to the type, failing where the
 * value does not cast (INVALID_VARIANT_CAST) whatever the ANSI mode; try_variant_get's is NULL.
 */
import { RecordExpressionError } from '../errors';
import type { Field } from '../types';
import { fieldOfDataType } from './data-types';
import type { Expr } from './expression';
import type { CallExpr, FunctionDef } from './function-types';
import { compiled, mapped } from './compiled-expr';
import { parseDataType } from './parser/data-type-parser';
import { castsWithVariant, toVariant } from './variant-casts';
import { parseVariant, parseVariantPath, schemaOfVariant, schemaText, variantAt, VariantParseError, type Variant, type VariantPathSegment } from './variant';

/** parse_json (and from_json with a VARIANT schema): a failure is Spark's error; try_parse_json: NULL. */
export function parseJsonText(text: string, fail: boolean): Variant | null {
  try {
    return parseVariant(text);
  } catch (e) {
    if (!(e instanceof VariantParseError) || !fail) return null;
    throw new RecordExpressionError(e.message, { errorClass: e.errorClass });
  }
}

/** Spark's INVALID_VARIANT_GET_PATH. */
function invalidPath(path: string, fn: string): never {
  throw new RecordExpressionError(
    `[INVALID_VARIANT_GET_PATH] The path \`${path}\` is not a valid variant extraction path in \`${fn}\`. A valid path should start with \`$\` and is followed by zero or more segments like \`[123]\`, \`.name\`, \`['name']\`, or \`["name"]\`.`,
    { errorClass: 'INVALID_VARIANT_GET_PATH' },
  );
}

const isText = (t: string) => t === 'string' || t === 'null';

/** A type named by variant_get's third argument ('int', 'array<string>'), or why it is not one. */
function readType(fn: string, text: string): Field | string {
  try {
    return fieldOfDataType(fn, parseDataType(text));
  } catch (err) {
    return `[PARSE_SYNTAX_ERROR] ${fn}(): cannot read the type '${text}' (${(err as Error).message})`;
  }
}

/** variant_get and try_variant_get: the sub-variant at the path, cast to the type named by a third argument. */
function variantGet(fn: 'variant_get' | 'try_variant_get'): FunctionDef {
  return {
    min: 2, max: 3, takesVariant: true,
    type: (a) => (a[0] !== 'variant' && a[0] !== 'null' ? `${fn}() takes a VARIANT (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)` : !isText(a[1]) ? `${fn}()'s path is a string (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)` : 'variant'),
    impl: () => null,
    replacement: (e, c) => {
      if (e.args.length !== 3) return undefined;
      const typeArg = e.args[2];
      const typeName = typeArg.kind === 'literal' && typeof typeArg.value === 'string' ? typeArg.value : undefined;
      if (typeName === undefined) return c.fail(e, `${fn}()'s type must be a string literal such as 'int' or 'array<string>' (INVALID_SCHEMA.NON_STRING_LITERAL)`, 'INVALID_SCHEMA.NON_STRING_LITERAL');
      const target = readType(fn, typeName);
      if (typeof target === 'string') return c.fail(e, target, target.startsWith('[PARSE') ? 'PARSE_SYNTAX_ERROR' : undefined);
      const extract: Expr = { kind: 'call', name: fn, args: [e.args[0], e.args[1]], pos: e.pos };
      return { kind: 'cast', arg: extract, to: target.type === 'window' || target.type === 'unknown' ? 'string' : target.type, target, pos: e.pos, ...(fn === 'variant_get' ? { failOnError: true as const } : { try: true as const }) };
    },
    compile: (e, c) => {
      if (e.args.length !== 2) return undefined;
      const [v, p] = [c.compile(e.args[0]), c.compile(e.args[1])];
      // `v:path` reads a VARIANT only: a NULL too is refused, which variant_get(NULL, …) takes.
      if (e.variantPath && v.type !== 'variant') c.fail(e, `[COLUMN_IS_NOT_VARIANT_TYPE] The path ${String((e.args[1] as { value?: unknown }).value)} reads a VARIANT, not a ${v.type.toUpperCase()}: make one with parse_json(…) or CAST(… AS VARIANT).`, 'COLUMN_IS_NOT_VARIANT_TYPE');
      if (v.type !== 'variant' && v.type !== 'null') c.mismatch(e, 'UNEXPECTED_INPUT_TYPE', `the first parameter of ${fn} requires the "VARIANT" type.`, `${fn}() takes a VARIANT such as parse_json(text)`);
      if (!isText(p.type)) c.mismatch(e, 'UNEXPECTED_INPUT_TYPE', `the second parameter of ${fn} requires the "STRING" type.`, `${fn}()'s path is a string such as '$.user.id'`);
      // A literal path is read once, and refused at analysis when it is not one (Spark's foldable path).
      const pathArg = e.args[1];
      const literal = pathArg.kind === 'literal' && typeof pathArg.value === 'string' ? pathArg.value : undefined;
      const fixed = literal === undefined ? undefined : parseVariantPath(literal);
      if (literal !== undefined && fixed === undefined) c.fail(e, `[INVALID_VARIANT_GET_PATH] The path \`${literal}\` is not a valid variant extraction path in \`${fn}\`.`, 'INVALID_VARIANT_GET_PATH');
      return compiled({ type: 'variant' }, () => {
        const [getV, getP] = [v.eval, p.eval];
        return (r, x) => {
          const value = getV(r, x) as Variant | null;
          if (value === null || value === undefined) return null;
          let path: VariantPathSegment[] | undefined = fixed;
          if (!path) {
            const text = getP(r, x);
            if (text === null || text === undefined) return null;
            path = parseVariantPath(String(text)) ?? invalidPath(String(text), fn);
          }
          return variantAt(value, path) ?? null;
        };
      });
    },
  };
}

export const VARIANT_FUNCTIONS: Record<string, FunctionDef> = {
  parse_json: {
    min: 1, max: 1, type: (a) => (isText(a[0]) ? 'variant' : 'parse_json() takes a STRING (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)'),
    impl: ([s]) => parseJsonText(s as string, true),
  },
  try_parse_json: {
    min: 1, max: 1, type: (a) => (isText(a[0]) ? 'variant' : 'try_parse_json() takes a STRING (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)'),
    impl: ([s]) => parseJsonText(s as string, false),
  },
  variant_get: variantGet('variant_get'),
  try_variant_get: variantGet('try_variant_get'),
  // true only for a variant null; a SQL NULL is false.
  is_variant_null: {
    min: 1, max: 1, nullIntolerant: false, takesVariant: true,
    type: (a) => (a[0] === 'variant' || a[0] === 'null' ? 'boolean' : 'is_variant_null() takes a VARIANT (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)'),
    impl: ([v]) => v !== null && v !== undefined && (v as Variant).t === 'null',
  },
  schema_of_variant: {
    min: 1, max: 1, takesVariant: true,
    type: (a) => (a[0] === 'variant' || a[0] === 'null' ? 'string' : 'schema_of_variant() takes a VARIANT (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)'),
    impl: ([v]) => schemaText(schemaOfVariant(v as Variant)),
  },
  // A struct, map (string keys) or array as a variant object or array (CAST refuses structs and maps).
  to_variant_object: {
    min: 1, max: 1, type: () => 'variant', impl: () => null,
    compile: (e: CallExpr, c) => {
      const a = c.compile(e.args[0]);
      if ((a.type !== 'struct' && a.type !== 'map' && a.type !== 'array') || !castsWithVariant(a)) {
        c.mismatch(e, 'CAST_WITHOUT_SUGGESTION', `cannot cast "${a.type.toUpperCase()}" to "VARIANT".`, 'to_variant_object() takes a STRUCT, a MAP with STRING keys or an ARRAY');
      }
      const convert = toVariant(a);
      return mapped({ type: 'variant' }, a, (v) => (v === null || v === undefined ? null : convert(v)));
    },
  },
};
