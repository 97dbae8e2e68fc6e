/**
 * A subquery's output may name two columns alike (`SELECT * FROM a JOIN b ON a.k = b.k` keeps
 * both `k`), and so may the query's output, as Spark's plans may: a row holds each under a name of its own, the later ones as
 * `<name>` + this mark + a number, written `<name>` (a star, the output's columns, the preview and the console show them so) and
 * ambiguous wherever a name reads them (Spark's AMBIGUOUS_REFERENCE). The mark is a character no
 * SQL text writes unquoted.
 */
export const DUPLICATE_COLUMN_MARK = '\u0000';

/** The row's column for the `n`-th (from 1) repeat of the output name `name`. */
export function duplicateColumn(name: string, n: number): string {
  return `${name}${DUPLICATE_COLUMN_MARK}${n}`;
}

/** The name a column is written as: a repeated output name's (see DUPLICATE_COLUMN_MARK), any other as itself. */
export function writtenColumnName(column: string): string {
  const i = column.indexOf(DUPLICATE_COLUMN_MARK);
  return i > 0 ? column.slice(0, i) : column;
}

/**
 * The name a side's column (Scope.sides: `name` lower-cased → the row's `column`) is written as:
 * a repeated name's, a disambiguated join column's (`a.Value` for `value`) its last part, any
 * other the column itself.
 */
export function writtenName(name: string, column: string): string {
  if (writtenColumnName(column) !== column) return writtenColumnName(column);
  return column.toLowerCase() === name ? column : column.slice(column.length - name.length);
}
