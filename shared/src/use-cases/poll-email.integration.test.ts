import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GoogleEmulator, startGoogleEmulator } from '../../../scripts/emulators/google';
import { DEMO_LEADS_SOURCE, DEMO_NOTIFICATIONS_SOURCE } from '../../../scripts/emulators/seed/google-data';
import { freshTable } from '../../../test/helpers';
import { dynamoEmailCursorStore } from '../adapters/dynamo/email-cursor-store';
import { createGoogleAuth } from '../adapters/google/auth';
import { createGmailMailbox } from '../adapters/google/gmail-mailbox';
import type { EventEnvelope, EventOf } from '../contracts/events';
import { type PollEmailDeps, pollEmail } from './poll-email';

/**
 * The poll end to end over HTTP: the real Gmail client against the Google emulator, the cursor in
 * DynamoDB Local, and a recording queue. Uses the same default queries as config.ts.
 */
let emu: GoogleEmulator;
let deps: PollEmailDeps;
const sent: EventEnvelope[] = [];
const ZONE = 'America/New_York';

const messageIds = (source?: 'general' | 'leads') =>
  sent
    .filter((e): e is EventOf<'email.received'> => e.type === 'email.received')
    .filter((e) => !source || e.payload.source === source)
    .map((e) => e.payload.messageId);

beforeAll(async () => {
  emu = await startGoogleEmulator();
  const table = await freshTable('poll');
  deps = {
    mailbox: createGmailMailbox({
      auth: createGoogleAuth({ serviceAccount: emu.serviceAccountJson, subject: emu.mailbox }),
      address: emu.mailbox,
      rootUrl: `${emu.url}/`,
    }),
    cursors: dynamoEmailCursorStore({ doc: table.doc, tableName: table.tableName }),
    queue: {
      async send(e) {
        await new Promise((r) => setTimeout(r, Math.random() * 5));
        sent.push(e);
      },
    },
    config: {
      generalQuery: 'is:unread -category:promotions -from:notifications -from:leads',
      leadsQuery: 'from:leads',
      timezone: ZONE,
      bodyLimit: 500,
      maxPerPoll: 4,
    },
  };
});
afterAll(async () => {
  await emu?.stop();
});

/** A moment inside leads hours today, so the leads poll runs whatever the wall clock says. */
const leadsNow = () => DateTime.now().setZone(ZONE).set({ hour: 12 }).toJSDate();

describe('pollEmail against Gmail (emulator) and DynamoDB', () => {
  it('enqueues the seeded inbox once, excluding promotions, tool notifications and leads', async () => {
    const general = await pollEmail(deps, { source: 'general', now: new Date() });
    expect(general.enqueued).toBe(3);
    expect(messageIds('general').sort()).toEqual([
      '18f0a00000000003',
      '18f0a00000000004',
      '18f0a00000000008',
    ]);
    const leads = await pollEmail(deps, { source: 'leads', now: leadsNow() });
    expect(leads.enqueued).toBe(1);
    expect(messageIds('leads')).toEqual(['18f0a00000000007']);
    const lead = sent.find(
      (e) => e.type === 'email.received' && e.payload.source === 'leads',
    ) as EventOf<'email.received'>;
    expect(lead.payload.text).toContain('Credit score (self-reported): 700');
    expect(lead.key).toBe('email:18f0a00000000007');
  });

  it('overlapping polls, with mail arriving meanwhile, enqueue every new email exactly once', async () => {
    const before = sent.length;
    const expected: string[] = [];
    const deliver = (from: string, subject: string, labelIds?: string[]) => {
      const { id } = emu.state.deliverEmail({
        from,
        subject,
        text: subject,
        ...(labelIds ? { labelIds } : {}),
      });
      return id;
    };
    for (let i = 0; i < 5; i++) expected.push(deliver(`tenant${i}@mail.example`, `Question ${i}`));
    const promo = deliver('deals@shop.example', 'Sale', ['INBOX', 'UNREAD', 'CATEGORY_PROMOTIONS']);
    const notification = deliver(DEMO_NOTIFICATIONS_SOURCE, 'Task updated');
    const lead = deliver(DEMO_LEADS_SOURCE, 'New lead: Ana');

    const polls = Array.from({ length: 5 }, () => pollEmail(deps, { source: 'general', now: new Date() }));
    polls.push(
      pollEmail(deps, { source: 'leads', now: leadsNow() }),
      pollEmail(deps, { source: 'leads', now: leadsNow() }),
    );
    await new Promise((r) => setTimeout(r, 5));
    for (let i = 5; i < 9; i++) expected.push(deliver(`tenant${i}@mail.example`, `Question ${i}`));
    polls.push(...Array.from({ length: 3 }, () => pollEmail(deps, { source: 'general', now: new Date() })));
    await Promise.all(polls);
    // Catch-up polls (maxPerPoll is 4, so a burst takes a few rounds).
    for (let i = 0; i < 4; i++) await pollEmail(deps, { source: 'general', now: new Date() });
    await pollEmail(deps, { source: 'leads', now: leadsNow() });

    const fresh = sent
      .slice(before)
      .filter((e): e is EventOf<'email.received'> => e.type === 'email.received');
    const general = fresh.filter((e) => e.payload.source === 'general').map((e) => e.payload.messageId);
    expect(new Set(general).size).toBe(general.length);
    expect(general.sort()).toEqual([...expected].sort());
    expect(fresh.filter((e) => e.payload.source === 'leads').map((e) => e.payload.messageId)).toEqual([lead]);
    expect(fresh.map((e) => e.payload.messageId)).not.toContain(promo);
    expect(fresh.map((e) => e.payload.messageId)).not.toContain(notification);
  });
});
