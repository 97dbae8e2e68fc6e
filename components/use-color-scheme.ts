'use client';
/**
 * The system's colour scheme (prefers-color-scheme), following changes while the page is open.
 * The page's own colours follow it in CSS; this is for what styles itself in script, such as the
 * SQL editor's syntax colours (the light ones are unreadable on the dark background). The server
 * renders light; the client switches once hydrated.
 */
import { useSyncExternalStore } from 'react';

const QUERY = '(prefers-color-scheme: dark)';

function subscribe(onChange: () => void): () => void {
  const mq = window.matchMedia(QUERY);
  mq.addEventListener('change', onChange);
  return () => mq.removeEventListener('change', onChange);
}

export function useColorScheme(): 'light' | 'dark' {
  return useSyncExternalStore(
    subscribe,
    () => (window.matchMedia(QUERY).matches ? 'dark' : 'light'),
    () => 'light',
  );
}
