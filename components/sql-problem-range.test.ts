import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { problemRange } from './sql-problem-range';

describe('problemRange', () => {
  it('marks the word at the line and column', () => {
    const sql = 'SELECT user,\n  nosuch FROM clicks';
    const r = problemRange(sql, { message: 'x', line: 2, column: 3 });
    expect(sql.slice(r.from, r.to)).toBe('nosuch');
    const q = 'SELECT usr, ts FROM events';
    const r2 = problemRange(q, { message: 'x', line: 1, column: 8 });
    expect(q.slice(r2.from, r2.to)).toBe('usr');
  });

  it('marks the whole text without a position or with one outside it', () => {
    expect(problemRange('SELECT 1', { message: 'x' })).toEqual({ from: 0, to: 8 });
    expect(problemRange('SELECT 1', { message: 'x', line: 5, column: 1 })).toEqual({ from: 0, to: 8 });
  });

  it('always stays inside the text and inside the error’s line (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 12 }).map((s) => s.replace(/\n/g, ' ')), { minLength: 1, maxLength: 5 }), fc.nat(6), fc.nat(15), (lines, l, c) => {
        const text = lines.join('\n');
        const line = (l % lines.length) + 1;
        const r = problemRange(text, { message: 'x', line, column: c + 1 });
        const lineStart = lines.slice(0, line - 1).reduce((s, x) => s + x.length + 1, 0);
        expect(r.from).toBeGreaterThanOrEqual(lineStart);
        expect(r.to).toBeLessThanOrEqual(lineStart + lines[line - 1].length);
        expect(r.from).toBeLessThanOrEqual(r.to);
      }),
      { numRuns: 300, seed: 3 },
    );
  });
});
