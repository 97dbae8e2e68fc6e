import { notFound } from 'next/navigation';
import { JobEditor } from '@/components/job-editor';
import { env } from '@/lib/env';
import { connectorCatalog } from '@/lib/server/connector-catalog';
import { formFromSpec } from '@/components/job-form';
import { prisma } from '@/lib/server/db';
import { NotFoundError } from '@/lib/server/errors';
import type { JobDetail } from '@/lib/server/job-view';
import { getJob } from '@/lib/server/presenters/jobs-presenter';
import { requirePagePrincipal } from '@/lib/server/http/page-auth';

export const dynamic = 'force-dynamic';

export default async function EditJobPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requirePagePrincipal(`/jobs/${id}/edit`);
  let job: JobDetail;
  try {
    job = await getJob(prisma(), id);
  } catch (e) {
    if (e instanceof NotFoundError) notFound();
    throw e;
  }
  return (
    <>
      <p className="small">
        <a href="/">Jobs</a> / <a href={`/jobs/${id}`}>{job.name}</a> /
      </p>
      <h1>Edit {job.name}</h1>
      <p className="subtitle">
        Changes apply at the next start. A change the checkpoint cannot carry (a new aggregation, a source added or removed) is refused on restart; reset the checkpoint
        for those.
      </p>
      <JobEditor mode="edit" jobId={id} initial={formFromSpec(job.spec, job.description, job.restartPolicy)} connectors={connectorCatalog(env().filesRoots)} />
    </>
  );
}
