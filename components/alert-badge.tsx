'use client';
/**
 * The firing-alert count: in the navigation, the firing alerts nobody has acknowledged yet (what
 * still needs someone); for one job (on its row or page), all its firing alerts. It
 * polls GET /api/alerts/summary itself instead of using react-query, because the navigation sits
 * outside the react-query provider in app/layout.tsx. Renders nothing while there is nothing
 * firing or nobody is signed in (the summary needs a viewer).
 *
 * Usage: `<Link href="/alerts">Alerts <AlertBadge /></Link>`, `<AlertBadge jobId={job.id} />`.
 */
import { useEffect, useState } from 'react';

export function AlertBadge({ jobId, pollMs = 5000, initial }: { jobId?: string; pollMs?: number; initial?: number }) {
  const [count, setCount] = useState<number | undefined>(initial);
  useEffect(() => {
    let live = true;
    const load = async () => {
      try {
        const res = await fetch('/api/alerts/summary', { credentials: 'same-origin', cache: 'no-store' });
        // Signed out (or the session expired): stop asking; the page redirects to sign in.
        if (res.status === 401) return clearInterval(t);
        if (!res.ok) return;
        const s = (await res.json()) as { firing: number; unacknowledged: number; byJob: Record<string, number> };
        if (live) setCount(jobId ? (s.byJob[jobId] ?? 0) : s.unacknowledged);
      } catch {
        // offline or the server restarting: keep the last count
      }
    };
    const t = setInterval(() => void load(), pollMs);
    void load();
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [jobId, pollMs]);
  if (!count) return null;
  return (
    <span
      className="badge bad"
      role="status"
      aria-label={jobId ? `${count} firing alert${count === 1 ? '' : 's'}` : `${count} firing alert${count === 1 ? '' : 's'} not acknowledged`}
      title={jobId ? `${count} firing` : `${count} firing, not acknowledged`}
    >
      {count}
    </span>
  );
}
