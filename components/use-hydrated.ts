'use client';
/**
 * False in the server-rendered HTML and until React has hydrated the component, then true. Forms
 * disable their controls until then: input typed or a submit clicked before hydration is lost,
 * or sent as a native GET that would put a password in the URL.
 */
import { useEffect, useState } from 'react';

export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}
