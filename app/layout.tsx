import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { Nav } from '@/components/nav';
import { Providers } from '@/components/providers';
import './globals.css';

export const metadata: Metadata = {
  title: 'Weir',
  description: 'Streaming queries with Spark Structured Streaming semantics, brought back clean.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <div className="shell">
          <Nav />
          <main id="main" tabIndex={-1}>
            <Providers>{children}</Providers>
          </main>
        </div>
      </body>
    </html>
  );
}
