import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler, resetEmailPollDeps } from '../../functions/email-poll';
import { type GoogleEmulator, startGoogleEmulator } from '../../scripts/emulators/google';
import { DEMO_LEADS_SOURCE } from '../../scripts/emulators/seed/google-data';
import { triggerPoll } from '../../scripts/simulate-email';
import { type EventOf, eventEnvelope } from '../../shared/src/contracts/events';
import { withinLeadsHours } from '../../shared/src/use-cases/poll-email';
import { type InboundBackends, startInboundBackends } from './fixtures';

/**
 * The email-poll function as EventBridge invokes it — the schedule's fixed input, nothing else — wired by its
 * own composition to the Google emulator (real Gmail client, service-account delegation), DynamoDB Local (the
 * cursor) and fauxqs (the events queue). The cursor's own races are covered beside the use case
 * (shared/src/use-cases/poll-email*.test.ts); here it is the edge: input validation, what lands on the real
 * queue, and overlapping schedule invocations through the handler.
 */
const ZONE = 'America/New_York';
let emu: GoogleEmulator;
let be: InboundBackends;

beforeAll(async () => {
  emu = await startGoogleEmulator();
  be = await startInboundBackends({ ...emu.env, TEAM_TIMEZONE: ZONE });
  resetEmailPollDeps();
});
afterAll(async () => {
  resetEmailPollDeps();
  await emu?.stop();
  await be?.stop();
});

const queuedEmails = async () =>
  (await be.drain())
    .map((b) => eventEnvelope.parse(JSON.parse(b)))
    .filter((e): e is EventOf<'email.received'> => e.type === 'email.received');

describe('functions/email-poll handler', () => {
  it.each([
    [{}, /source/],
    [{ source: 'spam' }, /source/],
    [null, /\(root\)/],
    ['general', /\(root\)/],
  ])('input %j is not a schedule input → ValidationError, nothing polled', async (input, reason) => {
    const before = emu.state.requests.length;
    await expect(handler(input)).rejects.toMatchObject({ code: 'validation_failed', message: reason });
    expect(emu.state.requests.length).toBe(before);
    expect(await be.drain()).toEqual([]);
  });

  it('the general schedule enqueues each inbox email once on the real queue', async () => {
    const first = await handler({ source: 'general' });
    expect(first.enqueued).toBeGreaterThan(0);
    const events = await queuedEmails();
    expect(events).toHaveLength(first.enqueued);
    expect(new Set(events.map((e) => e.payload.messageId)).size).toBe(events.length);
    for (const e of events) {
      expect(e.key).toBe(`email:${e.payload.threadId}`);
      expect(e.correlationId).toBe(`gmail:${e.payload.messageId}`);
      expect(e.payload.source).toBe('general');
      expect(e.payload.from).not.toContain(DEMO_LEADS_SOURCE);
    }
    // The next schedule finds nothing new.
    expect((await handler({ source: 'general' })).enqueued).toBe(0);
    expect(await queuedEmails()).toEqual([]);
  });

  it('overlapping invocations of the schedule, with mail arriving between them: every email exactly once', async () => {
    await handler({ source: 'general' });
    await be.drain();
    const ids = ['Boiler noise', 'Lease renewal', 'Key pickup'].map(
      (subject, i) =>
        emu.state.deliverEmail({ from: `tenant${i}@mail.example`, subject, text: `${subject}?` }).id,
    );
    const polls = Array.from({ length: 4 }, () => handler({ source: 'general' }));
    const late = emu.state.deliverEmail({ from: 'tenant9@mail.example', subject: 'Late one', text: 'hi' }).id;
    polls.push(handler({ source: 'general' }), handler({ source: 'general' }));
    await Promise.all(polls);
    await handler({ source: 'general' });
    const got = (await queuedEmails()).map((e) => e.payload.messageId);
    expect(got.sort()).toEqual([...ids, late].sort());
  });

  it('the leads schedule polls only the leads source, and only within team hours', async () => {
    const lead = emu.state.deliverEmail({
      from: `Zillow Rentals <${DEMO_LEADS_SOURCE}>`,
      subject: 'New lead: Ana wants a showing',
      text: 'Credit score (self-reported): 720',
    }).id;
    const now = new Date();
    const result = await handler({ source: 'leads' });
    const events = await queuedEmails();
    if (withinLeadsHours(now, ZONE)) {
      expect(events.map((e) => e.payload.messageId)).toContain(lead);
      expect(events.every((e) => e.payload.source === 'leads')).toBe(true);
    } else {
      expect(result).toMatchObject({ enqueued: 0, outsideHours: true });
      expect(events).toEqual([]);
    }
  });

  it('simulate:email triggers the poll the way the scheduler does', async () => {
    await handler({ source: 'general' });
    await be.drain();
    const { id } = emu.state.deliverEmail({
      from: 'maria.lopez@mail.example',
      subject: 'Dripping tap',
      text: 'x',
    });
    const result = await triggerPoll(
      {
        url: 'http://127.0.0.1:1',
        openPhoneWebhookSecret: 'unused',
        env: { ...emu.env, TEAM_TIMEZONE: ZONE },
      },
      'general',
    );
    expect(result.enqueued).toBe(1);
    expect((await queuedEmails()).map((e) => e.payload.messageId)).toEqual([id]);
  });
});
