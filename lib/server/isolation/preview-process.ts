/**
 * A preview process: one editor Preview (the query over a pasted sample or over the source's
 * most recent records), alone in a Node process whose heap is WEIR_PREVIEW_MEMORY_MB and whose
 * life the API ends at the preview's time limit (preview-host.ts forks it). Whatever the query
 * does here (a heap exhausted, minutes of CPU in one expression), the API's event loop and heap
 * are untouched.
 *
 * The spec arrives validated and confined by the API; it is checked again here against the same
 * roots and outbound policy (as a run start checks again), and the policy is installed so that
 * every connection the source opens obeys it. Bundled by child-bundle.ts and run as plain
 * JavaScript: nothing here may import a module marked server-only.
 */
import '@/lib/connectors'; // registers the connectors' source types
import { confineSpecPaths, previewQuery, previewRecentRecords, setOutboundPolicy, validateJob, WeirError, type QueryPreview } from '@/lib/engine';
import { InvalidJobSpecError } from '../errors';
import type { HostToPreview, PreviewRequest, PreviewToHost } from './preview-protocol';
import { serializeError } from './serialized-error';

const send = (m: PreviewToHost, then: () => void = () => undefined) => {
  if (process.connected) process.send!(m, then);
  else then();
};

async function preview(r: PreviewRequest) {
  setOutboundPolicy(r.outbound);
  const confined = confineSpecPaths(r.spec, r.roots);
  const v = validateJob(confined.spec, { outbound: r.outbound });
  if (confined.errors.length || !v.ok || !v.spec) throw new InvalidJobSpecError([...confined.errors, ...v.errors], v.warnings);
  try {
    return fitted(await (r.sample ? previewQuery(v.spec, r.sample, { timeoutMs: r.timeoutMs }) : previewRecentRecords(v.spec, { timeoutMs: r.timeoutMs })));
  } catch (e) {
    // V8's own limits on one array or string, reached by a query building too much per record.
    if (e instanceof RangeError && /Invalid (array|string|typed array) length|Array buffer allocation failed|call stack size/i.test(e.message)) {
      throw new WeirError('PREVIEW_RESOURCE_EXHAUSTED', `The preview built a value too large to hold (${e.message}) and was stopped. Preview fewer records, or a query that builds less per record.`, { resource: 'memory' });
    }
    throw e;
  }
}

/** The answer's rows at most this many characters of JSON: 100 rows of 1 MiB values would be 100 MiB in the API. */
const MAX_RESULT_CHARS = 4 * 1024 * 1024;

/** The preview with as many of its first rows as fit MAX_RESULT_CHARS (the rest counted as truncated). */
function fitted(p: QueryPreview): QueryPreview {
  let size = 0;
  let n = 0;
  for (; n < p.rows.length; n++) {
    size += JSON.stringify(p.rows[n]).length + 1;
    if (size > MAX_RESULT_CHARS) break;
  }
  if (n === p.rows.length) return p;
  return { ...p, rows: p.rows.slice(0, n), truncated: true, notes: [...p.notes, `Only the first ${n} rows are shown: the rows are large, and a preview answers with at most 4 MiB of them.`] };
}

process.on('message', (m: HostToPreview) => {
  if (m.t !== 'preview') return;
  preview(m.request).then(
    (result) => send({ t: 'result', preview: result }),
    (e: unknown) => send({ t: 'result', error: serializeError(e) }),
  );
});

const fatal = (e: unknown) => send({ t: 'result', error: serializeError(e) }, () => process.exit(1));
process.on('uncaughtException', fatal);
process.on('unhandledRejection', fatal);
// The API went away or gave up on this preview: nothing is left to answer.
process.on('disconnect', () => process.exit(1));
for (const s of ['SIGINT', 'SIGTERM'] as const) process.on(s, () => process.exit(1));
send({ t: 'ready' });
