/**
 * Spark 3.5's named function arguments (`mask(s, upperChar => 'Y')`): the functions whose
 * builders declare a FunctionSignature, and NamedParametersSupport.defaultRearrange, which puts
 * a call's arguments in the signature's positional order and fills in the defaults of the
 * parameters it leaves out. Spark rearranges every call of such a function, named arguments or
 * not, so `mask(s)` is `mask(s, X, x, n, NULL)` (its column's name says so); a function without a
 * signature refuses a named argument. Parameter names match as written (case-sensitively), as in
 * Spark.
 */
import { StringType } from './parser/data-type';
import type { Expression, Position } from './parser/unresolved-plan';
import { SqlValidationError } from './sql-error';

interface InputParameter {
  readonly name: string;
  /** The STRING an omitted optional parameter takes (NULL: none); no default: the parameter is required. */
  readonly default?: { value: string | null };
}

const collection: readonly InputParameter[] = [{ name: 'collection' }];
const input: readonly InputParameter[] = [{ name: 'input' }];

/** The functions Weir has that Spark 3.5 gives a FunctionSignature (its named-function-arguments.md list). */
const SIGNATURES: Readonly<Record<string, readonly InputParameter[]>> = {
  // MaskExpressionBuilder: Mask.MASKED_UPPERCASE, _LOWERCASE, _DIGIT, and no replacement for the rest.
  mask: [
    { name: 'str' }, { name: 'upperChar', default: { value: 'X' } }, { name: 'lowerChar', default: { value: 'x' } },
    { name: 'digitChar', default: { value: 'n' } }, { name: 'otherChar', default: { value: null } },
  ],
  // CountMinSketchAggExpressionBuilder: every parameter required.
  count_min_sketch: [{ name: 'column' }, { name: 'epsilon' }, { name: 'confidence' }, { name: 'seed' }],
  // ExplodeGeneratorBuilderBase, PosExplode's and Inline's builders.
  explode: collection, explode_outer: collection, posexplode: collection, posexplode_outer: collection,
  inline: input, inline_outer: input,
  // VariantExplodeGeneratorBuilderBase.
  variant_explode: input, variant_explode_outer: input,
};

const quoted = (name: string) => `\`${name.replace(/`/g, '``')}\``;

/**
 * The arguments of a call to `name` in positional order (Spark's defaultRearrange), refused with
 * Spark's errors where the names do not fit. Too many arguments are left to the function's own
 * count check (Spark's WRONG_NUM_ARGS).
 */
export function positionalArguments(name: string, args: readonly Expression[], callPos: Position): readonly Expression[] {
  const fn = name.toLowerCase();
  const named = args.findIndex((a) => a.kind === 'NamedArgumentExpression');
  const parameters = SIGNATURES[fn];
  const error = (message: string, errorClass: string, pos: Position = callPos) => new SqlValidationError(message, { line: pos.line, column: pos.column }, `${fn}()`, errorClass);
  if (!parameters) {
    if (named < 0) return args;
    throw error(
      `Named parameters are not supported for function ${quoted(fn)}; please retry the query with positional arguments to the function call instead.`,
      'NAMED_PARAMETERS_NOT_SUPPORTED', args[named].pos,
    );
  }
  const positional = named < 0 ? args : args.slice(0, named);
  const given = new Map<string, Expression>();
  for (const [i, a] of args.slice(positional.length).entries()) {
    if (a.kind !== 'NamedArgumentExpression') {
      const previous = args[positional.length + i - 1] as Extract<Expression, { kind: 'NamedArgumentExpression' }>;
      throw error(
        `Cannot invoke function ${quoted(fn)} because it contains positional argument(s) following the named argument assigned to ${quoted(previous.key)}; ` +
          'please rearrange them so the positional arguments come first and then retry the query again.',
        'UNEXPECTED_POSITIONAL_ARGUMENT', a.pos,
      );
    }
    const at = parameters.findIndex((p) => p.name === a.key);
    if (at < 0) {
      throw error(
        `Cannot invoke function ${quoted(fn)} because the function call included a named argument reference for the argument named ${quoted(a.key)}, ` +
          `but this function does not include any signature containing an argument with this name. Did you mean one of the following? [${parameters.slice(0, 3).map((p) => quoted(p.name)).join(' ')}].`,
        'UNRECOGNIZED_PARAMETER_NAME', a.pos,
      );
    }
    const duplicate = (why: string, sub: string) => error(
      `Call to function ${quoted(fn)} is invalid because it includes multiple argument assignments to the same parameter name ${quoted(a.key)}. ${why}`,
      `DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.${sub}`, a.pos,
    );
    if (at < positional.length) throw duplicate('A positional argument and named argument both referred to the same parameter. Please remove the named argument referring to this parameter.', 'BOTH_POSITIONAL_AND_NAMED');
    if (given.has(a.key)) throw duplicate('More than one named argument referred to the same parameter. Please assign a value only once.', 'DOUBLE_NAMED_ARGUMENT_REFERENCE');
    given.set(a.key, a.value);
  }
  if (args.length > parameters.length) return args;
  const rest = parameters.slice(positional.length);
  const missing = rest.findIndex((p) => !p.default && !given.has(p.name));
  if (missing >= 0) {
    // Positional arguments only and too few of them: the function's own count check says so.
    if (named < 0) return args;
    throw error(
      `Cannot invoke function ${quoted(fn)} because the parameter named ${quoted(rest[missing].name)} is required, but the function call did not supply a value. ` +
        `Please update the function call to supply an argument value (either positionally at index ${missing} or by name) and retry the query again.`,
      'REQUIRED_PARAMETER_NOT_FOUND',
    );
  }
  return [...positional, ...rest.map((p): Expression => given.get(p.name) ?? { kind: 'Literal', value: p.default!.value, dataType: StringType, pos: callPos })];
}
