import { afterAll, beforeAll, expect, test } from 'vitest';
import type { PendingAction } from '../../shared/src/contracts/conversations';
import { setLeadState } from '../../shared/src/use-cases/set-lead-state';
import {
  createWorld,
  emailEvent,
  LEAD,
  type Servers,
  smsEvent,
  startServers,
  type World,
} from '../agent/harness';
import { FOLLOW_WEBHOOK_SECRET, startWebhookReceiver } from './support';

/** Lead state per lead: set when a lead writes, and a booked lead's next email gets no drafted reply. */
let servers: Servers;
beforeAll(async () => {
  servers = await startServers({ webhookSecret: FOLLOW_WEBHOOK_SECRET });
}, 60_000);
afterAll(async () => {
  await servers?.stop();
});

const lead = (text: string, threadId = 'th_lead_1') =>
  emailEvent(
    {
      from: 'Jordan Reyes <jordan.reyes@mail.example>',
      subject: 'Apartment at 48 Elm Ave',
      text,
      source: 'leads',
      threadId,
    },
    servers.clock(),
  );

test('a new lead is "new"; once a showing is booked, their next email is not answered', async () => {
  const world = await createWorld(servers);
  try {
    await world.deliver(lead('Hi, is the 2 bedroom at 48 Elm Ave still available? I would love to see it.'));
    const conv = await world.conversationFor('email:th_lead_1');
    expect(conv?.lead?.state).toBe('new');
    const before = (await world.core.actions.listByConversation(conv?.id as string)).length;

    await setLeadState(
      { ...world.core, clock: servers.clock },
      { conversationId: conv?.id as string, state: 'showing_booked', by: 'sam' },
    );
    servers.clock.advance(3600_000);
    await world.deliver(lead('Great, see you Thursday! Do I need to bring anything?'));
    const after = await world.core.conversations.get(conv?.id as string);
    expect(after?.lead?.state).toBe('showing_booked');
    expect((await world.core.actions.listByConversation(conv?.id as string)).length).toBe(before);
    expect(
      world.log.entries.some((e) => String(e.fields?.reason ?? '').includes('showing booked: no reply')),
    ).toBe(true);
  } finally {
    await world.stop();
  }
}, 60_000);

/** Runs the Scheduler emulator forward on the test's clock (its clock is the base clock plus its offset). */
async function fireAfter(world: World, ms: number) {
  servers.clock.advance(ms);
  await world.scheduler?.fireDue();
  await world.work();
}

test('by text: a lead who texts is new (flagged after 4 h unanswered); our sent invitation makes them invited, nudged after 2 days', async () => {
  const world = await createWorld(servers, { timers: true });
  try {
    await world.deliver(
      smsEvent(
        LEAD,
        'Hi! Is the 2 bedroom at 48 Elm Ave still available? I would love to see it',
        servers.clock(),
      ),
    );
    const conv = await world.conversationFor(`sms:${LEAD}`);
    expect(conv?.lead?.state).toBe('new');

    servers.clock.advance(3600_000);
    await world.deliver(smsEvent(LEAD, 'Also, is parking included?', servers.clock()));
    // Still "new" (never answered): a lead's second text does not restart the clock.
    expect((await world.core.conversations.get(conv?.id as string))?.lead?.state).toBe('new');
    await fireAfter(world, 4 * 3600_000 + 60_000);
    expect(world.notifications.map((n) => n.title)).toContain('Lead waiting on us: Tom Becker');

    // We answer with an invitation to a showing: approved and sent → invited, and the nudge check is set.
    const card = (await world.core.actions.listByConversation(conv?.id as string)).find(
      (a) => a.status === 'PENDING' && a.tool === 'send_message',
    );
    expect(card).toBeDefined();
    await world.decide(card as PendingAction, 'approve', {
      editedArgs: {
        ...card?.args,
        text: 'Hi Tom, yes! Parking is included. Would you like a showing on Thursday at 5?',
      },
    });
    await world.work();
    const invited = await world.core.conversations.get(conv?.id as string);
    expect(invited?.lead?.state).toBe('invited');
    const pending = async () =>
      (await world.core.actions.listByConversation(conv?.id as string)).filter((a) => a.status === 'PENDING');
    await fireAfter(world, 47 * 3600_000);
    expect(await pending()).toEqual([]);
    // Two days of silence: the nudge is DRAFTED as a card on the channel of our invitation (a text to Tom),
    // announced by the card's own approval push; nothing reaches Tom before a person approves it.
    const sentBefore = world.sentTo(LEAD).length;
    await fireAfter(world, 2 * 3600_000);
    const [nudge] = await pending();
    expect(nudge).toMatchObject({ tool: 'send_message', args: { to: LEAD } });
    expect(nudge?.args.text).toMatch(/^Hi Tom, just checking in: are you still interested in a showing of/);
    expect(world.notifications.map((n) => n.title)).toContain(`Approve: ${nudge?.summary}`.slice(0, 120));
    expect(world.sentTo(LEAD)).toHaveLength(sentBefore);
    const said = await world.core.conversations.listMessages(conv?.id as string);
    expect(said.map((m) => m.text)).toContainEqual(
      expect.stringMatching(/^Tom Becker has not answered since .+ I drafted a short nudge below/),
    );
    // Approved, it is sent once, and Tom (nudged, still silent) stays a lead we wait on.
    await world.decide(nudge as PendingAction, 'approve');
    await world.work();
    expect(world.sentTo(LEAD).map((m) => m.text)).toContain(nudge?.args.text);
    expect((await world.core.conversations.get(conv?.id as string))?.lead?.state).toBe('invited');
  } finally {
    await world.stop();
  }
}, 90_000);

test('a check whose lead moved on says nothing; a booked lead who texts gets no drafted reply', async () => {
  const world = await createWorld(servers, { timers: true });
  try {
    await world.deliver(
      smsEvent(LEAD, 'Hi, is the apartment on Elm Ave still for rent? Can I come see it?', servers.clock()),
    );
    await world.deliver(smsEvent(LEAD, 'Sorry, one more question: is it pet friendly?', servers.clock()));
    const conv = await world.conversationFor(`sms:${LEAD}`);
    expect(conv?.lead?.state).toBe('new');
    // A person books the showing before the 4-hour flag: the flag finds the lead moved on.
    await setLeadState(
      { ...world.core, clock: servers.clock },
      { conversationId: conv?.id as string, state: 'showing_booked', by: 'sam' },
    );
    await fireAfter(world, 5 * 3600_000);
    expect(world.notifications.filter((n) => n.title.startsWith('Lead waiting'))).toEqual([]);

    const before = (await world.core.actions.listByConversation(conv?.id as string)).length;
    await world.deliver(smsEvent(LEAD, 'Can I bring my partner to the showing?', servers.clock()));
    expect((await world.core.actions.listByConversation(conv?.id as string)).length).toBe(before);
    expect((await world.core.conversations.get(conv?.id as string))?.lead?.state).toBe('showing_booked');
    expect(
      world.log.entries.some((e) => String(e.fields?.reason ?? '').includes('showing booked: no reply')),
    ).toBe(true);
  } finally {
    await world.stop();
  }
}, 90_000);

test('by phone: an invited lead who calls us is waiting on us again', async () => {
  const world = await createWorld(servers, {
    timers: true,
    env: { OPENPHONE_WEBHOOK_SECRET: FOLLOW_WEBHOOK_SECRET },
  });
  const hook = await startWebhookReceiver(world);
  try {
    await world.deliver(
      smsEvent(LEAD, 'Hi, is the 2 bedroom at 48 Elm Ave still available?', servers.clock()),
    );
    const conv = await world.conversationFor(`sms:${LEAD}`);
    await setLeadState(
      { ...world.core, clock: servers.clock },
      { conversationId: conv?.id as string, state: 'invited', by: 'sam' },
    );
    servers.clock.advance(3600_000);
    const call = await servers.openphone.fireCall({
      from: LEAD,
      scheme: 'standard',
      durationSeconds: 95,
      summary: {
        summary: ['Asked whether Thursday 5 pm still works for the showing'],
        nextSteps: ['Confirm the time'],
      },
      transcript: [{ who: 'caller', text: 'Hi, does Thursday at 5 still work to see the apartment?' }],
      url: hook.url,
    });
    expect(call.deliveries.map((d) => d.status)).toEqual([202, 202, 202]);
    await world.work();
    expect((await world.core.conversations.get(conv?.id as string))?.lead?.state).toBe('waiting_on_us');
  } finally {
    await hook.stop();
    await world.stop();
  }
}, 60_000);

/**
 * Tom texts, our invitation is approved and sent, and two days of silence draft a nudge card (as in the test
 * above). Returns the conversation id and the waiting nudge.
 */
async function nudgeWaiting(world: World) {
  await world.deliver(smsEvent(LEAD, 'Hi! Is the 2 bedroom at 48 Elm Ave still available?', servers.clock()));
  const conv = await world.conversationFor(`sms:${LEAD}`);
  const id = conv?.id as string;
  const pending = async () =>
    (await world.core.actions.listByConversation(id)).filter((a) => a.status === 'PENDING');
  const [reply] = await pending();
  await world.decide(reply as PendingAction, 'approve', {
    editedArgs: { ...reply?.args, text: 'Hi Tom, yes! Would you like a showing on Thursday at 5?' },
  });
  await world.work();
  // The property Tom named is kept through the moves, and the nudge names it.
  expect((await world.core.conversations.get(id))?.lead).toMatchObject({
    state: 'invited',
    property: '48 Elm Ave',
  });
  await fireAfter(world, 49 * 3600_000);
  const [nudge] = await pending();
  expect(nudge?.whileLead).toMatchObject({ state: 'invited' });
  expect(nudge?.args.text).toContain('a showing of the apartment at 48 Elm Ave?');
  return { id, nudge: nudge as PendingAction };
}

test('a nudge approved after the lead moved on is not sent: the card is withdrawn with why', async () => {
  const world = await createWorld(servers, { timers: true });
  try {
    const { id, nudge } = await nudgeWaiting(world);
    const sentBefore = world.sentTo(LEAD).length;
    // Sam approves; before the worker runs the approval, Tom's answer has moved him (the text's turn ran first).
    await world.decide(nudge, 'approve');
    servers.clock.advance(60_000);
    await setLeadState(
      { ...world.core, clock: servers.clock },
      { conversationId: id, state: 'waiting_on_us', by: 'switchboard' },
    );
    await world.work();
    expect(world.sentTo(LEAD)).toHaveLength(sentBefore);
    const card = await world.core.actions.get(id, nudge.id);
    expect(card?.status).toBe('SUPERSEDED');
    expect(card?.supersededReason).toMatch(/^Tom Becker is waiting on us since .+: the nudge was not sent$/);
    const said = (await world.core.conversations.listMessages(id)).map((m) => m.text);
    expect(said).toContainEqual(expect.stringMatching(/^Not sent: .+ — Tom Becker is waiting on us since/));
  } finally {
    await world.stop();
  }
}, 90_000);

test('a lead who calls while their nudge waits: the nudge card is withdrawn, other cards stay', async () => {
  const world = await createWorld(servers, {
    timers: true,
    env: { OPENPHONE_WEBHOOK_SECRET: FOLLOW_WEBHOOK_SECRET },
  });
  const hook = await startWebhookReceiver(world);
  try {
    const { id, nudge } = await nudgeWaiting(world);
    const call = await servers.openphone.fireCall({
      from: LEAD,
      scheme: 'standard',
      durationSeconds: 60,
      summary: { summary: ['Wants to see the apartment Saturday'], nextSteps: ['Confirm Saturday'] },
      transcript: [{ who: 'caller', text: 'Hi, could I see the apartment on Saturday instead?' }],
      url: hook.url,
    });
    expect(call.deliveries.map((d) => d.status)).toEqual([202, 202, 202]);
    await world.work();
    const card = await world.core.actions.get(id, nudge.id);
    expect(card?.status).toBe('SUPERSEDED');
    expect(card?.supersededReason).toMatch(/^Tom Becker called on .+: no nudge needed\.$/);
    expect((await world.core.conversations.get(id))?.lead?.state).toBe('waiting_on_us');
    // The call's own follow-up (a text to Tom) is a new card and waits.
    const waiting = (await world.core.actions.listByConversation(id)).filter((a) => a.status === 'PENDING');
    expect(waiting.every((a) => !a.whileLead)).toBe(true);
  } finally {
    await hook.stop();
    await world.stop();
  }
}, 90_000);
