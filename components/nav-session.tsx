'use client';
/**
 * Who is signed in, at the foot of the navigation, with Sign out; or a Sign in link. It asks
 * GET /api/auth/me itself (the navigation sits outside the react-query provider in
 * app/layout.tsx), again after each navigation, so it follows a lapsed session. Signed out (no
 * session cookie, as the layout reads it) it asks nothing: the answer could only be a 401, which
 * the browser logs as an error on every signed-out page. Sign-in and sign-out reload the page, so
 * the layout reads the cookie afresh.
 */
import { usePathname } from 'next/navigation';
import { useEffect, useState } from 'react';

interface Me {
  /** The username or API token name (actor, `user:…`/`token:…`, is the audit log's form). */
  name: string;
  role: string;
}

export function NavSession({ signedIn = true }: { signedIn?: boolean }) {
  const pathname = usePathname();
  /** undefined while loading, null when nobody is signed in. */
  const [me, setMe] = useState<Me | null | undefined>(signedIn ? undefined : null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!signedIn) return;
    let live = true;
    fetch('/api/auth/me', { credentials: 'same-origin', cache: 'no-store' })
      .then(async (res) => {
        if (!live) return;
        if (res.status === 401) setMe(null);
        else if (res.ok) setMe((await res.json()) as Me);
      })
      .catch(() => {
        // offline or the server restarting: keep what we showed
      });
    return () => {
      live = false;
    };
  }, [pathname, signedIn]);

  const signOut = async () => {
    setBusy(true);
    setError(null);
    try {
      const res = await fetch('/api/auth/signout', { method: 'POST', credentials: 'same-origin' });
      if (!res.ok) throw new Error(`the server answered ${res.status}`);
      window.location.assign('/signin');
    } catch (e) {
      setError(`Sign out failed: ${(e as Error).message}. Try again.`);
      setBusy(false);
    }
  };

  if (me === undefined) return null;
  if (me === null) {
    return (
      <a href="/signin" className="meta">
        Sign in
      </a>
    );
  }
  return (
    <div className="meta nav-session" aria-label="Session">
      <span>
        Signed in as <strong>{me.name}</strong> ({me.role})
      </span>
      <button type="button" className="link-button" onClick={() => void signOut()} disabled={busy}>
        {busy ? 'Signing out…' : 'Sign out'}
      </button>
      {error && <span role="alert">{error}</span>}
    </div>
  );
}
