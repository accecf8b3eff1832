import { DateTime } from 'luxon';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { composeDigest, digestConversationId, nextDigestAt } from '../../shared/src/domain/digest';
import { NotFoundError } from '../../shared/src/errors';
import { getConversation } from '../../shared/src/use-cases/get-conversation';
import { listConversations } from '../../shared/src/use-cases/list-conversations';
import { savePersonalPreferences } from '../../shared/src/use-cases/preferences';
import { digestEvent, rescheduleDigest } from '../../shared/src/use-cases/run-digest';
import { setLeadState } from '../../shared/src/use-cases/set-lead-state';
import {
  ALEX,
  createWorld,
  MARIA,
  SAM,
  type Servers,
  smsEvent,
  startServers,
  type World,
} from '../agent/harness';

/**
 * The daily digest (issue 20's Done-when: "the digest is sent at its hour"): a person sets an hour in their
 * preferences; a one-time timer on the Scheduler emulator fires when its clock reaches that hour; the worker
 * pushes the digest to that person only (cards waiting, urgent, leads waiting on us, follow-ups due), keeps
 * it in their digest thread and sets tomorrow's timer.
 */
let servers: Servers;
beforeAll(async () => {
  servers = await startServers();
}, 60_000);
afterAll(async () => {
  await servers?.stop();
});

const HOUR = 3600 * 1000;
const ZONE = 'America/New_York';

async function setHour(world: World, patch: { digestHour: number | null; timezone?: string }) {
  const saved = await savePersonalPreferences(world.core, { userId: SAM.id, patch, by: SAM.email });
  return rescheduleDigest(
    { timers: world.core.cardTimers.timers, clock: servers.clock, teamTimezone: ZONE },
    { userId: SAM.id, ...saved },
  );
}

const digestTimers = (world: World) =>
  world.scheduler?.schedules().filter((s) => s.name.startsWith('digest-')) ?? [];

test('at the hour Sam chose, Sam alone gets the digest by push; it is kept in his digest thread; tomorrow is set', async () => {
  const world = await createWorld(servers, { timers: true, env: { TEAM_TIMEZONE: ZONE } });
  try {
    // Something to report: a tenant's text waiting on a card, and a lead whose ball is in our court.
    await world.deliver(smsEvent(MARIA, 'The kitchen sink is leaking under the cabinet', servers.clock()));
    const lead = (await world.conversationFor(`sms:${MARIA}`))?.id as string;
    await setLeadState(world.core, { conversationId: lead, state: 'waiting_on_us', by: 'test' });

    const now = servers.clock();
    const at = await setHour(world, { digestHour: 7 });
    const local = DateTime.fromJSDate(at as Date).setZone(ZONE);
    expect(local.hour).toBe(7);
    expect(local.minute).toBe(0);
    expect((at as Date).getTime()).toBeGreaterThan(now.getTime());
    expect(digestTimers(world)).toHaveLength(1);

    // An hour before: nothing yet.
    const before = (at as Date).getTime() - now.getTime() - HOUR;
    servers.clock.advance(before);
    // The emulator's clock is the test's clock (plus its own offset): moving the base and firing what is due.
    await world.scheduler?.fireDue(); // the card's own timers may fire meanwhile
    await world.work();
    expect(world.notifications.filter((n) => n.title.startsWith('Your digest'))).toEqual([]);

    servers.clock.advance(HOUR + 1000);
    expect(await world.scheduler?.fireDue()).toBeGreaterThanOrEqual(1);
    await world.work();
    const pushed = world.notifications.filter((n) => n.title.startsWith('Your digest'));
    expect(pushed).toHaveLength(1);
    expect(pushed[0]).toMatchObject({
      kind: 'alert',
      userId: SAM.id,
      conversationId: digestConversationId(SAM.id),
      body: '1 card waiting · 0 urgent · 1 lead waiting on us · 0 follow-ups due',
    });
    const [kept] = await world.core.conversations.listMessages(digestConversationId(SAM.id));
    expect(kept?.text).toContain('Cards waiting (1)');
    expect(kept?.text).toContain('Leads waiting on us (1)');
    expect((await world.core.conversations.get(digestConversationId(SAM.id)))?.assignee).toBe(SAM.id);
    // The digest thread is Sam's own: in his inbox, in no one else's, and absent when Alex opens it.
    const inbox = async (userId: string) =>
      (await listConversations(world.core, { userId })).conversations.map((c) => c.id);
    expect(await inbox(SAM.id)).toContain(digestConversationId(SAM.id));
    expect(await inbox(ALEX.id)).not.toContain(digestConversationId(SAM.id));
    expect(await inbox(ALEX.id)).toContain(lead);
    await expect(
      getConversation(world.core, { conversationId: digestConversationId(SAM.id), userId: ALEX.id }),
    ).rejects.toBeInstanceOf(NotFoundError);
    // Tomorrow's is set (the fired one deleted itself after completion).
    const next = digestTimers(world);
    expect(next).toHaveLength(1);
  } finally {
    await world.stop();
  }
}, 60_000);

test('a changed hour cancels the old timer; switched off, no timer is left and a stale one does nothing', async () => {
  const world = await createWorld(servers, { timers: true, env: { TEAM_TIMEZONE: ZONE } });
  try {
    await setHour(world, { digestHour: 6 });
    const first = digestTimers(world).map((s) => s.name);
    await setHour(world, { digestHour: 8, timezone: 'Europe/Berlin' });
    const second = digestTimers(world).map((s) => s.name);
    expect(second).toHaveLength(1);
    expect(second).not.toEqual(first);
    // A timer left from the 6 o'clock setting (say it fired while the save was under way) sends nothing.
    const stale = nextDigestAt(6, ZONE, servers.clock());
    await world.deliver(digestEvent(SAM.id, stale));
    expect(world.notifications).toEqual([]);
    await setHour(world, { digestHour: null });
    expect(digestTimers(world)).toEqual([]);
  } finally {
    await world.stop();
  }
}, 60_000);

test('the digest text names each item; the hour is local, across a DST change', () => {
  // 2026-03-08 is the US spring-forward day: 07:00 local is 11:00 UTC after it, 12:00 UTC before.
  expect(nextDigestAt(7, ZONE, new Date('2026-03-07T13:00:00Z')).toISOString()).toBe(
    '2026-03-08T11:00:00.000Z',
  );
  expect(nextDigestAt(7, ZONE, new Date('2026-03-07T11:00:00Z')).toISOString()).toBe(
    '2026-03-07T12:00:00.000Z',
  );
  const now = new Date('2026-06-01T11:00:00Z');
  const d = composeDigest({
    now,
    timezone: ZONE,
    conversations: [
      {
        id: 'c_1',
        title: 'Maria Lopez',
        source: 'sms',
        preview: '',
        createdAt: '',
        updatedAt: '',
        lastMessageAt: '',
        createdBy: 'system',
        pendingCount: 2,
        readBy: {},
        urgent: { at: '2026-06-01T02:00:00Z', reason: 'Water through the ceiling' },
      },
      {
        id: 'c_2',
        title: 'Old flood',
        source: 'sms',
        preview: '',
        createdAt: '',
        updatedAt: '',
        lastMessageAt: '',
        createdBy: 'system',
        pendingCount: 0,
        readBy: {},
        urgent: { at: '2026-05-20T02:00:00Z', reason: 'old' },
      },
    ],
    followups: [
      {
        id: 'fu_1',
        conversationId: 'c_1',
        actionId: 'a_1',
        kind: 'text',
        to: MARIA,
        toName: 'Maria Lopez',
        text: 'hi',
        at: '2026-06-01T13:00:00Z',
        status: 'scheduled',
        createdAt: '',
        updatedAt: '',
      },
    ],
  });
  expect(d.counts).toEqual({ waiting: 2, urgent: 1, leads: 0, followups: 1 });
  expect(d.text).toContain('**Cards waiting (2)**\n- Maria Lopez: 2 to decide');
  expect(d.text).toContain('- Maria Lopez: Water through the ceiling');
  expect(d.text).toContain('- Mon 9:00 AM: text Maria Lopez');
  expect(d.text).not.toContain('Old flood');
});
