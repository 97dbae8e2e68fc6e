'use client';
/**
 * The sign-in form: a username and password (the admin user is created at first start, from
 * WEIR_ADMIN_PASSWORD or with a one-time password npm start prints), or an API token. POST /api/auth/signin sets the HttpOnly session cookie;
 * the form never sees or stores it, then goes to `next` (same-site paths only).
 */
import { useState, type FormEvent } from 'react';
import { useHydrated } from '@/components/use-hydrated';

type Mode = 'password' | 'token';

function safeNext(next: string | undefined): string {
  // Only a path on this site: `//evil.example` or `https://…` would be an open redirect.
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function SignInForm({ next }: { next?: string }) {
  const [mode, setMode] = useState<Mode>('password');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const hydrated = useHydrated();

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const body = mode === 'token' ? { token: String(form.get('token') ?? '') } : { username: String(form.get('username') ?? ''), password: String(form.get('password') ?? '') };
    setBusy(true);
    setError(null);
    try {
      const res = await fetch('/api/auth/signin', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin' });
      if (!res.ok) {
        const j = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
        setError(j?.error?.message ?? `Sign-in failed (${res.status}).`);
        return;
      }
      const signedIn = (await res.json().catch(() => null)) as { mustChangePassword?: boolean } | null;
      // A one-time password: choose your own first (every page would lead there anyway).
      window.location.assign(signedIn?.mustChangePassword ? `/account/password?next=${encodeURIComponent(safeNext(next))}` : safeNext(next));
    } catch (err) {
      setError(`Could not reach the server: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  }

  return (
    // method="post": even a submit that got past the disabled controls never puts the password in a URL.
    <form className="panel signin-form" method="post" onSubmit={(e) => void onSubmit(e)} aria-label="Sign in" aria-busy={!hydrated}>
      <fieldset className="plain" disabled={!hydrated}>
        <fieldset className="actions" style={{ border: 'none', padding: 0, margin: '0 0 12px' }}>
          <legend className="small muted-text">Sign in with</legend>
          <label className="choice">
            <input type="radio" name="mode" value="password" checked={mode === 'password'} onChange={() => setMode('password')} /> Username and password
          </label>
          <label className="choice">
            <input type="radio" name="mode" value="token" checked={mode === 'token'} onChange={() => setMode('token')} /> API token
          </label>
        </fieldset>
        {mode === 'password' ? (
          <div className="form-grid">
            <label>
              Username
              {/* A placeholder, not a value: typing the name into a prefilled field doubled it. */}
              <input name="username" autoComplete="username" required placeholder="admin" />
            </label>
            <label>
              Password
              <input name="password" type="password" autoComplete="current-password" required />
            </label>
          </div>
        ) : (
          <label>
            API token
            <input name="token" type="password" autoComplete="off" required />
          </label>
        )}
        {error ? (
          <div className="error-box" role="alert" style={{ marginTop: 12 }}>
            {error}
          </div>
        ) : null}
        <div className="actions" style={{ marginTop: 12 }}>
          <button type="submit" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </div>
      </fieldset>
    </form>
  );
}
