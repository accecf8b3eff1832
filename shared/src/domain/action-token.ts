import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/**
 * The signed action token a notification's Approve / Deny carries (cards #18). A service worker has no
 * session, so the token stands in for one, for one card and one person only: it names the card, the hash of
 * the exact arguments the notification showed, the person and an expiry (the card's). It is accepted only by
 * that card's `…/by-token` decide route, and is single-use because the decision itself is: the card leaves
 * PENDING conditionally, so a second use (or the other button) finds it decided and gets a 409.
 *
 * Signed with HMAC-SHA256 under a key derived from the VAPID private key, which both the worker (that mints
 * it when it sends the push) and the API (that checks it) already hold: no new secret to distribute.
 */
export const actionTokenClaims = z.object({
  /** The card (pending action) id and its conversation. */
  a: z.string().min(1).max(200),
  c: z.string().min(1).max(200),
  /** The argument hash the person saw in the notification. */
  h: z.string().min(1).max(100),
  /** The person: user id, email and display name (the decision is recorded under them). */
  u: z.string().min(1).max(200),
  m: z.string().min(3).max(320),
  n: z.string().max(200).optional(),
  /** Expiry, epoch seconds. */
  e: z.number().int().positive(),
});
export type ActionTokenClaims = z.infer<typeof actionTokenClaims>;

const CONTEXT = 'switchboard/notification-action-token/v1';

/** The HMAC key, derived so the VAPID key itself never signs anything but pushes. */
export function actionTokenKey(vapidPrivateKey: string): Buffer {
  return createHmac('sha256', vapidPrivateKey).update(CONTEXT).digest();
}

const sign = (key: Buffer, body: string) => createHmac('sha256', key).update(body).digest('base64url');

export function mintActionToken(key: Buffer, claims: ActionTokenClaims): string {
  const body = Buffer.from(JSON.stringify(actionTokenClaims.parse(claims))).toString('base64url');
  return `${body}.${sign(key, body)}`;
}

export type TokenCheck =
  | { ok: true; claims: ActionTokenClaims }
  | { ok: false; reason: 'malformed' | 'signature' | 'expired' };

/** Signature first (constant time), then the claims' shape, then the expiry. */
export function verifyActionToken(key: Buffer, token: string, now: Date): TokenCheck {
  const [body, mac, extra] = token.split('.');
  if (!body || !mac || extra !== undefined) return { ok: false, reason: 'malformed' };
  const want = Buffer.from(sign(key, body));
  const got = Buffer.from(mac);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return { ok: false, reason: 'signature' };
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const parsed = actionTokenClaims.safeParse(json);
  if (!parsed.success) return { ok: false, reason: 'malformed' };
  if (parsed.data.e * 1000 <= now.getTime()) return { ok: false, reason: 'expired' };
  return { ok: true, claims: parsed.data };
}
