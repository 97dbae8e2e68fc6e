/**
 * Messages between the API (preview-host.ts) and a preview process (preview-process.ts). The
 * child loads the engine and says `ready`; the host sends one `preview`; the child answers one
 * `result` and is killed. Node's IPC with `serialization: 'advanced'` (structured clone).
 */
import type { OutboundPolicy, PathRoots, QueryPreview } from '@/lib/engine';
import type { SerializedError } from './serialized-error';

export interface PreviewRequest {
  /** The spec as the API validated and confined it (absolute paths). */
  spec: Record<string, unknown>;
  /** Pasted records; absent: the source's most recent records. */
  sample?: unknown[];
  /** The roots the spec's paths must lie in: checked again here, as at run start. */
  roots: PathRoots;
  /** The API's outbound policy (allow list, infrastructure), which the preview's connections obey. */
  outbound: Omit<OutboundPolicy, 'resolve'>;
  timeoutMs: number;
}

export type HostToPreview = { t: 'preview'; request: PreviewRequest };

export type PreviewToHost = { t: 'ready' } | { t: 'result'; preview?: QueryPreview; error?: SerializedError };
