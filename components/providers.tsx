'use client';
/**
 * The client-side data layer for every page: one QueryClient per browser tab. Server components
 * prefetch and pass initial data; client components keep it fresh through react-query.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          // An auth or validation error will not fix itself on retry; a network blip might.
          queries: { staleTime: 1000, retry: (n, e) => n < 2 && ((e as unknown as { status?: number }).status ?? 500) >= 500, refetchOnWindowFocus: false },
        },
      }),
  );
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
