import { describe, expect, it } from 'vitest';
import { startPositionOf } from './reprocessing-guard';

describe('where a query with no checkpoint starts reading (the reprocessing warning)', () => {
  const files = (name: string, dir: string) => ({ name, type: 'files', options: { path: dir, format: 'json' } });

  it('names each source of a job of several, not an undefined one', () => {
    const position = startPositionOf({ sources: [files('impressions', '/data/imp'), { name: 'clicks', type: 'rate', options: {} }] });
    expect(position).toBe('the beginning of files source impressions: every file still in /data/imp, and offset 0 of the rate source');
    expect(position).not.toContain('undefined');
  });

  it('reads a one-source spec as before', () => {
    expect(startPositionOf({ source: files('clicks', '/data/clicks') })).toBe('the beginning of files source clicks: every file still in /data/clicks');
  });
});
