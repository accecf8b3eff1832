import { describe, expect, test } from 'vitest';
import {
  type NewPushSubscription,
  pushNotificationPayload,
  type StoredPushSubscription,
} from '../contracts/push';
import { ValidationError } from '../errors';
import type {
  PushLog,
  PushSender,
  PushSendOptions,
  PushSendOutcome,
  PushSubscriptionStore,
} from '../ports/push';
import {
  conversationTopic,
  MAX_PAYLOAD_BYTES,
  type SendNotificationInput,
  sendNotification,
} from './send-notification';

class MemoryStore implements PushSubscriptionStore {
  readonly items = new Map<string, StoredPushSubscription>();
  async put(input: NewPushSubscription) {
    const at = new Date().toISOString();
    const prev = this.items.get(input.subscription.endpoint);
    const stored: StoredPushSubscription = {
      ...input.subscription,
      userId: input.userId,
      userAgent: input.userAgent ?? '',
      createdAt: prev?.createdAt ?? at,
      updatedAt: at,
    };
    this.items.set(stored.endpoint, stored);
    return stored;
  }
  async delete(endpoint: string) {
    return this.items.delete(endpoint);
  }
  async listActive() {
    return [...this.items.values()];
  }
  async listByUser(userId: string) {
    return [...this.items.values()].filter((s) => s.userId === userId);
  }
}

/** Answers each endpoint from a script (then `delivered`), recording what was sent. */
class ScriptedSender implements PushSender {
  readonly sent: { endpoint: string; payload: string; options: PushSendOptions }[] = [];
  constructor(private readonly script: Record<string, PushSendOutcome[]> = {}) {}
  async send(sub: { endpoint: string }, payload: string, options: PushSendOptions): Promise<PushSendOutcome> {
    this.sent.push({ endpoint: sub.endpoint, payload, options });
    return this.script[sub.endpoint]?.shift() ?? { kind: 'delivered', status: 201 };
  }
}

class MemoryLog implements PushLog {
  readonly lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  info(message: string, fields?: Record<string, unknown>) {
    this.lines.push({ level: 'info', message, fields });
  }
  warn(message: string, fields?: Record<string, unknown>) {
    this.lines.push({ level: 'warn', message, fields });
  }
  error(message: string, fields?: Record<string, unknown>) {
    this.lines.push({ level: 'error', message, fields });
  }
}

const keys = { p256dh: `B${'A'.repeat(86)}`, auth: 'A'.repeat(22) };
const endpointA = 'https://push.example/send/device-a-secret-token';
const endpointB = 'https://push.example/send/device-b-secret-token';
const fastRetry = { retries: 3, minTimeoutMs: 1, maxTimeoutMs: 5, maxRetryAfterMs: 20 };

async function setup(script: Record<string, PushSendOutcome[]> = {}) {
  const subscriptions = new MemoryStore();
  await subscriptions.put({
    subscription: { endpoint: endpointA, keys },
    userId: 'user_alex',
    userAgent: 'phone',
  });
  await subscriptions.put({
    subscription: { endpoint: endpointB, keys },
    userId: 'user_sam',
    userAgent: 'laptop',
  });
  const sender = new ScriptedSender(script);
  const log = new MemoryLog();
  return { subscriptions, sender, log, deps: { subscriptions, sender, log, retry: fastRetry } };
}

const approval: SendNotificationInput = {
  kind: 'approval',
  conversationId: 'conv_0123456789abcdef',
  title: 'Approval needed: reply by text',
  body: 'Send "A plumber will come tomorrow at 9am"?',
  actionId: 'act_1',
  contact: { name: 'Maria Lopez', phone: '+14155550111' },
  preview: 'Hi, the kitchen sink is leaking again\nand the cabinet is wet',
};

describe('sendNotification', () => {
  test('an approval goes to every device: high urgency, 1 h TTL, topic per conversation, deep link', async () => {
    const { deps, sender, log } = await setup();
    const result = await sendNotification({ ...deps, countPendingApprovals: async () => 2 }, approval);

    expect(result).toMatchObject({ subscriptions: 2, delivered: 2, removed: 0, failed: 0, retries: 0 });
    expect(sender.sent.map((s) => s.endpoint).sort()).toEqual([endpointA, endpointB]);
    const first = sender.sent[0]!;
    expect(first.options).toEqual({
      ttlSeconds: 3600,
      urgency: 'high',
      topic: conversationTopic(approval.conversationId),
    });
    expect(first.options.topic).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const payload = pushNotificationPayload.parse(JSON.parse(first.payload));
    expect(payload).toMatchObject({
      kind: 'approval',
      conversationId: 'conv_0123456789abcdef',
      actionId: 'act_1',
      url: '/chat?id=conv_0123456789abcdef',
      requireInteraction: true,
      pendingApprovals: 2,
      tag: first.options.topic,
    });
    expect(payload.body).toContain('Maria Lopez (+14155550111)');
    expect(payload.body).toContain('“Hi, the kitchen sink is leaking again and the cabinet is wet”');
    expect(log.lines.filter((l) => l.message === 'push delivered')).toHaveLength(2);
  });

  test('an alert auto-dismisses with normal urgency and a shorter TTL', async () => {
    const { deps, sender } = await setup();
    await sendNotification(deps, {
      kind: 'alert',
      conversationId: 'c1',
      title: 'New text',
      body: 'Urgent: flood',
    });
    const sent = sender.sent[0]!;
    expect(sent.options.urgency).toBe('normal');
    expect(sent.options.ttlSeconds).toBeLessThan(3600);
    expect(JSON.parse(sent.payload).requireInteraction).toBe(false);
  });

  test('the topic is stable per conversation, distinct across conversations, and URL-safe for any id', () => {
    expect(conversationTopic('c1')).toBe(conversationTopic('c1'));
    expect(conversationTopic('c1')).not.toBe(conversationTopic('c2'));
    expect(conversationTopic('ü/+= '.repeat(50))).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  test('a name already in the body is not repeated; a number alone is still shown', async () => {
    const { deps, sender } = await setup();
    await sendNotification(deps, {
      kind: 'alert',
      conversationId: 'c1',
      title: 'New text',
      body: 'Maria Lopez says the sink leaks',
      contact: { name: 'Maria Lopez' },
    });
    await sendNotification(deps, {
      kind: 'alert',
      conversationId: 'c2',
      title: 'New text',
      body: 'Unknown sender',
      contact: { phone: '+14155550999' },
    });
    // An unknown number's conversation names it by its number: said once, not "+1… (+1…)".
    await sendNotification(deps, {
      kind: 'alert',
      conversationId: 'c3',
      title: 'New text',
      body: 'Is the 2 bed free?',
      contact: { name: '+14155550177', phone: '+14155550177' },
    });
    const bodies = sender.sent.map((s) => JSON.parse(s.payload).body as string);
    expect(bodies[0]).toBe('Maria Lopez says the sink leaks');
    expect(bodies[2]).toBe('+14155550999: Unknown sender');
    expect(bodies[4]).toBe('+14155550177: Is the 2 bed free?');
  });

  test('a long, multi-byte preview still yields a payload under 3 KB', async () => {
    const { deps, sender } = await setup();
    const result = await sendNotification(deps, {
      ...approval,
      title: '📣'.repeat(400),
      body: '"quoted" \\ \u0001 '.repeat(500),
      preview: '漢字🙂'.repeat(5000),
    });
    const payload = sender.sent[0]!.payload;
    expect(Buffer.byteLength(payload)).toBeLessThan(MAX_PAYLOAD_BYTES);
    expect(result.payloadBytes).toBe(Buffer.byteLength(payload));
    // Cuts never split a surrogate pair.
    expect(JSON.parse(payload).body).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(JSON.parse(payload).body).toContain('…');
  });

  test('404 and 410 remove the subscription; the others still get it', async () => {
    const { deps, subscriptions } = await setup({
      [endpointA]: [{ kind: 'gone', status: 410 }],
    });
    const result = await sendNotification(deps, approval);
    expect(result).toMatchObject({ delivered: 1, removed: 1, failed: 0 });
    expect([...subscriptions.items.keys()]).toEqual([endpointB]);
  });

  test('429/5xx are retried with backoff until delivered; Retry-After is honoured but bounded', async () => {
    const { deps, sender, log } = await setup({
      [endpointA]: [
        { kind: 'retryable', status: 429, retryAfterMs: 60_000, reason: 'slow down' },
        { kind: 'retryable', status: 503, reason: 'unavailable' },
      ],
    });
    const started = Date.now();
    const result = await sendNotification(deps, approval);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result).toMatchObject({ delivered: 2, failed: 0, retries: 2 });
    expect(sender.sent.filter((s) => s.endpoint === endpointA)).toHaveLength(3);
    expect(log.lines.filter((l) => l.message === 'push attempt failed; retrying')).toHaveLength(2);
  });

  test('retries are bounded: a push service that keeps failing counts as failed and is logged', async () => {
    const down: PushSendOutcome = { kind: 'retryable', status: 503, reason: 'down' };
    const { deps, sender, log, subscriptions } = await setup({ [endpointA]: Array(10).fill(down) });
    const result = await sendNotification(deps, approval);
    expect(sender.sent.filter((s) => s.endpoint === endpointA)).toHaveLength(fastRetry.retries + 1);
    expect(result).toMatchObject({ delivered: 1, failed: 1, removed: 0 });
    expect(subscriptions.items.has(endpointA)).toBe(true);
    expect(log.lines.find((l) => l.message === 'push failed after retries')?.level).toBe('error');
  });

  test('a refusal (e.g. 403 bad VAPID) is not retried', async () => {
    const { deps, sender } = await setup({
      [endpointA]: [{ kind: 'failed', status: 403, reason: 'bad key' }],
    });
    const result = await sendNotification(deps, approval);
    expect(sender.sent.filter((s) => s.endpoint === endpointA)).toHaveLength(1);
    expect(result).toMatchObject({ delivered: 1, failed: 1 });
  });

  test('logs never carry the endpoint secret', async () => {
    const { deps, log } = await setup({ [endpointA]: [{ kind: 'gone', status: 404 }] });
    await sendNotification(deps, approval);
    const text = JSON.stringify(log.lines);
    expect(text).not.toContain('secret-token');
    expect(text).toContain('https://push.example');
  });

  test('userId limits the send to that member’s devices', async () => {
    const { deps, sender } = await setup();
    const result = await sendNotification(deps, { ...approval, userId: 'user_sam' });
    expect(result.subscriptions).toBe(1);
    expect(sender.sent.map((s) => s.endpoint)).toEqual([endpointB]);
  });

  test('no subscriptions: nothing sent, logged', async () => {
    const subscriptions = new MemoryStore();
    const sender = new ScriptedSender();
    const log = new MemoryLog();
    const result = await sendNotification({ subscriptions, sender, log }, approval);
    expect(result).toMatchObject({ subscriptions: 0, delivered: 0 });
    expect(log.lines[0]?.message).toBe('push skipped: no active subscriptions');
  });

  test('a failing badge count does not stop the notification', async () => {
    const { deps, sender, log } = await setup();
    await sendNotification(
      {
        ...deps,
        countPendingApprovals: async () => {
          throw new Error('table unavailable');
        },
      },
      approval,
    );
    expect(sender.sent).toHaveLength(2);
    expect(JSON.parse(sender.sent[0]!.payload).pendingApprovals).toBeUndefined();
    expect(log.lines.some((l) => l.level === 'warn' && l.message.includes('badge'))).toBe(true);
  });

  test('invalid input is a ValidationError', async () => {
    const { deps } = await setup();
    await expect(
      sendNotification(deps, { ...approval, kind: 'weird' } as unknown as SendNotificationInput),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(
      sendNotification(deps, { ...approval, conversationId: 'x'.repeat(500) }),
    ).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('people’s choices and the assignee first (issue 19)', () => {
  const night = new Date('2026-11-24T07:30:00Z');
  const choices = (m: Record<string, import('../contracts/notification-choices').NotificationChoices>) => ({
    all: async () => new Map(Object.entries(m)),
  });

  test('a device gets a push only if its owner wants that kind now; someone who never chose gets all', async () => {
    const { deps, sender, log } = await setup();
    const quiet = {
      approvals: true,
      urgent: true,
      everything: true,
      quietHours: { start: '22:00', end: '07:00', timezone: 'America/Los_Angeles' },
    };
    const d = { ...deps, now: () => night, choices: choices({ user_alex: quiet }) };
    await sendNotification(d, { ...approval, kind: 'alert' });
    expect(sender.sent.map((s) => s.endpoint)).toEqual([endpointB]);
    expect(log.lines.find((l) => l.message.startsWith('push skipped by'))?.fields?.skipped).toBe(1);
    // Urgent comes through Alex's quiet hours, delivered like an approval (high urgency).
    sender.sent.length = 0;
    await sendNotification(d, { ...approval, kind: 'alert', urgent: true });
    expect(sender.sent.map((s) => s.endpoint).sort()).toEqual([endpointA, endpointB]);
    expect(sender.sent[0]?.options.urgency).toBe('high');
  });

  test("quiet hours are read in the person's own time zone preference, not the saving device's", async () => {
    const { deps, sender } = await setup();
    // Saved from a laptop set to UTC: 22:00–07:00 UTC would not be quiet at 07:30 UTC…
    const quiet = {
      approvals: true,
      urgent: true,
      everything: true,
      quietHours: { start: '22:00', end: '07:00', timezone: 'UTC' },
    };
    const d = { ...deps, now: () => night, choices: choices({ user_alex: quiet }) };
    await sendNotification(d, { ...approval, kind: 'alert' });
    expect(sender.sent.map((s) => s.endpoint).sort()).toEqual([endpointA, endpointB]);
    // …but Alex lives in Los Angeles (23:30 there): quiet.
    sender.sent.length = 0;
    const zoned = {
      ...d,
      personalZone: async (id: string) => (id === 'user_alex' ? 'America/Los_Angeles' : undefined),
    };
    await sendNotification(zoned, { ...approval, kind: 'alert' });
    expect(sender.sent.map((s) => s.endpoint)).toEqual([endpointB]);
  });

  test('a routed approval goes to its assignee first, then to everyone else; a personal push ignores choices', async () => {
    const { deps, sender } = await setup();
    const d = {
      ...deps,
      choices: choices({ user_sam: { approvals: false, urgent: true, everything: false } }),
    };
    await sendNotification(d, { ...approval, route: { assignee: 'user_alex', stage: 'assignee' } });
    expect(sender.sent.map((s) => s.endpoint)).toEqual([endpointA]);
    sender.sent.length = 0;
    // The team stage: not Alex again, and Sam chose no approvals.
    expect(
      await sendNotification(d, { ...approval, route: { assignee: 'user_alex', stage: 'team' } }),
    ).toMatchObject({ subscriptions: 0 });
    await sendNotification(d, { ...approval, kind: 'alert', userId: 'user_sam' });
    expect(sender.sent.map((s) => s.endpoint)).toEqual([endpointB]);
  });

  test('choices that cannot be read never stop a push', async () => {
    const { deps, sender, log } = await setup();
    const d = { ...deps, choices: { all: async () => Promise.reject(new Error('table unreachable')) } };
    await sendNotification(d, approval);
    expect(sender.sent).toHaveLength(2);
    expect(log.lines.some((l) => l.level === 'warn' && l.message.includes('choices unavailable'))).toBe(true);
  });
});
