import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_PEOPLE, TEAM_DOMAIN } from '../emulators/seed/demo-team';

export interface DevKeyPair {
  privateKeyPem: string;
  publicKeyPem: string;
}

/**
 * An RSA-2048 key pair for local session tokens. 2048 bits and e=65537 on purpose: Clerk's networkless
 * verification reads CLERK_JWT_KEY as exactly that shape of SPKI PEM.
 */
export function generateDevKeyPair(): DevKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicExponent: 65537,
  });
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** Reuses `<dir>/dev-auth/` so signed-in browsers stay signed in across restarts; creates it once. */
export function loadOrCreateDevKeyPair(dir?: string): DevKeyPair {
  if (!dir) return generateDevKeyPair();
  const folder = join(dir, 'dev-auth');
  const priv = join(folder, 'private.pem');
  const pub = join(folder, 'public.pem');
  if (existsSync(priv) && existsSync(pub)) {
    return { privateKeyPem: readFileSync(priv, 'utf8'), publicKeyPem: readFileSync(pub, 'utf8') };
  }
  const pair = generateDevKeyPair();
  mkdirSync(folder, { recursive: true });
  writeFileSync(priv, pair.privateKeyPem, { mode: 0o600 });
  writeFileSync(pub, pair.publicKeyPem);
  return pair;
}

/**
 * The environment the local stack adds for sign-in when no Clerk instance is configured: the dev key pair
 * (the API signs dev sessions with the private half and verifies every session with the public half,
 * through Clerk's verifyToken), the demo team's domain on the allow-list and its owner as admin.
 * With CLERK_JWT_KEY set, real Clerk is in use and nothing is added.
 */
export function devAuthEnv(opts: {
  dir?: string;
  env: Record<string, string | undefined>;
  /** The local Clerk users emulator: the API looks up each session's email there. */
  clerk?: { url: string; secretKey: string };
}): Record<string, string> {
  if (opts.env.CLERK_JWT_KEY) return {};
  const pair = loadOrCreateDevKeyPair(opts.dir);
  const owner = DEMO_PEOPLE.find((p) => p.internal && p.role === 'owner');
  return {
    CLERK_JWT_KEY: pair.publicKeyPem,
    DEV_AUTH_PRIVATE_KEY: pair.privateKeyPem,
    ...(opts.clerk ? { CLERK_SECRET_KEY: opts.clerk.secretKey, CLERK_API_URL: opts.clerk.url } : {}),
    ALLOWED_EMAIL_DOMAINS: opts.env.ALLOWED_EMAIL_DOMAINS || TEAM_DOMAIN,
    ...(owner && !opts.env.ADMIN_EMAILS ? { ADMIN_EMAILS: owner.email } : {}),
  };
}
