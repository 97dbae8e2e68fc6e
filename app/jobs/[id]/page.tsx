import { notFound } from 'next/navigation';
import { JobDetail } from '@/components/job-detail';
import { BATCH_PAGE_SIZE, CHART_POINTS, RUN_PAGE_SIZE } from '@/components/query-keys';
import { env } from '@/lib/env';
import { prisma } from '@/lib/server/db';
import { NotFoundError } from '@/lib/server/errors';
import { batchCharts } from '@/lib/server/presenters/batch-chart-presenter';
import { listBatches } from '@/lib/server/presenters/batches-presenter';
import { getJob } from '@/lib/server/presenters/jobs-presenter';
import { listRuns } from '@/lib/server/presenters/runs-presenter';
import { requirePagePrincipal } from '@/lib/server/http/page-auth';
import { missingSourceFolder } from '@/lib/server/services/source-folder';

export const dynamic = 'force-dynamic';

/** Prefetches the job, its chart series (downsampled), the newest batch page and its runs. */
export default async function JobPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requirePagePrincipal(`/jobs/${id}`);
  const db = prisma();
  try {
    const [job, charts, batches, runs] = await Promise.all([getJob(db, id), batchCharts(db, id, { maxPoints: CHART_POINTS }), listBatches(db, id, { limit: BATCH_PAGE_SIZE }), listRuns(db, id, { limit: RUN_PAGE_SIZE })]);
    const sourceWarnings = missingSourceFolder(job.spec, env().filesRoots).map((w) => w.message);
    return <JobDetail initialJob={job} initialCharts={charts} initialBatches={batches} initialRuns={runs} sourceWarnings={sourceWarnings} now={Date.now()} />;
  } catch (e) {
    if (e instanceof NotFoundError) notFound();
    throw e;
  }
}
