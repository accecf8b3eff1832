import { createClerkClient } from '@clerk/backend';
import type { Hono } from 'hono';
import { DEMO_PEOPLE } from '../../../scripts/emulators/seed/demo-team';
import { devUserId, signDevSessionToken } from '../../../shared/src/auth/dev-session';
import type { Config } from '../../../shared/src/config';
import {
  devSessionRequest,
  devSessionResponse,
  devTeamResponse,
  meResponse,
  publicConfigResponse,
} from '../../../shared/src/contracts/api';
import type { AppEnv } from '../app';
import { currentUser, readJson, reply } from '../http';

/** Dev sign-in exists only on a local stack that generated a dev key; everywhere else it is a plain 404. */
export function devSignInEnabled(config: Config): config is Config & { DEV_AUTH_PRIVATE_KEY: string } {
  return config.STAGE === 'local' && Boolean(config.DEV_AUTH_PRIVATE_KEY);
}

const DEV_ISSUER = 'https://clerk.switchboard.local';

/** Who is signed in, what the PWA needs before sign-in, and the local dev sign-in. */
export function registerSessionRoutes(app: Hono<AppEnv>) {
  app.get('/api/me', (c) => reply(c, meResponse, { user: currentUser(c) }));

  app.get('/api/config', (c) => {
    const config = c.get('core').config;
    return reply(c, publicConfigResponse, {
      stage: config.STAGE,
      teamName: config.TEAM_NAME,
      devSignIn: devSignInEnabled(config) && !config.CLERK_PUBLISHABLE_KEY,
      ...(config.CLERK_PUBLISHABLE_KEY ? { clerkPublishableKey: config.CLERK_PUBLISHABLE_KEY } : {}),
      ...(config.VAPID_PUBLIC_KEY ? { vapidPublicKey: config.VAPID_PUBLIC_KEY } : {}),
    });
  });

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
