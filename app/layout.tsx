import type { Metadata } from 'next';
import { cookies } from 'next/headers';
import type { ReactNode } from 'react';
import { SESSION_COOKIE } from '@/lib/server/auth';
import { Nav } from '@/components/nav';
import { Providers } from '@/components/providers';
import './globals.css';

export const metadata: Metadata = {
  title: 'Weir',
  description: 'Streaming queries with Spark Structured Streaming semantics, brought back clean.',
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Signed out (no session cookie), the navigation asks the API nothing: no 401s in the console.
  const signedIn = (await cookies()).has(SESSION_COOKIE);
  return (
    <html lang="en">
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <div className="shell">
          <Nav signedIn={signedIn} />
          <main id="main" tabIndex={-1}>
            <Providers>{children}</Providers>
          </main>
        </div>
      </body>
    </html>
  );
}
