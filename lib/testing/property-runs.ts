/**
 * How many random cases a property or differential test runs: its `quick` count in a plain
 * `npm run test:unit`, which runs on every change and pays for every case each time, and its
 * `thorough` count with WEIR_THOROUGH_TESTS=1 (after changing what such a test covers, or to
 * search further for a counterexample). fast-check draws the same cases from the same seed
 * whatever the count, so the quick cases are the first of the thorough ones.
 */
const THOROUGH = process.env.WEIR_THOROUGH_TESTS === '1';

export function propertyRuns(quick: number, thorough: number): number {
  return THOROUGH ? thorough : quick;
}
