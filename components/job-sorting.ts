/**
 * Filtering and sorting of the jobs list, in the browser (the list is small; no round trip per
 * click). Nulls sort last whichever the direction: a job with no batch yet is not "fastest".
 */
import type { JobOverview } from '@/lib/server/presenters/job-overview-presenter';

export type JobSortKey = 'name' | 'status' | 'lastCommittedAt' | 'inputRowsPerSecond' | 'commitLag' | 'stateRowsTotal' | 'alerts';

/** Filter by status and a name substring, then sort; nulls last whatever the direction. */
export function filterAndSortJobs(
  jobs: JobOverview[],
  opts: { q?: string; status?: string; sort?: JobSortKey; dir?: 'asc' | 'desc' },
): JobOverview[] {
  const q = opts.q?.trim().toLowerCase();
  const filtered = jobs.filter((j) => (!opts.status || j.status === opts.status) && (!q || j.name.toLowerCase().includes(q)));
  const key = opts.sort ?? 'name';
  const sign = opts.dir === 'desc' ? -1 : 1;
  const value = (j: JobOverview): string | number | null => {
    switch (key) {
      case 'name':
        return j.name.toLowerCase();
      case 'status':
        return j.status;
      case 'lastCommittedAt':
        return j.lastCommittedAt ? Date.parse(j.lastCommittedAt) : null;
      case 'alerts':
        return j.firingAlerts.length;
      // Every member listed, so that a new one is a lint error until it is handled here.
      case 'commitLag': case 'inputRowsPerSecond': case 'stateRowsTotal':
      default:
        return j[key];
    }
  };
  return [...filtered].sort((a, b) => {
    const va = value(a);
    const vb = value(b);
    if (va === null && vb === null) return a.name.localeCompare(b.name);
    if (va === null) return 1;
    if (vb === null) return -1;
    const c = va < vb ? -1 : va > vb ? 1 : 0;
    return c !== 0 ? sign * c : a.name.localeCompare(b.name);
  });
}
