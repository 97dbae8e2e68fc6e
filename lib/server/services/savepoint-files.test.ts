/**
 * Which files a savepoint copies from a checkpoint listing: exactly what the last commit N
 * references (logs up to N, state up to version N+1), and a listing that retention has left
 * unable to load version N+1 is reported for a retry rather than copied. Checked against an
 * oracle over random lineages: a store's versions are loadable from the newest snapshot whose
 * deltas are all there.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { filesOfLastCommit } from './savepoint-manifest';

describe('filesOfLastCommit', () => {
  it('takes logs up to N and state up to N+1, leaving batch N+1 out', () => {
    const picked = filesOfLastCommit([
      'commits/3', 'commits/4', 'metadata', 'offsets/3', 'offsets/4', 'offsets/5', 'progress/4', 'progress/5',
      'sources/0/4.compact', 'sources/0/5', 'state/0/0/4.snapshot', 'state/0/0/5.delta', 'state/0/0/6.delta', 'state/0/_metadata/schema',
    ]);
    expect(picked).toEqual({
      batchId: 4,
      paths: ['commits/3', 'commits/4', 'metadata', 'offsets/3', 'offsets/4', 'progress/4', 'sources/0/4.compact', 'sources/0/5', 'state/0/0/4.snapshot', 'state/0/0/5.delta', 'state/0/_metadata/schema'],
    });
  });

  it('copies an lmdb store\'s changelogs as it copies deltas', () => {
    const listing = ['commits/4', 'offsets/4', 'state/0/0/4.snapshot', 'state/0/0/5.changelog', 'state/0/0/6.changelog'];
    expect(filesOfLastCommit(listing)).toEqual({ batchId: 4, paths: ['commits/4', 'offsets/4', 'state/0/0/4.snapshot', 'state/0/0/5.changelog'] });
    expect(filesOfLastCommit(['commits/4', 'offsets/4', 'state/0/0/3.snapshot', 'state/0/0/5.changelog'])).toMatchObject({ batchId: null });
  });

  it('asks for a retry when version N+1 cannot be loaded from the listing, and refuses no commit', () => {
    expect(filesOfLastCommit(['metadata', 'offsets/0'])).toEqual({ batchId: null, reason: 'no committed batch' });
    // Retention deleted delta 4 after a snapshot at 6 appeared; the listing came from before 6 was written.
    expect(filesOfLastCommit(['commits/4', 'offsets/4', 'state/0/0/3.snapshot', 'state/0/0/5.delta'])).toMatchObject({ batchId: null, reason: expect.stringMatching(/state\/0\/0 cannot load version 5/) });
    // A store whose listing holds only later versions cannot load N+1.
    expect(filesOfLastCommit(['commits/4', 'offsets/4', 'state/0/0/8.snapshot'])).toMatchObject({ batchId: null });
    // A commit whose offsets retention already removed is not the one copied.
    expect(filesOfLastCommit(['commits/4', 'commits/5', 'offsets/4', 'state/0/0/5.delta', 'state/0/0/4.snapshot'])).toMatchObject({ batchId: 4 });
  });

  it('agrees with a loadability oracle over random listings', () => {
    fc.assert(
      fc.property(fc.nat(12), fc.uniqueArray(fc.tuple(fc.integer({ min: 1, max: 16 }), fc.boolean()), { selector: ([v, s]) => `${v}${s}`, maxLength: 20 }), (n, files) => {
        const paths = [`commits/${n}`, `offsets/${n}`, ...files.map(([v, snap]) => `state/0/0/${v}.${snap ? 'snapshot' : 'delta'}`)];
        const picked = filesOfLastCommit(paths);
        const deltas = new Set(files.filter(([, s]) => !s).map(([v]) => v));
        // No state file listed: a stateless query, nothing to load.
        const loadable = files.length === 0 || [0, ...files.filter(([v, s]) => s && v <= n + 1).map(([v]) => v)].some((base) => {
          for (let v = base + 1; v <= n + 1; v++) if (!deltas.has(v)) return false;
          return true;
        });
        expect(picked.batchId !== null).toBe(loadable);
        if (picked.batchId !== null) {
          for (const p of picked.paths) {
            const v = /\/(\d+)\.(delta|snapshot)$/.exec(p);
            if (v) expect(Number(v[1])).toBeLessThanOrEqual(n + 1);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
