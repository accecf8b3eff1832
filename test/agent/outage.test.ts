import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { createWorld, MARIA, type Servers, smsEvent, startServers, UNKNOWN, type World } from './harness';

/**
 * SPEC §3.1: when the model is unreachable the deterministic planner takes over, so an inbound text is still
 * triaged — the acknowledgement drafted for approval and the team alerted (a `notify` event) — while Claude is
 * down. The SDK's own retries run first (overload answered with 529 every time, or nothing listening at all).
 */
let servers: Servers;
let world: World | undefined;
beforeAll(async () => {
  servers = await startServers({ anthropic: true });
});
afterAll(async () => {
  await servers?.stop();
});
afterEach(async () => {
  servers.anthropic!.reset();
  await world?.stop();
  world = undefined;
});

test('overloaded (529 on every try): rules mode drafts the acknowledgement and the team is alerted', async () => {
  servers.anthropic!.failNext(529, 20, { retryAfterSeconds: 0.01 });
  world = await createWorld(servers, { claude: true });
  await world.deliver(smsEvent(MARIA, 'The hallway light is out on the 2nd floor', servers.clock()));

  // The SDK retried (1 + 4 retries), then the run fell back once and did not call the model again.
  expect(servers.anthropic!.requests.map((r) => r.status)).toEqual([529, 529, 529, 529, 529]);
  expect(world.log.entries.filter((e) => e.message === 'model.unavailable')).toHaveLength(1);

  const [draft] = await world.actionsFor(`sms:${MARIA}`);
  expect(draft).toMatchObject({
    tool: 'send_message',
    status: 'PENDING',
    proposedBy: 'planner',
    args: { to: MARIA },
  });
  expect(String(draft!.args.text)).toMatch(/^Hi Maria, thanks for letting us know/);
  expect(world.notifications.map((n) => [n.kind, n.actionId])).toEqual([['approval', draft!.id]]);
  expect(world.sentTo(MARIA)).toEqual([]);
});

test('unreachable endpoint: an unknown sender asking about a unit still gets its card (rules mode)', async () => {
  world = await createWorld(servers, { claude: true, anthropicBaseUrl: 'http://127.0.0.1:1' });
  await world.deliver(smsEvent(UNKNOWN, 'Is the studio on Birch Rd still for rent?', servers.clock()));
  expect(world.log.entries.find((e) => e.message === 'model.unavailable')?.fields?.error).toMatch(
    /Connection error/,
  );
  // A newcomer asking about a unit: one card that adds them as a prospect and replies (issue 17).
  const cards = await world.actionsFor(`sms:${UNKNOWN}`);
  expect(cards.map((a) => [a.tool, a.status])).toEqual([['welcome_contact', 'PENDING']]);
  expect(world.notifications.map((n) => [n.kind, n.actionId])).toEqual([['approval', cards[0]!.id]]);
}, 60_000);

test('the model back after the outage: the next run uses it again', async () => {
  servers.anthropic!.failNext(529, 5, { retryAfterSeconds: 0.01 });
  world = await createWorld(servers, { claude: true });
  await world.deliver(smsEvent(MARIA, 'The hallway light is out on the 2nd floor', servers.clock()));
  servers.anthropic!.script(['NO_ACTION_NEEDED: a thank-you.']);
  await world.deliver(smsEvent(MARIA, 'ok great, thank you so much for sorting the light', servers.clock()));
  expect(servers.anthropic!.requests.map((r) => r.status)).toEqual([529, 529, 529, 529, 529, 200]);
});
