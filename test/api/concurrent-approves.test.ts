import { afterAll, beforeAll, expect, test } from 'vitest';
import { createApp } from '../../functions/api/app';
import { generateDevKeyPair } from '../../scripts/local/dev-auth';
import { signDevSessionToken } from '../../shared/src/auth/dev-session';
import { buildApiDeps } from '../../shared/src/composition/api';
import type { PendingAction } from '../../shared/src/contracts/conversations';
import {
  createWorld,
  DAVID,
  MARIA,
  type Servers,
  smsEvent,
  startServers,
  TEAM,
  type World,
} from '../agent/harness';

/**
 * Issue 12 "Done when": concurrent approves and sends. Thirty team members press Approve on the same card at
 * the same moment, through the API with real-shaped session tokens: exactly one decision holds (200), the
 * other 29 are told it was already decided (409), and the worker sends the text once. Same-run baseline: one
 * card approved by one person sends once. Prints a `[figure]` line.
 */
const ORIGIN = 'https://switchboard.test';
const PRESSES = 30;
const keys = generateDevKeyPair();
let servers: Servers;
let world: World;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  servers = await startServers();
  world = await createWorld(servers, {
    env: { CLERK_JWT_KEY: keys.publicKeyPem, CLERK_AUTHORIZED_PARTIES: ORIGIN, PUBLIC_BASE_URL: ORIGIN },
  });
  const api = buildApiDeps(world.core);
  app = createApp(async () => api);
}, 60_000);
afterAll(async () => {
  await world?.stop();
  await servers?.stop();
});

async function tokenFor(i: number) {
  const email = `member${i}@${TEAM}`;
  const { token } = await signDevSessionToken(keys.privateKeyPem, {
    userId: `u_member${i}`,
    azp: ORIGIN,
    issuer: 'https://clerk.switchboard.test',
    extra: { email, email_verified: true, name: `Member ${i}` },
  });
  return token;
}

async function cardFor(phone: string, text: string): Promise<PendingAction> {
  await world.deliver(smsEvent(phone, text, servers.clock()));
  const card = (await world.actionsFor(`sms:${phone}`)).find((a) => a.status === 'PENDING');
  if (!card) throw new Error(`no card for ${phone}`);
  return card;
}

const approve = (card: PendingAction, token: string) =>
  app.request(`/api/conversations/${card.conversationId}/actions/${card.id}/approve`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{}',
  });

test(`${PRESSES} people approve the same card at once through the API: one 200, the rest 409, one send`, async () => {
  // Baseline, same run: one approve of one card → one send.
  const single = await cardFor(DAVID, 'Could someone check the hallway light this week?');
  expect((await approve(single, await tokenFor(0))).status).toBe(200);
  await world.work();
  const baseline = world.sentTo(DAVID).length;
  expect(baseline).toBe(1);

  const card = await cardFor(MARIA, 'The kitchen tap drips, can someone look at it this week?');
  const tokens = await Promise.all(Array.from({ length: PRESSES }, (_, i) => tokenFor(i + 1)));
  const responses = await Promise.all(tokens.map((t) => approve(card, t)));
  const statuses = responses.map((r) => r.status);
  const bodies = await Promise.all(responses.map((r) => r.json()));
  expect(statuses.filter((s) => s === 200)).toHaveLength(1);
  expect(statuses.filter((s) => s === 409)).toHaveLength(PRESSES - 1);
  for (const [i, b] of bodies.entries())
    if (statuses[i] === 409) expect(b.error.message).toBe('This card was already decided (approved)');
  await world.work();
  const sends = world.sentTo(MARIA).length;
  expect(sends).toBe(1);
  const winner = bodies[statuses.indexOf(200)].action.decidedBy;
  expect((await world.core.actions.get(card.conversationId, card.id))?.decidedBy).toBe(winner);
  console.info(
    `[figure] concurrent approves: ${PRESSES} presses → ${statuses.filter((s) => s === 200).length}×200, ` +
      `${statuses.filter((s) => s === 409).length}×409, ${sends} send (baseline, same run: 1 press → ${baseline} send)`,
  );
}, 60_000);
