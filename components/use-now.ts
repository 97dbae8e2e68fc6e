'use client';
/**
 * The current time, ticking: relative times ("committed 4 s ago") are computed from it, so they
 * advance on the client instead of freezing at the server's render time. Starts at the time the
 * server rendered with (`initial`), so the hydrated HTML matches, then follows the clock.
 */
import { useEffect, useState } from 'react';

export function useNow(initial: number, intervalMs = 1000): number {
  const [now, setNow] = useState(initial);
  useEffect(() => {
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(t);
  }, [intervalMs]);
  return now;
}
