import { randomUUID } from 'node:crypto';
import { importPKCS8, SignJWT } from 'jose';

export interface DevSessionClaims {
  email: string;
  name?: string;
  /** The PWA's origin; becomes `azp`, which verifyToken checks against the authorized parties. */
  azp: string;
  issuer: string;
  ttlSeconds?: number;
  /** Back-date or expire a token on purpose (tests). */
  now?: Date;
}

/**
 * Signs a session token shaped like Clerk's (sub, sid, iat, nbf, exp, azp, iss, plus `email`/`name` custom
 * claims) with the local dev key. It grants nothing by itself: the API verifies it through the same
 * `verifyToken` + allow-list path as a real Clerk token, with CLERK_JWT_KEY set to the key's public half.
 */
export async function signDevSessionToken(
  privateKeyPem: string,
  claims: DevSessionClaims,
): Promise<{ token: string; expiresAt: string }> {
  const key = await importPKCS8(privateKeyPem, 'RS256');
  const now = Math.floor((claims.now ?? new Date()).getTime() / 1000);
  const exp = now + (claims.ttlSeconds ?? 12 * 3600);
  const email = claims.email.toLowerCase();
  const token = await new SignJWT({
    email,
    ...(claims.name ? { name: claims.name } : {}),
    azp: claims.azp,
    sid: `sess_dev_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
  })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: 'ins_local_dev' })
    .setSubject(devUserId(email))
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
