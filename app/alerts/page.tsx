import { AlertsPanel } from '@/components/alerts-panel';
import { prisma } from '@/lib/server/db';
import { alertsPageData } from '@/lib/server/alerts/alert-presenter';
import { requirePagePrincipal } from '@/lib/server/http/page-auth';

export const dynamic = 'force-dynamic';

/** Alerts: firing first, resolved history, the rules and the create-rule form (docs/alerts.md). */
export default async function AlertsPage() {
  await requirePagePrincipal('/alerts');
  let data: Awaited<ReturnType<typeof alertsPageData>> | null = null;
  let error: string | null = null;
  try {
    data = await alertsPageData(prisma());
  } catch (e) {
    error = (e as Error).message;
  }
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Alerts</h1>
          <p className="subtitle">State growth, lag, stalls and failures: hear about a stream before it hurts.</p>
        </div>
      </div>
      {error || !data ? (
        <div className="error-box" role="alert">
          Could not load alerts from the database: {error}. Check <a href="/api/health">/api/health</a>.
        </div>
      ) : (
        <AlertsPanel initialAlerts={data.alerts} initialRules={data.rules} jobs={data.jobs} />
      )}
    </>
  );
}
