import { DemoPanel } from '@/components/demo-panel';
import { requirePagePrincipal } from '@/lib/server/http/page-auth';

export const dynamic = 'force-dynamic';

export default async function DemoPage() {
  await requirePagePrincipal('/demo');
  return (
    <>
      <h1>Demo: the duplicate window</h1>
      <p className="subtitle">
        Two jobs read the same replayable orders source and sum revenue per region in PostgreSQL. Crash each one after the sink write and
        before the commit: the re-run of that batch doubles its orders in the bare append, and the transactional sink recognizes the
        replayed batch id and commits nothing. Then lose the bare-append job&apos;s checkpoint: the new query reads every order again, and the
        duplicates span all of history instead of one batch. The duplicate diagnosis tells the two incidents apart.
      </p>
      <DemoPanel />
    </>
  );
}
