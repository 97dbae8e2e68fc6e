import { apiRoute, parseQuery } from '@/lib/server/http/api-handler';
import { contractsQuerySchema } from '@/lib/server/http/api-schemas';
import { contractsCsv, listContracts } from '@/lib/server/contracts/contract-audit-presenter';

export const dynamic = 'force-dynamic';

/** The fleet's contract audit; ?format=csv for the same rows as a spreadsheet. */
export const GET = apiRoute('viewer', 'read the contract audit', async ({ req, db }) => {
  const { format, ...query } = parseQuery(req, contractsQuerySchema);
  const audit = await listContracts(db, query);
  if (format === 'json') return audit;
  return new Response(contractsCsv(audit.items), {
    headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment; filename="weir-contracts.csv"' },
  });
});
