import type { MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { clerkUserLookup } from '../../shared/src/auth/clerk-user-lookup';
import {
  bearerToken,
  createSessionVerifier,
  type VerifySession,
} from '../../shared/src/auth/session-verifier';
import type { Core } from '../../shared/src/composition/core';
import { SESSION_HEADER } from '../../shared/src/contracts/edge';
import { ForbiddenError } from '../../shared/src/errors';
import type { AppEnv } from './app';

/**
 * The only routes anyone may call without a session (SPEC §6.6): health and the public PWA config. The
 * auth-matrix test enumerates every route of the app and checks each one not listed here refuses a missing
 * or bad session. The local stack adds its dev sign-in routes to this list when it registers them.
 */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set([
  'GET /health',
  'GET /api/config',
  // A notification's Approve / Deny (cards #18): the signed, single-use action token for that one card and
  // person stands in for the session (use-cases/decide-by-token.ts); anything else there is a 401.
  'POST /api/conversations/:cid/actions/:aid/by-token',
]);

/** Everything under this prefix needs the admin role as well. */
export const ADMIN_PREFIX = '/api/admin/';

const verifiers = new WeakMap<Core, VerifySession>();

/** One verifier per composed core (once per cold start): allow-lists parsed once, not per request. */
export function verifierFor(core: Core): VerifySession {
  let v = verifiers.get(core);
  if (!v) {
    const c = core.config;
    v = createSessionVerifier({
      jwtKey: c.CLERK_JWT_KEY ?? '',
      // The PWA is served from PUBLIC_BASE_URL; tokens minted for any other origin are refused.
      authorizedParties: c.CLERK_AUTHORIZED_PARTIES.length
        ? c.CLERK_AUTHORIZED_PARTIES
        : [new URL(c.PUBLIC_BASE_URL).origin],
      allowedDomains: c.ALLOWED_EMAIL_DOMAINS,
      adminEmails: c.ADMIN_EMAILS,
      ...(c.CLERK_SECRET_KEY
        ? {
            lookupUser: clerkUserLookup({
              secretKey: c.CLERK_SECRET_KEY,
              ...(c.CLERK_API_URL ? { apiUrl: c.CLERK_API_URL } : {}),
              clock: core.clock,
            }),
          }
        : {}),
    });
    verifiers.set(core, v);
  }
  return v;
}

/**
 * Fails closed: any matched route not in PUBLIC_ROUTES requires a verified session, so a route added later
 * is protected without anyone remembering to protect it. Unmatched paths fall through to the JSON 404.
 */
export const sessionGuard: MiddlewareHandler<AppEnv> = (c, next) => guard(PUBLIC_ROUTES, c, next);

/** The same guard with more public routes (the local stack's dev sign-in). */
export function sessionGuardWith(publicRoutes: Iterable<string>): MiddlewareHandler<AppEnv> {
  const open = new Set([...PUBLIC_ROUTES, ...publicRoutes]);
  return (c, next) => guard(open, c, next);
}

const guard = async (
  publicRoutes: ReadonlySet<string>,
  c: Parameters<MiddlewareHandler<AppEnv>>[0],
  next: Parameters<MiddlewareHandler<AppEnv>>[1],
) => {
  const endpoint = matchedRoutes(c).findLast((r) => r.method !== 'ALL');
  if (!endpoint || publicRoutes.has(`${endpoint.method} ${endpoint.path}`)) return next();
  // /api/chat arrives through CloudFront OAC, whose SigV4 signature occupies Authorization.
  const token = bearerToken(c.req.header(SESSION_HEADER) ?? c.req.header('authorization'));
  const user = await verifierFor(c.get('core'))(token);
  if (endpoint.path.startsWith(ADMIN_PREFIX) && !user.isAdmin) {
    throw new ForbiddenError('Only admins can do this; ask an admin to change it or to grant you the role.');
  }
  c.set('user', user);
  return next();
};
