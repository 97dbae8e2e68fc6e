'use client';
/** Who is signed in (GET /api/auth/me), for showing only the actions the role allows. */
import { useQuery } from '@tanstack/react-query';
import { apiFetch, ApiError } from './api-client';
import { queryKeys } from './query-keys';

export type Role = 'viewer' | 'operator' | 'admin';
export interface Me {
  /** As the audit log records it: `user:<username>` or `token:<token name>`. */
  actor: string;
  /** What a person reads: the username or the token's name. */
  name: string;
  role: Role;
}

const ORDER: Role[] = ['viewer', 'operator', 'admin'];

export function roleAllows(role: Role | undefined, needed: Role): boolean {
  return role !== undefined && ORDER.indexOf(role) >= ORDER.indexOf(needed);
}

/** `me` is null when nobody is signed in (401), undefined while loading. */
export function useMe() {
  return useQuery({
    queryKey: queryKeys.me(),
    queryFn: async (): Promise<Me | null> => {
      try {
        return await apiFetch<Me>('/api/auth/me');
      } catch (e) {
        if (e instanceof ApiError && e.status === 401) return null;
        throw e;
      }
    },
    staleTime: 60_000,
  });
}
