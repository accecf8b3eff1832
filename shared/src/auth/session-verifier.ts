import { verifyToken } from '@clerk/backend';
import type { SessionUser } from '../contracts/api';
import { ConfigError, ForbiddenError, UnauthorizedError } from '../errors';

export interface SessionVerifierOptions {
  /** The Clerk instance's PEM public key (CLERK_JWT_KEY): verification is networkless. */
  jwtKey: string;
  /** Origins allowed in the token's `azp` (Clerk's protection against a leaked subdomain cookie). */
  authorizedParties: string[];
  /** Email domains whose members may use the app; empty means nobody (fail closed). */
  allowedDomains: string[];
  adminEmails: string[];
}

export type VerifySession = (token: string | undefined) => Promise<SessionUser>;

/** Why a token failed, in words a person can act on (Clerk's reasons are stable strings). */
const REASONS: Record<string, string> = {
  'token-expired': 'Your session has expired; sign in again.',
  'token-not-active-yet': 'The session token is not valid yet; check the device clock.',
  'token-iat-in-the-future': 'The session token is not valid yet; check the device clock.',
  'token-invalid-signature': 'The session token is not valid (its signature does not match).',
  'token-verification-failed': 'The session token is not valid (its signature could not be verified).',
  'token-invalid-authorized-parties': 'The session token was issued for another site.',
  'token-invalid-algorithm': 'The session token is not valid (unexpected signing algorithm).',
};

/**
 * Checks a Clerk session token and turns it into the caller. Every session goes through Clerk's own
 * `verifyToken` with the instance's PEM key — locally too, where the dev sign-in signs tokens with a local
 * key pair and CLERK_JWT_KEY is its public half — so there is no second, weaker path to get wrong.
 * Then the email domain must be allow-listed; admins are ADMIN_EMAILS or carry a `role: admin` claim
 * (a custom session claim, e.g. from the user's public metadata).
 */
export function createSessionVerifier(opts: SessionVerifierOptions): VerifySession {
  if (!opts.jwtKey) throw new ConfigError('CLERK_JWT_KEY is not set: no session can be verified');
  const domains = new Set(opts.allowedDomains.map((d) => d.toLowerCase().replace(/^@/, '')));
  const admins = new Set(opts.adminEmails.map((e) => e.toLowerCase()));
  return async (token) => {
    if (!token) throw new UnauthorizedError('Sign in required: send the session token as a Bearer token.');
    let payload: Awaited<ReturnType<typeof verifyToken>>;
    try {
      payload = await verifyToken(token, { jwtKey: opts.jwtKey, authorizedParties: opts.authorizedParties });
    } catch (e) {
      const reason = (e as { reason?: unknown }).reason;
      throw new UnauthorizedError(
        (typeof reason === 'string' && REASONS[reason]) || 'The session token is not valid.',
      );
    }
    const claims = payload as unknown as Record<string, unknown>;
    const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
    if (!email.includes('@')) {
      throw new ForbiddenError(
        'The session carries no email, so the team allow-list cannot be checked. Add an `email` claim to the Clerk session token.',
      );
    }
    const domain = email.slice(email.lastIndexOf('@') + 1);
    if (!domains.has(domain)) {
      throw new ForbiddenError(`${email} is not on this team: the ${domain} domain is not allowed here.`);
    }
    const metadata = claims.metadata as { role?: unknown } | undefined;
    const isAdmin = admins.has(email) || claims.role === 'admin' || metadata?.role === 'admin';
    return {
      id: String(payload.sub),
      email,
      ...(typeof claims.name === 'string' && claims.name ? { name: claims.name } : {}),
      isAdmin,
    };
  };
}

/** The session token from `Authorization: Bearer …`; cookies are ignored on purpose (no CSRF surface). */
export function bearerToken(header: string | undefined | null): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m?.[1];
}
