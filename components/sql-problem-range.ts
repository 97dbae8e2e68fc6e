import { withErrorClass } from '@/lib/engine/errors';

/**
 * Where an analysis error goes in the SQL text: the engine reports 1-based line and column
 * (the front end's positions); the editor needs character offsets. The mark covers the word at
 * the column (what the message names: a column, a function), at least one character, never past
 * the end of its line; an error without a position marks the whole query.
 */
export interface SqlProblem {
  message: string;
  line?: number;
  column?: number;
  /** Spark's error class, shown before the message as Spark prints it. */
  errorClass?: string;
}

/** Offsets in `text` for an error at 1-based line/column (the whole text when no position). */
export function problemRange(text: string, p: SqlProblem): { from: number; to: number } {
  const lines = text.split('\n');
  if (!p.line || p.line < 1 || p.line > lines.length) return { from: 0, to: text.length };
  const lineStart = lines.slice(0, p.line - 1).reduce((s, l) => s + l.length + 1, 0);
  const lineText = lines[p.line - 1];
  const col = Math.min(Math.max((p.column ?? 1) - 1, 0), lineText.length);
  // Mark the word at the column (an identifier or keyword), at least one character.
  const rest = /^[A-Za-z0-9_."]+/.exec(lineText.slice(col))?.[0].length ?? 1;
  const from = lineStart + col;
  return { from, to: Math.min(from + Math.max(rest, 1), lineStart + lineText.length) || from };
}

/** The message with Spark's error class before it, as Spark prints it, once. */
export function problemText(p: SqlProblem): string {
  return withErrorClass(p.message, p.errorClass);
}
