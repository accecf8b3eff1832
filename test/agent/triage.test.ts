import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  BOB,
  createWorld,
  DAVID,
  LEAD,
  MARIA,
  ONCALL,
  PRIYA,
  type Servers,
  smsEvent,
  startServers,
  UNKNOWN,
  type World,
} from './harness';

/**
 * Rules-mode triage of inbound texts (SPEC §3.1): who is it (known contact or not), is it urgent (page the
 * on-call person through Twilio without waiting), draft an acknowledgement for approval, alert the team.
 * Each row is a realistic text through the worker's whole path: queue → admission → run → DynamoDB.
 */
let servers: Servers;
let world: World;
beforeAll(async () => {
  servers = await startServers();
  world = await createWorld(servers);
});
afterAll(async () => {
  await world?.stop();
  await servers?.stop();
});

interface Row {
  who: string;
  from: string;
  text: string;
  urgent: boolean;
  /**
   * 'ack': a drafted acknowledgement awaits approval; 'welcome': one card adds the unknown sender as a
   * prospect and replies (issue 17); 'note': a team note, no draft; 'none': silent.
   */
  expect: 'ack' | 'welcome' | 'note' | 'none';
  /** What the drafted text and the card's reason must say, when the row checks it. */
  says?: RegExp;
  why?: RegExp;
}

const ROWS: Row[] = [
  {
    who: 'tenant',
    from: MARIA,
    text: 'Hi, the kitchen sink is leaking slowly',
    urgent: false,
    expect: 'ack',
    // The repair is named in the reply and on the card, not "we've received it" about nothing.
    says: /^Hi Maria, thanks for letting us know about the kitchen sink — we've received it/,
    why: /maintenance request · kitchen sink · /,
  },
  {
    who: 'tenant',
    from: DAVID,
    text: 'Is the rent due on the 1st or the 5th? I get paid on the 3rd',
    urgent: false,
    expect: 'ack',
  },
  {
    who: 'tenant',
    from: PRIYA,
    text: 'There is water pouring through the bathroom ceiling!! Please help',
    urgent: true,
    expect: 'ack',
  },
  {
    who: 'vendor',
    from: BOB,
    text: 'Finished the repair at 12 Oak St #2, invoice to follow tomorrow',
    urgent: false,
    expect: 'ack',
  },
  {
    who: 'lead',
    from: LEAD,
    text: 'Hi, is the 2-bed on Elm Ave still available? Could I see it Saturday morning?',
    urgent: false,
    expect: 'ack',
  },
  {
    who: 'unknown',
    from: UNKNOWN,
    text: 'Hello, I saw your listing on Craigslist, is the studio still available?',
    urgent: false,
    expect: 'welcome',
  },
];

describe('inbound texts, one conversation each', () => {
  test.each(ROWS)('$who $from: "$text"', async (row) => {
    const pagesBefore = servers.twilio.state.messages.length;
    const notesBefore = world.notifications.length;
    await world.deliver(smsEvent(row.from, row.text, servers.clock()));

    const conv = await world.conversationFor(`sms:${row.from}`);
    const actions = await world.actionsFor(`sms:${row.from}`);
    const drafts = actions.filter((a) => a.tool === 'send_message');
    const pages = servers.twilio.state.messages.slice(pagesBefore);
    const notes = world.notifications.slice(notesBefore);

    // Urgency: the on-call person is paged (policy allows it without approval), and only then.
    if (row.urgent) {
      expect(pages.map((p) => p.to)).toEqual([ONCALL]);
      expect(pages[0]?.body).toMatch(/URGENT/);
      expect(actions.find((a) => a.tool === 'escalate')?.status).toBe('EXECUTED');
    } else {
      expect(pages).toEqual([]);
      expect(actions.some((a) => a.tool === 'escalate')).toBe(false);
    }

    if (row.expect === 'ack') {
      expect(conv?.contact?.internal).toBe(false);
      expect(drafts).toHaveLength(1);
      const draft = drafts[0]!;
      expect(draft.status).toBe('PENDING');
      expect(draft.args.to).toBe(row.from);
      expect(String(draft.args.text)).toMatch(row.urgent ? /urgent/i : /received it/);
      expect(String(draft.args.text)).toMatch(new RegExp(`^Hi ${conv?.contact?.name?.split(' ')[0]}`));
      expect(draft.review.plan?.score).toBeGreaterThanOrEqual(6);
      if (row.says) expect(String(draft.args.text)).toMatch(row.says);
      if (row.why) expect(draft.reason).toMatch(row.why);
      expect(notes.filter((n) => n.kind === 'approval').map((n) => n.actionId)).toEqual([draft.id]);
    }
    if (row.expect === 'welcome') {
      expect(drafts).toEqual([]);
      const card = actions.find((a) => a.tool === 'welcome_contact');
      expect(card).toMatchObject({ status: 'PENDING', args: { phone: row.from, role: 'prospect' } });
      expect(String(card?.args.text)).toMatch(/^Hi, thanks for reaching out/);
      expect(notes.filter((n) => n.kind === 'approval').map((n) => n.actionId)).toEqual([card?.id]);
    }
    if (row.expect === 'note') {
      expect(drafts).toEqual([]);
      const messages = await world.core.conversations.listMessages(conv!.id);
      expect(messages.at(-1)?.text).toMatch(/unknown number/);
      expect(notes.map((n) => n.kind)).toEqual(['alert']);
    }
    // Nothing reaches the sender before a person approves.
    expect(world.sentTo(row.from)).toEqual([]);
  });
});

test('an urgent text from an unknown number pages on-call and the team note says so', async () => {
  const pagesBefore = servers.twilio.state.messages.length;
  const from = '+14155550178';
  await world.deliver(
    smsEvent(from, 'I smell gas in the hallway of 48 Elm, is anyone there?', servers.clock()),
  );
  expect(servers.twilio.state.messages.slice(pagesBefore).map((m) => m.to)).toEqual([ONCALL]);
  const conv = await world.conversationFor(`sms:${from}`);
  const messages = await world.core.conversations.listMessages(conv!.id);
  const note = messages.at(-1)?.text ?? '';
  expect(note).toMatch(/unknown number/);
  expect(note).toMatch(/on-call person was paged/);
});

test('a closing "thanks!" from a known tenant needs no reply and no card', async () => {
  const notesBefore = world.notifications.length;
  const event = smsEvent(DAVID, 'Thanks so much!', servers.clock());
  const before = (await world.actionsFor(`sms:${DAVID}`)).length;
  await world.deliver(event);
  expect(await world.actionsFor(`sms:${DAVID}`)).toHaveLength(before);
  expect(world.notifications.slice(notesBefore)).toEqual([]);
  const ledger = await world.core.ledger.get(event.id);
  expect(ledger).toMatchObject({ status: 'processed', reason: 'NO_ACTION_NEEDED' });
  expect(world.log.entries.some((e) => e.message === 'run.no_action')).toBe(true);
});

test('two texts inside the cooldown are coalesced into one run with one draft', async () => {
  const w = await createWorld(servers, {});
  try {
    const first = smsEvent(MARIA, 'The dishwasher is making a loud noise', servers.clock());
    const second = smsEvent(MARIA, 'Also the garbage disposal stopped working', servers.clock());
    const { runEventGroup } = await import('../../shared/src/use-cases/run-event-group');
    await runEventGroup(w.deps, [first, second]);
    const actions = await w.actionsFor(`sms:${MARIA}`);
    expect(actions).toHaveLength(1);
    const conv = await w.conversationFor(`sms:${MARIA}`);
    const inbound = (await w.core.conversations.listMessages(conv!.id)).filter((m) => m.role === 'inbound');
    expect(inbound.map((m) => m.text)).toEqual(
      [first.payload, second.payload].map((p) => (p as { text: string }).text),
    );
  } finally {
    await w.stop();
  }
});
