import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GoogleEmulator, startGoogleEmulator } from '../../../../scripts/emulators/google';
import { DEMO_LEADS_SOURCE } from '../../../../scripts/emulators/seed/google-data';
import { NotFoundError, ValidationError } from '../../errors';
import type { Mailbox } from '../../ports/mailbox';
import { createGoogleAuth } from './auth';
import { createGmailMailbox } from './gmail-mailbox';

let emu: GoogleEmulator;
let mailbox: Mailbox;

const GENERAL = 'is:unread -category:promotions -from:notifications -from:leads';
const ID = {
  davidFirst: '18f0a00000000001',
  davidFollowUp: '18f0a00000000003',
  maria: '18f0a00000000004',
  lead: '18f0a00000000007',
  invoice: '18f0a00000000008',
};

beforeAll(async () => {
  emu = await startGoogleEmulator();
  mailbox = createGmailMailbox({
    auth: createGoogleAuth({ serviceAccount: emu.serviceAccountJson, subject: emu.mailbox }),
    address: emu.mailbox,
    fromName: 'Oak Properties',
    rootUrl: `${emu.url}/`,
    retry: { retryDelayMs: 10, maxRetryDelayMs: 20 },
  });
});
afterAll(async () => {
  await emu?.stop();
});

describe('GmailMailbox.search and read', () => {
  it('finds the unread general mail and leaves out promotions, tool notifications and leads', async () => {
    const found = await mailbox.search(GENERAL, { limit: 20 });
    expect(found.map((m) => m.id).sort()).toEqual([ID.davidFollowUp, ID.maria, ID.invoice].sort());
    const maria = found.find((m) => m.id === ID.maria);
    expect(maria).toMatchObject({ subject: 'Heater making a loud noise', unread: true });
    expect(maria?.from).toContain('maria.lopez@mail.example');
  });

  it('finds the lead by its source address', async () => {
    const leads = await mailbox.search(`from:${DEMO_LEADS_SOURCE}`);
    expect(leads.map((m) => m.id)).toEqual([ID.lead]);
  });

  it('reads the text/plain part of a multipart/alternative message', async () => {
    const m = await mailbox.read(ID.maria);
    expect(m.text).toContain('the heater in 12 Oak St #2 is banging');
    expect(m.text).not.toContain('<b>');
    expect(m.messageIdHeader).toBe('<CAMl0004@mail.example>');
    expect(m.internalDate).toBeGreaterThan(0);
  });

  it('converts an HTML-only body to text and lists attachments without inlining them', async () => {
    const m = await mailbox.read(ID.invoice);
    expect(m.text).toContain('attached is invoice 1042 for the pipe repair');
    expect(m.text).toContain('Bob & crew');
    expect(m.attachments).toEqual([
      { filename: 'invoice-1042.pdf', mimeType: 'application/pdf', size: expect.any(Number) },
    ]);
  });

  it('drops quoted history and trims the body to the limit', async () => {
    const full = await mailbox.read(ID.davidFollowUp);
    expect(full.text).toBe('Great, thank you. Could the new lease start on the 1st of next month?');
    const short = await mailbox.read(ID.davidFollowUp, { bodyLimit: 20 });
    expect(short.text.length).toBeLessThanOrEqual(20);
    expect(short.truncated).toBe(true);
  });

  it('maps a missing message to NotFoundError', async () => {
    await expect(mailbox.read('ffffffffffffffff')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('GmailMailbox.listSince', () => {
  it('lists only mail received at or after the given time (with at most a second of slack)', async () => {
    const at = Date.now() - 5 * 60_000;
    const fresh = emu.state.deliverEmail({
      from: 'priya.n@mail.example',
      subject: 'Parking spot',
      text: 'Hi',
      internalDate: at,
    });
    const refs = await mailbox.listSince({ query: GENERAL, sinceMs: at });
    expect(refs.map((r) => r.id)).toEqual([fresh.id]);
    const older = await mailbox.listSince({ query: GENERAL, sinceMs: at - 24 * 3600_000 });
    expect(older.map((r) => r.id)).toEqual(expect.arrayContaining([fresh.id, ID.maria, ID.invoice]));
  });
});

describe('GmailMailbox.sendReply', () => {
  it('replies inside the thread with In-Reply-To, References and a single Re: prefix', async () => {
    const sent = await mailbox.sendReply({
      replyToMessageId: ID.davidFollowUp,
      text: 'Yes, the new lease can start on the 1st. — Oak Properties',
      clientRef: 'act_thread_1',
    });
    const record = emu.state.sent().find((s) => s.id === sent.id);
    expect(record).toBeDefined();
    // The emulator applies Gmail's threading rule; a wrong header would have started a new thread.
    expect(sent.threadId).toBe('18f0a00000000001');
    expect(record?.threadId).toBe(record?.requestedThreadId);
    expect(record?.subject).toBe('Re: Lease renewal question');
    expect(record?.inReplyTo).toBe('<CAFdk1003@mail.example>');
    expect(record?.references).toBe(
      '<CAFdk1001@mail.example> <reply-2001@oakproperties.example> <CAFdk1003@mail.example>',
    );
    expect(record?.to).toContain('dkim@mail.example');
    expect(record?.from).toContain(emu.mailbox);
    expect(record?.text).toBe('Yes, the new lease can start on the 1st. — Oak Properties');
    expect(record?.messageIdHeader).toBe(sent.messageIdHeader);
  });

  it('starts the References chain and adds Re: for a first reply', async () => {
    const sent = await mailbox.sendReply({
      replyToMessageId: ID.maria,
      text: 'We will send CoolAir today.',
      clientRef: 'act_2',
    });
    const record = emu.state.sent().find((s) => s.id === sent.id);
    expect(record).toMatchObject({
      threadId: ID.maria,
      subject: 'Re: Heater making a loud noise',
      inReplyTo: '<CAMl0004@mail.example>',
      references: '<CAMl0004@mail.example>',
    });
  });

  it('refuses an empty reply before calling Gmail', async () => {
    const before = emu.state.sent().length;
    await expect(
      mailbox.sendReply({ replyToMessageId: ID.maria, text: '  ', clientRef: 'x' }),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(emu.state.sent()).toHaveLength(before);
  });

  it('does not retry a send that failed upstream (the outcome is reconciled instead)', async () => {
    emu.state.failNext('/gmail/v1/users/me/messages/send', 503);
    const before = emu.state.sent().length;
    await expect(
      mailbox.sendReply({ replyToMessageId: ID.maria, text: 'Retry me?', clientRef: 'act_503' }),
    ).rejects.toMatchObject({ retryable: true });
    expect(emu.state.sent()).toHaveLength(before);
    expect(
      emu.state.requests.filter((r) => r.path.endsWith('/messages/send') && r.status === 503),
    ).toHaveLength(1);
  });
});

describe('GmailMailbox.findSent (reconciliation)', () => {
  it('finds a sent reply by its client reference, and nothing for an unknown one', async () => {
    const sent = await mailbox.sendReply({
      replyToMessageId: ID.maria,
      text: 'On our way.',
      clientRef: 'act_find_1',
    });
    await expect(mailbox.findSent({ clientRef: 'act_find_1' })).resolves.toEqual(sent);
    await expect(
      mailbox.findSent({ clientRef: 'act_never_sent', threadId: ID.maria }),
    ).resolves.toBeUndefined();
  });

  it('falls back to the thread when Gmail did not keep our Message-ID', async () => {
    emu.state.replaceSentMessageIds(true);
    try {
      const sent = await mailbox.sendReply({
        replyToMessageId: ID.maria,
        text: 'Rescheduled.',
        clientRef: 'act_find_2',
      });
      await expect(mailbox.findSent({ clientRef: 'act_find_2' })).resolves.toBeUndefined();
      const found = await mailbox.findSent({ clientRef: 'act_find_2', threadId: sent.threadId });
      expect(found?.id).toBe(sent.id);
    } finally {
      emu.state.replaceSentMessageIds(false);
    }
  });
});

describe('GmailMailbox upstream failures', () => {
  it('retries a 429 on a read and then succeeds', async () => {
    emu.state.failNext(`/gmail/v1/users/me/messages/${ID.maria}`, 429);
    const m = await mailbox.read(ID.maria);
    expect(m.id).toBe(ID.maria);
    const hits = emu.state.requests
      .filter((r) => r.path === `/gmail/v1/users/me/messages/${ID.maria}`)
      .slice(-2);
    expect(hits.map((r) => r.status)).toEqual([429, 200]);
  });

  it('gives up after bounded retries with a retryable rate-limit error', async () => {
    emu.state.failNext(`/gmail/v1/users/me/messages/${ID.lead}`, 429, { times: 10 });
    await expect(mailbox.read(ID.lead)).rejects.toMatchObject({ code: 'rate_limited', retryable: true });
    const attempts = emu.state.requests.filter(
      (r) => r.path === `/gmail/v1/users/me/messages/${ID.lead}` && r.status === 429,
    );
    expect(attempts).toHaveLength(4);
    emu.state.clearFailures();
  });

  it('reports a malformed response as a non-retryable upstream fault', async () => {
    emu.state.respondNext(`/gmail/v1/users/me/messages/${ID.invoice}`, { status: 200, body: '{"id": 42}' });
    await expect(mailbox.read(ID.invoice)).rejects.toMatchObject({
      code: 'upstream_malformed',
      retryable: false,
    });
    emu.state.respondNext('/gmail/v1/users/me/messages', { status: 200, body: '<html>maintenance</html>' });
    await expect(mailbox.search(GENERAL)).rejects.toMatchObject({ code: 'upstream_malformed' });
  });

  it('reports revoked credentials (401) as a non-retryable auth failure', async () => {
    const fresh = createGmailMailbox({
      auth: createGoogleAuth({ serviceAccount: emu.serviceAccountJson, subject: emu.mailbox }),
      address: emu.mailbox,
      rootUrl: `${emu.url}/`,
    });
    await fresh.read(ID.maria);
    emu.state.revokeTokens();
    await expect(fresh.read(ID.maria)).rejects.toMatchObject({
      code: 'upstream_auth_failed',
      retryable: false,
    });
  });
});
