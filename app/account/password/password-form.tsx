'use client';
/**
 * POST /api/auth/password with the current password and the new one (typed twice), then on to
 * `next` (same-site paths only).
 */
import { useState, type FormEvent } from 'react';
import { useHydrated } from '@/components/use-hydrated';

const MIN_LENGTH = 12; // as MIN_PASSWORD_LENGTH in lib/server/auth.ts, which decides

function safeNext(next: string | undefined): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/account/password') ? next : '/';
}

export function PasswordForm({ next, oneTime }: { next?: string; oneTime: boolean }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const hydrated = useHydrated();

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const currentPassword = String(form.get('currentPassword') ?? '');
    const newPassword = String(form.get('newPassword') ?? '');
    if (newPassword !== String(form.get('confirmPassword') ?? '')) {
      setError('The two new passwords differ: type the same one twice.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const res = await fetch('/api/auth/password', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ currentPassword, newPassword }),
        credentials: 'same-origin',
      });
      if (!res.ok) {
        const j = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
        setError(j?.error?.message ?? `Changing the password failed (${res.status}).`);
        return;
      }
      window.location.assign(safeNext(next));
    } catch (err) {
      setError(`Could not reach the server: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="panel signin-form" method="post" onSubmit={(e) => void onSubmit(e)} aria-label="Set password" aria-busy={!hydrated}>
      <fieldset className="plain" disabled={!hydrated}>
        <div className="form-grid">
          <label>
            {oneTime ? 'One-time password' : 'Current password'}
            <input name="currentPassword" type="password" autoComplete="current-password" required />
          </label>
          <label>
            New password
            <input name="newPassword" type="password" autoComplete="new-password" required minLength={MIN_LENGTH} aria-describedby="password-rule" />
          </label>
          <label>
            New password again
            <input name="confirmPassword" type="password" autoComplete="new-password" required minLength={MIN_LENGTH} />
          </label>
        </div>
        <p id="password-rule" className="small muted-text">
          At least {MIN_LENGTH} characters.
        </p>
        {error ? (
          <div className="error-box" role="alert" style={{ marginTop: 12 }}>
            {error}
          </div>
        ) : null}
        <div className="actions" style={{ marginTop: 12 }}>
          <button type="submit" disabled={busy}>
            {busy ? 'Saving…' : 'Set password'}
          </button>
        </div>
      </fieldset>
    </form>
  );
}
