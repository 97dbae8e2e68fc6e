/**
 * Whether a files source's folder exists, for a warning before the job deploys and on its page:
 * the run fails at start with PATH_NOT_FOUND when it is absent (files-source.ts). Only a folder
 * inside the files roots is looked at: of a path outside them the caller learns nothing, not even
 * whether it exists (that is the confinement's 422 to say).
 */
import 'server-only';
import { statSync } from 'node:fs';
import { PathNotFoundError, resolvePathField, specPathFields, type SpecIssue } from '@/lib/engine';

/** A files source's folder field: `source.options.path`, or `sources.<i>.options.path`. */
const SOURCE_PATH = /^(source|sources\.\d+)\.options\.path$/;

/** The warning for each of the spec's files sources whose folder is missing; none otherwise. */
export function missingSourceFolder(spec: unknown, filesRoots: string[]): SpecIssue[] {
  return specPathFields(spec)
    .filter((f) => SOURCE_PATH.test(f.field))
    .flatMap((field) => {
      const r = resolvePathField(field.field, field.value, field.kind, { filesRoots });
      if (!r.ok || !r.local) return [];
      try {
        statSync(r.location);
        return [];
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return [];
        return [{ path: field.field, message: new PathNotFoundError(r.location).message }];
      }
    });
}
