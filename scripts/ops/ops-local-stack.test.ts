import { afterAll, beforeAll, expect, test } from 'vitest';
import { getCore } from '../../shared/src/composition/core';
import type { PendingAction } from '../../shared/src/contracts/conversations';
import { decideApproval } from '../../shared/src/use-cases/decide-approval';
import { type LocalStack, startLocalStack } from '../local/stack';
import { runOps } from './cli';

/**
 * Issue 15's "done when": `npm run ops -- event:trace <id>` on the local stack prints the whole story of a
 * simulated text — signed webhook → queue → worker → card → a person's approval → the send.
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({ port: 0, schedules: false, env: { COOLDOWN_SECONDS: '1' } });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

async function until<T>(fn: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error('timed out');
}

async function ops(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runOps(argv, {
    env: stack.env,
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    runtimePath: '/nonexistent/runtime.json',
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

test('event:trace prints the story of a simulated text, from delivery to the approved send', async () => {
  const phone = '+14155550111'; // Maria, a known tenant in the emulators' seed
  await stack.emulators!.openphone.fireIncomingMessage({
    from: phone,
    text: 'Hi, the kitchen sink is leaking slowly',
    scheme: 'standard',
  });
  const core = await getCore('test-ops');
  const card = await until<PendingAction>(async () => {
    const conv = await core.conversations.findByTriggerKey(`sms:${phone}`);
    const actions = conv ? await core.actions.listByConversation(conv.id) : [];
    return actions.find((a) => a.status === 'PENDING');
  });

  // The approval push read the pending count for the badge, and the same number became the dashboard's
  // PendingApprovals level (in memory off AWS) — no extra request.
  const worker = (await getCore('agent-worker')) as unknown as {
    metrics: { recorded?: Array<{ name: string; value: number }> };
  };
  const level = await until(async () =>
    worker.metrics.recorded?.findLast((r) => r.name === 'PendingApprovals'),
  );
  expect(level.value).toBeGreaterThanOrEqual(1);

  const pending = await ops('approvals:pending');
  expect(pending.code, pending.err).toBe(0);
  expect(pending.out).toContain(`card ${card.id}`);

  await decideApproval(
    { ...core, validateArgs: (_t, args) => ({ ok: true, args: args as Record<string, unknown> }) },
    {
      conversationId: card.conversationId,
      actionId: card.id,
      decision: 'approve',
      user: { id: 'u_sam', email: 'sam@oakproperties.example' },
    },
  );
  await until(async () => (await core.actions.get(card.conversationId, card.id))?.status === 'EXECUTED');
  const run = await core.runs.get(card.conversationId, card.runId);
  const eventId = run?.trigger.eventIds[0] as string;

  const trace = await ops('event:trace', eventId);
  expect(trace.code, trace.err).toBe(0);
  const story = trace.out;
  expect(story).toContain(`Event ${eventId} (sms.received, key sms:${phone}`);
  expect(story).toMatch(new RegExp(`processed: awaiting approval of ${card.id}`));
  expect(story).toContain('inbound');
  expect(story).toContain('the kitchen sink is leaking slowly');
  expect(story).toMatch(new RegExp(`Run ${card.runId} \\(rules\\)`));
  expect(story).toMatch(
    new RegExp(`Card ${card.id} send_message .*: EXECUTED by sam@oakproperties\\.example`),
  );
  expect(story).toMatch(/Audit .* approval\.approved by sam@oakproperties\.example/);
  expect(story).toMatch(new RegExp(`Sent send_message \\(${card.id}\\): EXECUTED`));
  // Printed for whoever runs this test to read the story as an operator would.
  console.log(story);

  const exported = await ops('conversation:export', card.conversationId);
  expect(exported.code, exported.err).toBe(0);
  expect(JSON.parse(exported.out).counts.cards).toBeGreaterThanOrEqual(1);
}, 90_000);

test('alarm:test pushes a test alarm, then its recovery, to the admin devices (the demo device stands in)', async () => {
  const push = stack.emulators!.push;
  const device = stack.demoDevice!.endpoint;
  const before = push.deliveries(device).length;
  const fired = await ops('alarm:test');
  expect(fired.code, fired.err).toBe(0);
  expect(fired.out).toBe(
    'ALARM Switchboard-AlarmPushTest: 1 admin device(s) — 1 delivered, 0 removed (gone), 0 failed',
  );
  const cleared = await ops('alarm:test', '--state', 'OK');
  expect(cleared.code, cleared.err).toBe(0);
  const [alarm, resolved] = push.deliveries(device).slice(before);
  expect(alarm?.payload).toMatchObject({ title: 'Alarm: Switchboard-AlarmPushTest', url: '/admin' });
  expect(resolved?.payload).toMatchObject({ title: 'Resolved: Switchboard-AlarmPushTest' });
  expect(resolved?.topic).toBe(alarm?.topic);
  expect((await ops('alarm:test', '--state', 'MAYBE')).code).toBe(2);
});
