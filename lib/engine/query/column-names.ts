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

/**
 * A join's columns by the qualifiers of its sides (Scope.sides), from each side's qualifiers and
 * columns in the join's order. Two sides may have one name (`t JOIN t`, a CTE and a subquery
 * aliased alike), which qualifies both sides' columns, as in Spark: the later side's columns
 * join the earlier's under the qualifier, a name both have as duplicateColumn(name, n), a key no
 * SQL writes, so that the name reads neither side's column, qualified or not (Spark's
 * AMBIGUOUS_REFERENCE), and `t.*` is both sides' columns.
 */
export function sidesByQualifier(entries: Iterable<readonly [string, ReadonlyMap<string, string>]>): Map<string, ReadonlyMap<string, string>> {
  const sides = new Map<string, Map<string, string>>();
  for (const [qualifier, columns] of entries) {
    const side = sides.get(qualifier);
    if (!side) {
      sides.set(qualifier, new Map(columns));
      continue;
    }
    const held = new Set(side.values());
    for (const [name, column] of columns) {
      if (held.has(column)) continue;
      let key = name;
      for (let n = 1; side.has(key); n++) key = duplicateColumn(writtenColumnName(name), n);
      side.set(key, column);
    }
  }
  return sides;
}

/**
 * The name (lower-cased) a column of a join side (Scope.sides) is read by, from its key there: a
 * column that a second side of the qualifier's name has too is read by the name its key marks
 * (sidesByQualifier); a subquery's repeated output name keys its own row column, which is itself.
 */
export function sideColumnName(key: string, column: string): string {
  return key === column.toLowerCase() ? key : writtenColumnName(key);
}
