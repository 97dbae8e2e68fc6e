import { JobEditor } from '@/components/job-editor';
import { env } from '@/lib/env';
import { connectorCatalog } from '@/lib/server/connector-catalog';
import { requirePagePrincipal } from '@/lib/server/http/page-auth';

export const dynamic = 'force-dynamic';

export const metadata = { title: 'New job · Weir' };

export default async function NewJobPage() {
  await requirePagePrincipal('/jobs/new');
  return (
    <>
      <p className="small">
        <a href="/">Jobs</a> /
      </p>
      <h1>New job</h1>
      <p className="subtitle">Write the query, pick a source, a sink and an output mode; the editor checks everything as you type.</p>
      <JobEditor mode="new" connectors={connectorCatalog(env().filesRoots)} />
    </>
  );
}
