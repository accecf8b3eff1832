import { type ComponentType, createContext, useContext } from 'react';
import type { SessionUser } from '../../../../shared/src/contracts/api';
import type { Api, GetToken } from '../../lib/api';

/**
 * What the rest of the PWA knows about signing in, whichever provider is behind it: Clerk when the
 * deployment has a publishable key, the local dev sign-in otherwise. Both end in the same thing — a
 * session token the API verifies with Clerk's verifyToken.
 */
export interface Auth {
  kind: 'clerk' | 'dev';
  ready: boolean;
  signedIn: boolean;
  getToken: GetToken;
  signOut: () => Promise<void>;
  SignIn: ComponentType<{ next: string }>;
}

export const AuthContext = createContext<Auth | null>(null);

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside an auth provider');
  return auth;
}

export const ApiContext = createContext<Api | null>(null);
export function useApi(): Api {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside the API provider');
  return api;
}

export const MeContext = createContext<SessionUser | null>(null);
export function useMe(): SessionUser {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside the session gate');
  return me;
}

/** Only same-site paths may be returned to after sign-in (never `//evil.example`). */
export function safeNext(next: string | null): string {
  if (!next?.startsWith('/') || next.startsWith('//') || next.startsWith('/sign-in')) return '/';
  return next;
}
