/**
 * docs/sql.md's list of every function by Spark group, made from the function registry, and its
 * table of Spark's examples Weir answers differently (SPARK_EXAMPLE_DIFFERENCES): the section
 * between START and END. function-docs.test.ts checks it, and rewrites it when
 * run with -u (vitest's update mode).
 */
import { sqlFunctionCatalog } from '../function-catalog';
import { FUNCTION_GROUPS, FUNCTION_REGISTRY, type FunctionGroup } from '../function-registry';
import { SPARK_EXAMPLE_DIFFERENCES } from './spark-function-examples';

const START = '<!-- function-list: generated from function-registry.ts by lib/engine/query/function-docs.test.ts (npx vitest run lib/engine/query/function-docs.test.ts -u rewrites it) -->';
export const END = '<!-- /function-list -->';

const TITLES: Record<FunctionGroup, string> = {
  string: 'String', datetime: 'Date and time', math: 'Math', array: 'Array', map: 'Map', struct: 'Struct', json: 'JSON', csv: 'CSV', xml: 'XML', url: 'URL', hash: 'Hash',
  conditional: 'Conditional', predicate: 'Predicate', conversion: 'Conversion (cast functions)', aggregate: 'Aggregate',
  lambda: 'Lambda (higher-order)', generator: 'Generator', misc: 'Misc',
};

export function functionList(): string {
  const signatures = new Map(sqlFunctionCatalog().map((f) => [f.name, f.signature]));
  const lines = [
    START,
    '### Every function, by group',
    '',
    'Each name Weir resolves, under its group in Spark\'s function reference, with its arguments by',
    'position (`[…]` optional). The sections above say what each does where it differs from Spark.',
    '',
  ];
  for (const group of FUNCTION_GROUPS) {
    const names = [...FUNCTION_REGISTRY.values()].filter((f) => f.group === group && !f.internal).map((f) => f.name).sort();
    lines.push(`**${TITLES[group]}** (${names.length}): ${names.map((n) => `\`${signatures.get(n) ?? `${n}(…)`}\``).join(', ')}`, '');
  }
  lines.push(
    '### Spark\'s examples Weir answers differently',
    '',
    'lib/engine/query/spark-function-examples.test.ts runs the examples of Spark\'s function reference',
    '(the `Examples:` of each `@ExpressionDescription`) for the functions above and prints each answer',
    'as Spark\'s shell does; it prints the share that gives Spark\'s result (goal: at least 95%). These',
    'give another answer, and why:',
    '',
    '| Example | Why Weir differs |',
    '|---|---|',
    ...Object.entries(SPARK_EXAMPLE_DIFFERENCES).map(([q, why]) => `| \`${q.replace(/\|/g, '\\|')}\` | ${why} |`),
    END,
  );
  return lines.join('\n');
}
