import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GoogleEmulator, startGoogleEmulator } from '../../../../scripts/emulators/google';
import { ValidationError } from '../../errors';
import type { Mailbox } from '../../ports/mailbox';
import { createGoogleAuth } from './auth';
import { createGmailMailbox, replyMessageId } from './gmail-mailbox';

let emu: GoogleEmulator;
let mailbox: Mailbox;
const DAVID_THREAD = '18f0a00000000001';

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

const record = (id: string) => emu.state.sent().find((s) => s.id === id);

describe('GmailMailbox.send (explicit recipients)', () => {
  it('sends a new email with our Message-ID and reference header, outside any thread', async () => {
    const sent = await mailbox.send({
      to: ['Tom Becker <tom.becker@mail.example>'],
      cc: ['sam@oakproperties.example'],
      subject: 'Application forms',
      text: 'Hi Tom, the forms are attached to the listing page.',
      clientRef: 'act_new_1',
    });
    const r = record(sent.id);
    expect(sent).toMatchObject({
      threaded: false,
      messageIdHeader: replyMessageId('act_new_1', emu.mailbox),
    });
    expect(r).toMatchObject({
      subject: 'Application forms',
      inReplyTo: '',
      references: '',
      messageIdHeader: sent.messageIdHeader,
    });
    expect(r?.to).toContain('tom.becker@mail.example');
    expect(r?.cc).toContain('sam@oakproperties.example');
    expect(r?.from).toContain('Oak Properties');
    expect(r?.headers.find((h) => h.name === 'X-Switchboard-Ref')?.value).toBe('act_new_1');
    expect(r?.threadId).not.toBe(DAVID_THREAD);
  });

  it('is found again by its client reference (reconciliation of a new email)', async () => {
    const sent = await mailbox.send({
      to: ['priya.n@mail.example'],
      subject: 'Parking',
      text: 'Spot 4 is yours.',
      clientRef: 'act_new_2',
    });
    await expect(mailbox.findSent({ clientRef: 'act_new_2' })).resolves.toMatchObject({ id: sent.id });
    await expect(mailbox.findSent({ clientRef: 'act_new_never' })).resolves.toBeUndefined();
  });

  it('threads with the latest message by default, keeping the approved recipients', async () => {
    const sent = await mailbox.send({
      to: ['someone.else@mail.example'],
      text: 'Forwarding the renewal to our colleague.',
      thread: { threadId: DAVID_THREAD },
      clientRef: 'act_thread_x',
    });
    expect(sent).toMatchObject({ threadId: DAVID_THREAD, threaded: true });
    expect(record(sent.id)?.to).toContain('someone.else@mail.example');
    expect(record(sent.id)?.to).not.toContain('dkim@mail.example');
    expect(record(sent.id)).toMatchObject({
      subject: 'Re: Lease renewal question',
      inReplyTo: '<CAFdk1003@mail.example>',
      references: '<CAFdk1001@mail.example> <reply-2001@oakproperties.example> <CAFdk1003@mail.example>',
    });
  });

  it('uses caller-given References and appends the parent when it is missing', async () => {
    const sent = await mailbox.send({
      to: ['dkim@mail.example'],
      text: 'x',
      thread: {
        threadId: DAVID_THREAD,
        inReplyTo: '<CAFdk1003@mail.example>',
        references: '<CAFdk1001@mail.example>',
      },
      clientRef: 'act_refs',
    });
    expect(record(sent.id)?.references).toBe('<CAFdk1001@mail.example> <CAFdk1003@mail.example>');
  });

  it('refuses an email without text, recipients, or (when new) a subject, before calling Gmail', async () => {
    const before = emu.state.sent().length;
    await expect(
      mailbox.send({ to: ['a@b.example'], subject: 's', text: ' ', clientRef: 'r1' }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(mailbox.send({ to: [], subject: 's', text: 'x', clientRef: 'r2' })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(mailbox.send({ to: ['a@b.example'], text: 'x', clientRef: 'r3' })).rejects.toThrow(
      /subject/,
    );
    expect(emu.state.sent()).toHaveLength(before);
  });
});
