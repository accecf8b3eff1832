import type { ClerkClient } from '@clerk/backend';
import { UpstreamError } from '../errors';

/** What the API needs to know about a Clerk user to let them in: the primary email and whether it is verified. */
export interface ClerkUserEmail {
  email: string | null;
  verified: boolean;
  name?: string;
}

export type LookupUserEmail = (userId: string) => Promise<ClerkUserEmail | null>;

export interface ClerkUserLookupOptions {
  secretKey: string;
  /** Clerk Backend API base (https://api.clerk.com; the local emulator's URL in `npm start` and tests). */
  apiUrl?: string;
  /** How long a user's email is reused before asking Clerk again. */
  ttlMs?: number;
  clock?: () => Date;
  /** Bound on cached users (a team is small; this only stops a token flood from growing memory). */
  maxEntries?: number;
}

/**
 * A stock Clerk session token carries no email, so the API asks Clerk's Backend API (GET /v1/users/{id},
 * through @clerk/backend's client) once per user and keeps the answer for a short TTL: a team member's
 * requests cost one look-up every few minutes, and a removed or changed address is noticed within the TTL.
 * Concurrent first requests share one look-up. Failures are not cached. Clerk's Backend API client (about
 * 300 KB with its resource classes) is imported on the first look-up, not at cold start: it is only needed
 * for tokens without a verified email claim, and then a network call follows anyway.
 */
export function clerkUserLookup(opts: ClerkUserLookupOptions): LookupUserEmail {
  let client: Promise<ClerkClient> | undefined;
  const clerk = () => {
    client ??= import('@clerk/backend').then(({ createClerkClient }) =>
      createClerkClient({ secretKey: opts.secretKey, ...(opts.apiUrl ? { apiUrl: opts.apiUrl } : {}) }),
    );
    return client;
  };
  const ttlMs = opts.ttlMs ?? 5 * 60_000;
  const clock = opts.clock ?? (() => new Date());
  const maxEntries = opts.maxEntries ?? 1000;
  const cache = new Map<string, { at: number; value: Promise<ClerkUserEmail | null> }>();

  async function fetchUser(userId: string): Promise<ClerkUserEmail | null> {
    try {
      const user = await (await clerk()).users.getUser(userId);
      const primary = user.emailAddresses.find((e) => e.id === user.primaryEmailAddressId);
      const name = [user.firstName, user.lastName].filter(Boolean).join(' ');
      return {
        email: primary?.emailAddress ?? null,
        verified: primary?.verification?.status === 'verified',
        ...(name ? { name } : {}),
      };
    } catch (e) {
      const status = (e as { status?: unknown }).status;
      if (status === 404) return null;
      throw new UpstreamError(
        `Clerk user look-up failed${typeof status === 'number' ? ` (${status})` : ''}`,
        {
          retryable: true,
          code: 'identity_unavailable',
          cause: e,
        },
      );
    }
  }

  return (userId) => {
    const now = clock().getTime();
    const hit = cache.get(userId);
    if (hit && now - hit.at < ttlMs) return hit.value;
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    const value = fetchUser(userId);
    cache.set(userId, { at: now, value });
    value.catch(() => cache.delete(userId));
    return value;
  };
}
