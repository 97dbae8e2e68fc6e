'use client';
/**
 * The navigation's count of at-least-once jobs: the streams whose next replay writes a batch
 * twice. Polls GET /api/contracts/summary itself (the navigation sits outside the react-query
 * provider, as AlertBadge explains); renders nothing while the count is zero or nobody is signed in.
 */
import { useEffect, useState } from 'react';

export function AtLeastOnceBadge({ pollMs = 15000 }: { pollMs?: number }) {
  const [count, setCount] = useState<number | undefined>(undefined);
  useEffect(() => {
    let live = true;
    const load = async () => {
      try {
        const res = await fetch('/api/contracts/summary', { credentials: 'same-origin', cache: 'no-store' });
        if (res.status === 401) return clearInterval(t);
        if (!res.ok) return;
        const s = (await res.json()) as { atLeastOnce: number };
        if (live) setCount(s.atLeastOnce);
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
  }, [pollMs]);
  if (!count) return null;
  const label = `${count} at-least-once job${count === 1 ? '' : 's'}`;
  // No status role: the link's name carries the count ("Contracts, 3 at-least-once jobs"), and
  // the alert count stays the navigation's one live status.
  return (
    <span data-testid="nav-at-least-once" title={label}>
      <span className="badge warn" aria-hidden="true">
        {count}
      </span>
      <span className="visually-hidden">, {label}</span>
    </span>
  );
}
