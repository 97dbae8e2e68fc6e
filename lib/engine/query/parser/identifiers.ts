/**
 * Identifier text from dt-sql-parser's Spark parse tree: backquoted names unquoted (Spark's
 * `` `a``b` `` is a`b), everything else as written (a double-quoted text is never a name: the
 * parser refuses it, SparkParser.quotedIdentifier). Part of the Spark SQL front end (see
 * unresolved-plan.ts).
 */
import type { ParserRuleContext } from 'antlr4ng';

/** Spark's identifier value of an identifier-like rule's text. */
export function identifierText(ctx: ParserRuleContext): string {
  const t = ctx.getText();
  if (t.length >= 2 && t.startsWith('`') && t.endsWith('`')) return t.slice(1, -1).replace(/``/g, '`');
  return t;
}
