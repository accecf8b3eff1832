import { randomUUID } from 'node:crypto';
import { importPKCS8, SignJWT } from 'jose';

export interface DevSessionClaims {
  /** The Clerk user id (`sub`); the API looks the user's email up by it, as with a stock Clerk token. */
  userId: string;
  /** The PWA's origin; becomes `azp`, which verifyToken checks against the authorized parties. */
  azp: string;
  issuer: string;
  ttlSeconds?: number;
  /** Back-date or expire a token on purpose (tests). */
  now?: Date;
  /** Custom session claims, as a customised Clerk session token template adds them (tests). */
  extra?: Record<string, unknown>;
}

/**
 * Signs a session token shaped like Clerk's default v2 token — `sub sid iat nbf exp azp iss v fva sts`, and
 * no email — with the local dev key. It grants nothing by itself: the API verifies it through the same
 * `verifyToken` path as a real Clerk token (CLERK_JWT_KEY is the key's public half) and then looks the
 * user's email up in the Clerk Backend API (the local Clerk emulator), so local runs take the production path.
 */
export async function signDevSessionToken(
  privateKeyPem: string,
  claims: DevSessionClaims,
): Promise<{ token: string; expiresAt: string }> {
  const key = await importPKCS8(privateKeyPem, 'RS256');
  const now = Math.floor((claims.now ?? new Date()).getTime() / 1000);
  const exp = now + (claims.ttlSeconds ?? 12 * 3600);
  const token = await new SignJWT({
    ...claims.extra,
    azp: claims.azp,
    sid: `sess_dev_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
    // v2 defaults: token version, factor verification age in minutes [first, second (-1: none)], session status.
    v: 2,
    fva: [0, -1],
    sts: 'active',
  })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: 'ins_local_dev' })
    .setSubject(claims.userId)
    .setIssuer(claims.issuer)
    .setIssuedAt(now)
    .setNotBefore(now - 10)
    .setExpirationTime(exp)
    .sign(key);
  return { token, expiresAt: new Date(exp * 1000).toISOString() };
}

/** A stable user id per email, so read marks and authorship survive signing in again. */
export function devUserId(email: string): string {
  return `user_dev_${email.toLowerCase().replace(/[^a-z0-9]+/g, '_')}`;
}
