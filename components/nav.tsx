import Link from 'next/link';
import { AlertBadge } from './alert-badge';
import { AtLeastOnceBadge } from './contract-badge';
import { NavSession } from './nav-session';

/**
 * `signedIn`: a live session (the layout checks it); signed out, nothing asks the API and the
 * pages' links are left out (each would lead to sign-in). `alerts`:
 * the session may read the API (not while a one-time password waits to be replaced), so the
 * badges that poll it (alerts, at-least-once jobs) show only then.
 */
export function Nav({ current, signedIn = true, alerts = signedIn }: { current?: string; signedIn?: boolean; alerts?: boolean }) {
  return (
    <nav className="nav" aria-label="Main">
      <div className="brand">
        Weir<small>streaming queries, brought back clean</small>
      </div>
      {/* Signed out, every page but sign-in leads to sign-in: no links that only go there. */}
      {signedIn && (
        <>
          <Link href="/" aria-current={current === '/' ? 'page' : undefined}>
            Jobs
          </Link>
          <Link href="/jobs/new" aria-current={current === '/jobs/new' ? 'page' : undefined}>
            New job
          </Link>
          <Link href="/alerts" aria-current={current === '/alerts' ? 'page' : undefined}>
            Alerts {alerts && <AlertBadge />}
          </Link>
          <Link href="/audit/contracts" aria-current={current === '/audit/contracts' ? 'page' : undefined}>
            Contracts {alerts && <AtLeastOnceBadge />}
          </Link>
          <Link href="/demo" aria-current={current === '/demo' ? 'page' : undefined}>
            Demo
          </Link>
        </>
      )}
      <div className="spacer" />
      <NavSession signedIn={signedIn} />
      <a href="/api/health" className="meta">API health</a>
    </nav>
  );
}
