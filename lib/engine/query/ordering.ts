/**
 * Spark's order of values (its InterpretedOrdering): one comparison for the comparison operators,
 * IN and CASE, greatest and least, min, max, max_by and min_by, the array functions that sort,
 * pick or search, and ORDER BY.
 */

/**
 * Spark's ordering of two non-NULL values of one type: numbers (NaN above everything, as Spark
 * orders doubles; a BIGINT past 2^53 is a bigint beside numbers), strings by code unit, false
 * before true, decimals' bigints, binary byte by byte (unsigned), arrays element by element (NULL
 * first, then the shorter first), structs (a window too) field by field (NULL first).
 */
export function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) ? (Number.isNaN(b) ? 0 : 1) : -1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) {
    if (Array.isArray(a) && Array.isArray(b)) return compareSequences(a, b, a.length, b.length);
    if (a instanceof Uint8Array && b instanceof Uint8Array) {
      for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
      return a.length - b.length;
    }
    const ra = a as Record<string, unknown>, rb = b as Record<string, unknown>;
    const fields = Object.keys(ra);
    return compareSequences(fields.map((f) => ra[f]), fields.map((f) => rb[f]), fields.length, fields.length);
  }
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

/**
 * One ORDER BY key's comparison of two values (Sort, a window's ORDER BY): NULLs before the rest
 * when `nullsFirst`, else after them, whatever the direction; the rest by compareValues, reversed
 * when descending.
 */
export function compareSortKey(a: unknown, b: unknown, ascending: boolean, nullsFirst: boolean): number {
  const aNull = a === null || a === undefined, bNull = b === null || b === undefined;
  if (aNull || bNull) return aNull && bNull ? 0 : aNull === nullsFirst ? -1 : 1;
  const c = compareValues(a, b);
  return ascending ? c : -c;
}

/**
 * SQL's `=` of two non-NULL values of one type other than a map (Spark's EqualTo, and the
 * ordering.equiv of array_contains, array_position, array_remove): equal in Spark's order, so
 * NaN equals NaN and -0.0 equals 0.0, at any depth of arrays and structs, and NULLs inside are
 * equal to each other.
 */
export function sqlEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number') return typeof b === 'number' && a !== a && b !== b;
  return typeof a === 'object' && typeof b === 'object' && a !== null && b !== null && compareValues(a, b) === 0;
}

function compareSequences(a: unknown[], b: unknown[], na: number, nb: number): number {
  for (let i = 0; i < Math.min(na, nb); i++) {
    const x = a[i] ?? null, y = b[i] ?? null;
    if (x === null || y === null) { if (x !== y) return x === null ? -1 : 1; continue; }
    const c = compareValues(x, y);
    if (c !== 0) return c;
  }
  return na - nb;
}
