/**
 * The jobs page keeps its filter, sort and page in the URL, so a view can be shared, reloaded
 * and left with Back. This is the one place that turns the page's query into a URL; the server
 * parses it with the API's own schema (jobsQuerySchema).
 */
export interface JobsListParams {
  q?: string;
  status?: string;
  guarantee?: string;
  firing?: 'true' | 'false';
  sort?: string;
  dir?: 'asc' | 'desc';
  cursor?: string;
}

/** `/` with the non-default parameters; defaults (sort by name, ascending) stay out of the URL. */
export function jobsListHref(p: JobsListParams): string {
  const s = new URLSearchParams();
  if (p.q?.trim()) s.set('q', p.q.trim());
  if (p.status) s.set('status', p.status);
  if (p.guarantee) s.set('guarantee', p.guarantee);
  if (p.firing) s.set('firing', p.firing);
  if (p.sort && p.sort !== 'name') s.set('sort', p.sort);
  if (p.dir && p.dir !== 'asc') s.set('dir', p.dir);
  if (p.cursor) s.set('cursor', p.cursor);
  const text = s.toString();
  return text ? `/?${text}` : '/';
}
