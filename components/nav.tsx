import Link from 'next/link';
import { AlertBadge } from './alert-badge';
import { NavSession } from './nav-session';

/** `signedIn`: a session cookie is present (read by the layout); signed out, nothing polls the API. */
export function Nav({ current, signedIn = true }: { current?: string; signedIn?: boolean }) {
  return (
    <nav className="nav" aria-label="Main">
      <div className="brand">
        Weir<small>streaming queries, brought back clean</small>
      </div>
      <Link href="/" aria-current={current === '/' ? 'page' : undefined}>
        Jobs
      </Link>
      <Link href="/jobs/new" aria-current={current === '/jobs/new' ? 'page' : undefined}>
        New job
      </Link>
      <Link href="/alerts" aria-current={current === '/alerts' ? 'page' : undefined}>
        Alerts {signedIn && <AlertBadge />}
      </Link>
      <Link href="/demo" aria-current={current === '/demo' ? 'page' : undefined}>
        Demo
      </Link>
      <div className="spacer" />
      <NavSession signedIn={signedIn} />
      <a href="/api/health" className="meta">API health</a>
    </nav>
  );
}
