/**
 * Where a job spec (raw, stored, or parsed) writes its sources: `source` (one), or `sources` (a
 * list, in order). Everything that reads sources from an unvalidated spec (validation, path
 * confinement, outbound checks, secret masking) walks them here, so none misses a source.
 * No imports: the trust-boundary checks use it without loading the registries.
 */
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A parsed one-source spec written back (`{...spec, source: {...spec.source, …}}`, as a preview or
 * an edit does) has both fields: its `source` is the one, whatever `sources` still says.
 */
export function isOneSourceSpecWrittenBack(raw: unknown): boolean {
  return isPlainObject(raw) && raw.source !== undefined && Array.isArray(raw.sources) && raw.sources.length === 1;
}

/** The sources a raw spec writes, with the field path of each: `source`, or `sources.0`, `sources.1`, … */
export function rawSourcesOf(input: unknown): { path: string; source: unknown }[] {
  const raw = isPlainObject(input) ? input : {};
  if (Array.isArray(raw.sources) && !isOneSourceSpecWrittenBack(raw)) return raw.sources.map((source, i) => ({ path: `sources.${i}`, source }));
  return raw.source === undefined ? [] : [{ path: 'source', source: raw.source }];
}

