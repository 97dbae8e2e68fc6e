/**
 * Whether a files source's folder exists, for a warning before the job deploys and on its page:
 * the run fails at start with PATH_NOT_FOUND when it is absent (files-source.ts). Only a folder
 * inside the files roots is looked at: of a path outside them the caller learns nothing, not even
 * whether it exists (that is the confinement's 422 to say).
 */
import 'server-only';
import { statSync } from 'node:fs';
import { PathNotFoundError, resolvePathField, specPathFields, type SpecIssue } from '@/lib/engine';

const SOURCE_PATH = 'source.options.path';

/** The warning for the spec's files source when its folder is missing; none otherwise. */
export function missingSourceFolder(spec: unknown, filesRoots: string[]): SpecIssue[] {
  const field = specPathFields(spec).find((f) => f.field === SOURCE_PATH);
  if (!field) return [];
  const r = resolvePathField(field.field, field.value, field.kind, { filesRoots });
  if (!r.ok || !r.local) return [];
  try {
    statSync(r.location);
    return [];
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return [];
    return [{ path: SOURCE_PATH, message: new PathNotFoundError(r.location).message }];
  }
}
