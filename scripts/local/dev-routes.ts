import { createClerkClient } from '@clerk/backend';
import type { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';
import type { AppEnv } from '../../functions/api/app';
import { createApp } from '../../functions/api/app';
import { readJson, reply } from '../../functions/api/http';
import { devSignInEnabled } from '../../functions/api/routes/session';
import { devUserId, signDevSessionToken } from '../../shared/src/auth/dev-session';
import { getApiDeps } from '../../shared/src/composition/api';
import type { Config } from '../../shared/src/config';
import { devSessionRequest, devSessionResponse, devTeamResponse } from '../../shared/src/contracts/api';
import { DEMO_PEOPLE } from '../emulators/seed/demo-team';

const DEV_ISSUER = 'https://clerk.switchboard.local';

/**
 * The local dev sign-in over the demo team. Registered by the local stack only (and by tests that stand in
 * for it), so the demo team's seed never ships in a Lambda bundle; it still answers 404 unless the stack
 * is local and generated a dev key.
 */
function register(app: Hono<AppEnv>) {
  app.get('/api/dev/team', (c) => {
    const config = c.get('core').config;
    if (!devSignInEnabled(config)) return c.notFound();
    const admins = new Set(config.ADMIN_EMAILS.map((e) => e.toLowerCase()));
    const members = DEMO_PEOPLE.filter((p) => p.internal).map((p) => ({
      email: p.email,
      name: `${p.firstName} ${p.lastName}`,
      role: p.role,
      isAdmin: admins.has(p.email.toLowerCase()),
    }));
    return reply(c, devTeamResponse, { members });
  });

  app.post('/api/dev/session', async (c) => {
    const config = c.get('core').config;
    if (!devSignInEnabled(config)) return c.notFound();
    const body = await readJson(c, devSessionRequest);
    const person = DEMO_PEOPLE.find((p) => p.email.toLowerCase() === body.email);
    const first = body.name?.split(' ')[0] ?? person?.firstName;
    const last = body.name ? body.name.split(' ').slice(1).join(' ') : person?.lastName;
    // Any email may be minted: the allow-list is checked when the token is used, exactly as with Clerk.
    const who = await devClerkUser(config, body.email, { first, last });
    const session = await signDevSessionToken(config.DEV_AUTH_PRIVATE_KEY, {
      userId: who.userId,
      ...(who.extra ? { extra: who.extra } : {}),
      azp: config.CLERK_AUTHORIZED_PARTIES[0] ?? new URL(config.PUBLIC_BASE_URL).origin,
      issuer: DEV_ISSUER,
    });
    return reply(c, devSessionResponse, session);
  });
}

/**
 * The dev sign-in's user, as Clerk would hold it: found or created through the Clerk Backend API (the local
 * emulator), so the token is a stock v2 token and the API looks the email up like in production. Without a
 * Clerk secret (a hand-made local config) the token carries `email` + `email_verified` claims instead.
 */
async function devClerkUser(
  config: Config,
  email: string,
  name: { first?: string | undefined; last?: string | undefined },
): Promise<{ userId: string; extra?: Record<string, unknown> }> {
  if (!config.CLERK_SECRET_KEY) return { userId: devUserId(email), extra: { email, email_verified: true } };
  const clerk = createClerkClient({
    secretKey: config.CLERK_SECRET_KEY,
    ...(config.CLERK_API_URL ? { apiUrl: config.CLERK_API_URL } : {}),
  });
  const found = await clerk.users.getUserList({ emailAddress: [email] });
  const existing = found.data[0];
  if (existing) return { userId: existing.id };
  const created = await clerk.users.createUser({
    emailAddress: [email],
    ...(name.first ? { firstName: name.first } : {}),
    ...(name.last ? { lastName: name.last } : {}),
  });
  return { userId: created.id };
}

/** The dev sign-in routes, public (they mint the session), for `createApp(…, { extraRoutes })`. */
export const devRoutes = { register, publicRoutes: ['GET /api/dev/team', 'POST /api/dev/session'] };

/** The API app with the dev routes, as the local gateway serves `/api/dev/*`. */
export const handler = handle(createApp(getApiDeps, { extraRoutes: devRoutes }));
