import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildTree, flattenFiles } from './checkpoint-tree';

describe('buildTree', () => {
  it('orders batch files numerically and directories before files', () => {
    const tree = buildTree([
      { path: 'offsets/10', size: 3 },
      { path: 'metadata', size: 45 },
      { path: 'offsets/9', size: 3 },
      { path: 'commits/9', size: 2 },
      { path: 'state/0/0/1.delta', size: 7 },
    ]);
    expect(tree.map((n) => n.name)).toEqual(['commits', 'offsets', 'state', 'metadata']);
    expect(flattenFiles(tree)).toEqual(['commits/9', 'offsets/9', 'offsets/10', 'state/0/0/1.delta', 'metadata']);
    expect(tree[3]).toEqual({ name: 'metadata', path: 'metadata', size: 45 });
  });

  it('keeps every file exactly once (property)', () => {
    const seg = fc.stringMatching(/^[a-z0-9]{1,4}$/);
    fc.assert(
      fc.property(fc.uniqueArray(fc.array(seg, { minLength: 1, maxLength: 4 }).map((p) => p.join('/')), { maxLength: 30 }), (paths) => {
        // A path cannot be both a file and a directory in a real checkpoint.
        const files = paths.filter((p) => !paths.some((q) => q.startsWith(p + '/')));
        const out = flattenFiles(buildTree(files.map((path) => ({ path, size: 1 }))));
        expect([...out].sort()).toEqual([...files].sort());
      }),
      { numRuns: 200, seed: 5 },
    );
  });
});
