import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { navPrincipal } from '@/lib/server/http/page-auth';
import { Nav } from '@/components/nav';
import { Providers } from '@/components/providers';
import './globals.css';

export const metadata: Metadata = {
  title: 'Weir',
  description: 'Streaming queries with Spark Structured Streaming semantics, brought back clean.',
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Signed out (no live session), the navigation asks the API nothing: no 401s in the console.
  // Until a one-time password is replaced the API answers only who is signed in, so the alert
  // badge waits too (it would log a 403 on the password page).
  const p = await navPrincipal();
  const signedIn = p !== undefined;
  const alerts = signedIn && !p.mustChangePassword;
  return (
    <html lang="en">
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <div className="shell">
          <Nav signedIn={signedIn} alerts={alerts} />
          <main id="main" tabIndex={-1}>
            <Providers>{children}</Providers>
          </main>
        </div>
      </body>
    </html>
  );
}
