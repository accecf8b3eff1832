import { describe, expect, it } from 'vitest';
import type { EventEnvelope, EventOf } from '../contracts/events';
import { NotFoundError } from '../errors';
import type { EmailCursor, EmailCursorStore } from '../ports/email-cursor-store';
import type { Mailbox, MailMessage, MailRef } from '../ports/mailbox';
import { type PollEmailConfig, type PollEmailDeps, pollEmail, withinLeadsHours } from './poll-email';

const T0 = Date.parse('2025-06-02T14:00:00Z'); // 10:00 in New York
const MIN = 60_000;

const tick = () => new Promise((r) => setTimeout(r, Math.random() * 3));

/** In-memory mailbox: search ignores the query (queries are the adapter's business) and lists newest first. */
class FakeMailbox implements Pick<Mailbox, 'listSince' | 'read'> {
  messages: MailMessage[] = [];
  /** Ids that search does not return yet (Gmail indexing lag). */
  hidden = new Set<string>();
  reads = 0;

  add(id: string, internalDate: number, threadId = `t-${id}`) {
    this.messages.push({
      id,
      threadId,
      from: `Sender ${id} <s${id}@mail.example>`,
      to: 'office@oakproperties.example',
      subject: `Subject ${id}`,
      date: new Date(internalDate).toISOString(),
      snippet: '',
      labels: ['INBOX', 'UNREAD'],
      unread: true,
      internalDate,
      text: `Body of ${id}`,
      truncated: false,
      messageIdHeader: `<${id}@mail.example>`,
      attachments: [],
    });
  }

  async listSince({ sinceMs }: { query: string; sinceMs: number }): Promise<MailRef[]> {
    await tick();
    return this.messages
      .filter((m) => m.internalDate >= sinceMs - 1000 && !this.hidden.has(m.id))
      .sort((a, b) => b.internalDate - a.internalDate)
      .map((m) => ({ id: m.id, threadId: m.threadId }));
  }

  async read(id: string): Promise<MailMessage> {
    await tick();
    this.reads += 1;
    const m = this.messages.find((x) => x.id === id);
    if (!m) throw new NotFoundError('email not found');
    return m;
  }
}

class MemoryCursors implements EmailCursorStore {
  items = new Map<string, EmailCursor>();
  async get(name: string) {
    await tick();
    const c = this.items.get(name);
    return c ? structuredClone(c) : undefined;
  }
  async compareAndSet(name: string, expected: number, next: Omit<EmailCursor, 'version'>) {
    await tick();
    if ((this.items.get(name)?.version ?? 0) !== expected) return false;
    this.items.set(name, { ...structuredClone(next), version: expected + 1 });
    return true;
  }
}

class FakeQueue {
  sent: EventEnvelope[] = [];
  failFor = new Set<string>();
  async send(e: EventEnvelope) {
    await tick();
    if (e.type === 'email.received' && this.failFor.has(e.payload.messageId))
      throw new Error('SQS unavailable');
    this.sent.push(e);
  }
  ids() {
    return this.sent.map((e) => (e as EventOf<'email.received'>).payload.messageId);
  }
}

const config: PollEmailConfig = {
  generalQuery: 'is:unread -category:promotions',
  leadsQuery: 'from:leads',
  timezone: 'America/New_York',
  bodyLimit: 4000,
  lookbackMs: 10 * MIN,
};

function setup(overrides: Partial<PollEmailConfig> = {}) {
  const mailbox = new FakeMailbox();
  const cursors = new MemoryCursors();
  const queue = new FakeQueue();
  const deps: PollEmailDeps = { mailbox, cursors, queue, config: { ...config, ...overrides } };
  return { mailbox, cursors, queue, deps };
}

const at = (ms: number) => new Date(ms);

describe('pollEmail', () => {
  it('enqueues one email.received per new message, oldest first, then nothing on the next poll', async () => {
    const { mailbox, queue, deps } = setup();
    mailbox.add('a', T0 - 30 * MIN);
    mailbox.add('b', T0 - 20 * MIN, 't-shared');
    mailbox.add('c', T0 - 10 * MIN, 't-shared');
    await expect(pollEmail(deps, { source: 'general', now: at(T0) })).resolves.toEqual({
      enqueued: 3,
      skipped: 0,
    });
    expect(queue.ids()).toEqual(['a', 'b', 'c']);
    const first = queue.sent[1] as EventOf<'email.received'>;
    expect(first).toMatchObject({
      type: 'email.received',
      key: 'email:t-shared',
      correlationId: 'gmail:b',
      occurredAt: new Date(T0 - 20 * MIN).toISOString(),
      payload: {
        messageId: 'b',
        threadId: 't-shared',
        source: 'general',
        text: 'Body of b',
        messageIdHeader: '<b@mail.example>',
      },
    });
    await expect(pollEmail(deps, { source: 'general', now: at(T0 + MIN) })).resolves.toEqual({
      enqueued: 0,
      skipped: 2,
    });
    expect(queue.sent).toHaveLength(3);
  });

  it('picks up a message that shares the newest timestamp with one already handled', async () => {
    const { mailbox, queue, deps } = setup({ lookbackMs: 0 });
    mailbox.add('a', T0 - MIN);
    await pollEmail(deps, { source: 'general', now: at(T0) });
    mailbox.add('b', T0 - MIN);
    await pollEmail(deps, { source: 'general', now: at(T0 + MIN) });
    expect(queue.ids()).toEqual(['a', 'b']);
  });

  it('picks up a message that search surfaces late, within the look-back window', async () => {
    const { mailbox, queue, deps } = setup();
    mailbox.add('early', T0 - 5 * MIN);
    mailbox.add('late', T0 - 4 * MIN);
    mailbox.add('newer', T0 - 1 * MIN);
    mailbox.hidden.add('late');
    await pollEmail(deps, { source: 'general', now: at(T0) });
    mailbox.hidden.delete('late');
    await pollEmail(deps, { source: 'general', now: at(T0 + 2 * MIN) });
    expect(queue.ids()).toEqual(['early', 'newer', 'late']);
  });

  it('caps a poll and catches up in order on the next ones, missing nothing', async () => {
    const { mailbox, queue, deps } = setup({ maxPerPoll: 4 });
    for (let i = 0; i < 10; i++) mailbox.add(`m${i}`, T0 - (60 - i) * MIN);
    const results = [];
    for (let i = 0; i < 4; i++)
      results.push(await pollEmail(deps, { source: 'general', now: at(T0 + i * MIN) }));
    expect(results.map((r) => r.enqueued)).toEqual([4, 4, 2, 0]);
    expect(queue.ids()).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`));
  });

  it('overlapping polls never enqueue a message twice nor skip one', async () => {
    const { mailbox, queue, deps } = setup({ maxPerPoll: 5 });
    for (let i = 0; i < 12; i++) mailbox.add(`x${i}`, T0 - (30 - i) * MIN);
    const wave = async (n: number, now: number) =>
      Promise.all(Array.from({ length: n }, () => pollEmail(deps, { source: 'general', now: at(now) })));
    await wave(6, T0);
    for (let i = 0; i < 5; i++) mailbox.add(`y${i}`, T0 + i * 1000);
    await wave(6, T0 + MIN);
    await wave(3, T0 + 2 * MIN);
    await wave(3, T0 + 3 * MIN);
    const ids = queue.ids();
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(
      [
        ...Array.from({ length: 12 }, (_, i) => `x${i}`),
        ...Array.from({ length: 5 }, (_, i) => `y${i}`),
      ].sort(),
    );
  });

  it('re-sends only what failed to enqueue, on the next poll', async () => {
    const { mailbox, queue, deps } = setup();
    mailbox.add('ok1', T0 - 3 * MIN);
    mailbox.add('bad', T0 - 2 * MIN);
    mailbox.add('ok2', T0 - 1 * MIN);
    queue.failFor.add('bad');
    await expect(pollEmail(deps, { source: 'general', now: at(T0) })).rejects.toThrow('SQS unavailable');
    expect(queue.ids()).toEqual(['ok1', 'ok2']);
    queue.failFor.clear();
    await expect(pollEmail(deps, { source: 'general', now: at(T0 + MIN) })).resolves.toMatchObject({
      enqueued: 1,
    });
    expect(queue.ids()).toEqual(['ok1', 'ok2', 'bad']);
  });

  it('re-sends the claims of a poll that died, once their lease has expired', async () => {
    const { mailbox, cursors, queue, deps } = setup({ leaseMs: 5 * MIN });
    mailbox.add('orphan', T0 - 2 * MIN);
    // A poll claimed "orphan" at T0 and crashed before enqueueing it.
    await cursors.compareAndSet('email-general', 0, {
      internalDate: T0 - 2 * MIN,
      seen: { orphan: T0 - 2 * MIN },
      inflight: [{ id: 'orphan', internalDate: T0 - 2 * MIN, claimedAt: T0 }],
    });
    await expect(pollEmail(deps, { source: 'general', now: at(T0 + MIN) })).resolves.toMatchObject({
      enqueued: 0,
    });
    await pollEmail(deps, { source: 'general', now: at(T0 + 6 * MIN) });
    await pollEmail(deps, { source: 'general', now: at(T0 + 12 * MIN) });
    expect(queue.ids()).toEqual(['orphan']);
    expect((await cursors.get('email-general'))?.inflight).toEqual([]);
  });

  it('skips a message deleted between listing and reading', async () => {
    const { mailbox, queue, deps } = setup();
    mailbox.add('gone', T0 - MIN);
    const read = mailbox.read.bind(mailbox);
    mailbox.read = async (id) => (id === 'gone' ? Promise.reject(new NotFoundError('gone')) : read(id));
    await expect(pollEmail(deps, { source: 'general', now: at(T0) })).resolves.toEqual({
      enqueued: 0,
      skipped: 1,
    });
    expect(queue.sent).toEqual([]);
  });

  it('runs the leads poll only between 08:00 and 20:00 team time', async () => {
    const { mailbox, queue, deps } = setup();
    mailbox.add('lead', Date.parse('2025-06-02T11:00:00Z'));
    const early = Date.parse('2025-06-02T11:59:00Z'); // 07:59 EDT
    await expect(pollEmail(deps, { source: 'leads', now: at(early) })).resolves.toEqual({
      enqueued: 0,
      skipped: 0,
      outsideHours: true,
    });
    expect(mailbox.reads).toBe(0);
    await expect(pollEmail(deps, { source: 'leads', now: at(early + MIN) })).resolves.toMatchObject({
      enqueued: 1,
    });
    expect(queue.sent[0]).toMatchObject({ payload: { source: 'leads' } });
  });

  it('computes leads hours in the team zone across a DST change', () => {
    // 2025-03-09 is the spring-forward day in New York: 08:00 local is 12:00Z (EDT), the day before 13:00Z.
    expect(withinLeadsHours(new Date('2025-03-09T11:59:00Z'), 'America/New_York')).toBe(false);
    expect(withinLeadsHours(new Date('2025-03-09T12:00:00Z'), 'America/New_York')).toBe(true);
    expect(withinLeadsHours(new Date('2025-03-08T12:30:00Z'), 'America/New_York')).toBe(false);
    expect(withinLeadsHours(new Date('2025-03-09T23:59:00Z'), 'America/New_York')).toBe(true);
    expect(withinLeadsHours(new Date('2025-03-10T00:00:00Z'), 'America/New_York')).toBe(false);
  });
});
