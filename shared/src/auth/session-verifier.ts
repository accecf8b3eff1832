import type { verifyJwt } from '@clerk/backend/jwt';
import type { SessionUser } from '../contracts/api';
import { domainAllowed, parseEmailAddress } from '../domain/email-address';
import { ConfigError, ForbiddenError, UnauthorizedError } from '../errors';
import type { LookupUserEmail } from './clerk-user-lookup';

export interface SessionVerifierOptions {
  /** The Clerk instance's PEM public key (CLERK_JWT_KEY): verification is networkless. */
  jwtKey: string;
  /** Origins allowed in the token's `azp` (Clerk's protection against a leaked subdomain cookie). */
  authorizedParties: string[];
  /** Email domains whose members may use the app; empty means nobody (fail closed). */
  allowedDomains: string[];
  adminEmails: string[];
  /**
   * The user's primary email from Clerk's Backend API (needs CLERK_SECRET_KEY), for tokens without a verified
   * `email` claim — a stock Clerk session token has none.
   */
  lookupUser?: LookupUserEmail;
}

export type VerifySession = (token: string | undefined) => Promise<SessionUser>;

/** Clerk's machine-to-machine token category (the `cat` header): never a session; Clerk's verifyToken refuses it too. */
const M2M_TOKEN_CATEGORY = 'cl_B7d4PD333AAA';

/**
 * What Clerk's `verifyToken` does with a PEM key (`jwtKey`): refuse machine tokens, then `verifyJwt` with the
 * key (signature, `azp`, `exp`/`nbf`/`iat` with Clerk's default skew). Called through `@clerk/backend/jwt`,
 * which is 18 KB, where the package root brings the whole Backend API client (about 300 KB parsed at every
 * API cold start for one networkless check). Imported on the first verification, not at init: its runtime
 * module reads `globalThis.Request`/`Headers`/`FormData` at load, which makes Node load its fetch
 * implementation (undici, about 25 ms of CPU) — work the first request does anyway, not module init (issue 16).
 */
async function verifyClerkSession(token: string, jwtKey: string, authorizedParties: string[]) {
  const { decodeJwt, verifyJwt } = await import('@clerk/backend/jwt');
  if (decodeJwt(token).header.cat === M2M_TOKEN_CATEGORY) {
    throw Object.assign(new Error('Invalid session token category.'), { reason: 'token-invalid' });
  }
  return verifyJwt(token, { key: jwtKey, authorizedParties });
}

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
 * verification (`verifyClerkSession`) with the instance's PEM key — locally too, where the dev sign-in signs tokens with a local
 * key pair and CLERK_JWT_KEY is its public half — so there is no second, weaker path to get wrong.
 * The email comes from a custom `email` claim only when an `email_verified` claim stands beside it;
 * otherwise (a stock v2 token) from Clerk's Backend API. It must be verified, parse as exactly one address,
 * and be on an allow-listed domain. Admins are ADMIN_EMAILS or carry a `role: admin` claim (a custom
 * session claim, e.g. from the user's public metadata).
 */
export function createSessionVerifier(opts: SessionVerifierOptions): VerifySession {
  if (!opts.jwtKey) throw new ConfigError('CLERK_JWT_KEY is not set: no session can be verified');
  const domains = new Set(opts.allowedDomains.map((d) => d.toLowerCase().replace(/^@/, '')));
  const admins = new Set(opts.adminEmails.map((e) => e.toLowerCase()));
  return async (token) => {
    if (!token) throw new UnauthorizedError('Sign in required: send the session token as a Bearer token.');
    let payload: Awaited<ReturnType<typeof verifyJwt>>;
    try {
      payload = await verifyClerkSession(token, opts.jwtKey, opts.authorizedParties);
    } catch (e) {
      const reason = (e as { reason?: unknown }).reason;
      throw new UnauthorizedError(
        (typeof reason === 'string' && REASONS[reason]) || 'The session token is not valid.',
      );
    }
    const claims = payload as unknown as Record<string, unknown>;
    const who = await verifiedEmail(String(payload.sub), claims, opts.lookupUser);
    const parsed = parseEmailAddress(who.email);
    if (!parsed) throw new ForbiddenError(`“${who.email}” is not a single valid email address.`);
    if (!domainAllowed(parsed, domains)) {
      throw new ForbiddenError(
        `${parsed.address} is not on this team: the ${parsed.domain} domain is not allowed here.`,
      );
    }
    const metadata = claims.metadata as { role?: unknown } | undefined;
    const isAdmin = admins.has(parsed.address) || claims.role === 'admin' || metadata?.role === 'admin';
    const name = typeof claims.name === 'string' && claims.name ? claims.name : who.name;
    return { id: String(payload.sub), email: parsed.address, ...(name ? { name } : {}), isAdmin };
  };
}

/** The caller's email, verified: from the token's claims when they say so, else from Clerk. */
async function verifiedEmail(
  userId: string,
  claims: Record<string, unknown>,
  lookup: LookupUserEmail | undefined,
): Promise<{ email: string; name?: string }> {
  // A custom claim counts only with its verification status beside it (e.g. {{user.primary_email_address}}
  // and {{user.email_verified}} in the session token template); an email alone is not proof.
  if (typeof claims.email === 'string' && typeof claims.email_verified === 'boolean') {
    if (!claims.email_verified) throw unverified(claims.email);
    return { email: claims.email };
  }
  if (!lookup) {
    throw new ForbiddenError(
      'The session carries no verified email and the API cannot look it up: set CLERK_SECRET_KEY (or add `email` and `email_verified` claims to the Clerk session token).',
    );
  }
  const user = await lookup(userId);
  if (!user?.email)
    throw new ForbiddenError('Your Clerk account has no primary email address; add one and sign in again.');
  if (!user.verified) throw unverified(user.email);
  return { email: user.email, ...(user.name ? { name: user.name } : {}) };
}

function unverified(email: string) {
  return new ForbiddenError(`${email} is not verified yet; verify it in your account, then sign in again.`);
}

/** The session token from `Authorization: Bearer …`; cookies are ignored on purpose (no CSRF surface). */
export function bearerToken(header: string | undefined | null): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m?.[1];
}
