import { ContractsTable } from '@/components/contracts-table';
import { prisma } from '@/lib/server/db';
import { contractsQuerySchema } from '@/lib/server/http/api-schemas';
import { listContracts } from '@/lib/server/contracts/contract-audit-presenter';
import { requirePagePrincipal } from '@/lib/server/http/page-auth';

export const dynamic = 'force-dynamic';

/**
 * The fleet's contract audit: the postmortem's "which other streams append blindly", with the
 * rows each would double on its next replay and the change that fixes it. Sorting and filters
 * live in the URL, so a filtered view can be linked from a postmortem and exported as it is.
 */
export default async function ContractsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await requirePagePrincipal('/audit/contracts');
  const raw = Object.fromEntries(Object.entries(await searchParams).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
  // A hand-edited URL with a bad value shows the unfiltered audit rather than an error page.
  const parsed = contractsQuerySchema.safeParse(raw);
  const { format: _format, ...query } = parsed.success ? parsed.data : contractsQuerySchema.parse({});
  let data: Awaited<ReturnType<typeof listContracts>> | null = null;
  let error: string | null = null;
  try {
    data = await listContracts(prisma(), query);
  } catch (e) {
    error = (e as Error).message;
  }
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Contract audit</h1>
          <p className="subtitle">
            Every job&apos;s exactly-once contract: which signature is missing and why, how many rows its next replay would write twice, and what to change.
          </p>
        </div>
      </div>
      {error || !data ? (
        <div className="error-box" role="alert">
          Could not load the contract audit from the database: {error}. Check <a href="/api/health">/api/health</a>.
        </div>
      ) : (
        <ContractsTable data={data} query={query} invalidQuery={!parsed.success} />
      )}
    </>
  );
}
