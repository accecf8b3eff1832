import { Readable } from 'node:stream';
import { gmail } from '@googleapis/gmail';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGoogleAuth, GOOGLE_SCOPES } from '../../../shared/src/adapters/google/auth';
import { composeRawEmail } from '../../simulate-email';
import { type GoogleEmulator, startGoogleEmulator } from '../google';

/**
 * `users.messages.insert` on the Google emulator, driven by the real @googleapis/gmail client (service
 * account, delegation) so what is asserted is what the library actually sends — the JSON form, and the
 * `/upload/` form it switches to when given `media`.
 */
let emu: GoogleEmulator;

beforeAll(async () => {
  emu = await startGoogleEmulator({ seed: false });
});
afterAll(async () => {
  await emu?.stop();
});

const client = (scopes: string[] = [...GOOGLE_SCOPES.gmail]) =>
  gmail({
    version: 'v1',
    auth: createGoogleAuth({
      serviceAccount: emu.serviceAccountJson,
      subject: emu.mailbox,
      scopes,
      tokenUrl: emu.tokenUrl,
    }),
    rootUrl: emu.env.GOOGLE_API_BASE,
  });

/**
 * The generated client builds the `/upload/` URL from the per-call `rootUrl` only — the client-level one
 * rewrites the plain method URL but not the media URL — so an upload without this goes to
 * gmail.googleapis.com. Our code inserts with `raw` (the JSON form) and never depends on it.
 */
const perCall = () => ({ rootUrl: emu.env.GOOGLE_API_BASE });

const rawOf = (subject: string, extra: Record<string, string> = {}, date?: Date) => {
  const raw = composeRawEmail({
    from: 'Maria Lopez <maria.lopez@mail.example>',
    to: 'office@oakproperties.example',
    subject,
    text: `About ${subject}: the kitchen tap drips.`,
    ...(date ? { date } : {}),
  });
  const headers = Object.entries(extra)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return headers + raw;
};
const b64 = (s: string) => Buffer.from(s).toString('base64url');
const lastRequest = () => emu.state.requests.at(-1);

async function rawPost(path: string, body: string, contentType: string) {
  const auth = createGoogleAuth({ serviceAccount: emu.serviceAccountJson, subject: emu.mailbox });
  const token = (await auth.getAccessToken()).token;
  const res = await fetch(new URL(path, emu.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('Gmail users.messages.insert', () => {
  it('JSON form: stores the message like delivered mail (labels, history, search, thread)', async () => {
    const g = client();
    const start = (await g.users.getProfile({ userId: 'me' })).data.historyId ?? '';
    const res = await g.users.messages.insert({
      userId: 'me',
      internalDateSource: 'receivedTime',
      requestBody: { raw: b64(rawOf('Dripping tap')), labelIds: ['INBOX', 'UNREAD', 'CATEGORY_PERSONAL'] },
    });
    // What the client sent: the plain method URL with a JSON body (no upload protocol without `media`).
    expect(lastRequest()).toMatchObject({
      method: 'POST',
      path: '/gmail/v1/users/me/messages',
      search: '?internalDateSource=receivedTime',
      status: 200,
    });
    expect(lastRequest()?.contentType).toMatch(/^application\/json/);
    const { id, threadId, labelIds } = res.data;
    expect(Object.keys(res.data).sort()).toEqual(['id', 'labelIds', 'threadId']);
    expect(threadId).toBe(id);
    expect(labelIds).toEqual(['INBOX', 'UNREAD', 'CATEGORY_PERSONAL']);

    const history = await g.users.history.list({ userId: 'me', startHistoryId: start });
    expect(history.data.history?.map((h) => h.messagesAdded?.[0]?.message?.id)).toEqual([id]);
    const found = await g.users.messages.list({
      userId: 'me',
      q: 'is:unread from:maria subject:"dripping tap"',
    });
    expect(found.data.messages?.map((m) => m.id)).toEqual([id]);
    const full = await g.users.messages.get({ userId: 'me', id: id ?? '' });
    expect(Math.abs(Number(full.data.internalDate) - Date.now())).toBeLessThan(10_000);
    expect(full.data.payload?.headers?.find((h) => h.name === 'Subject')?.value).toBe('Dripping tap');
    expect(full.data.snippet).toContain('the kitchen tap drips');
    expect(emu.state.message(id ?? '')).toEqual({ id, threadId, labelIds });
  });

  it('upload form: media alone (uploadType=media) and with metadata (uploadType=multipart)', async () => {
    const g = client();
    const media = await g.users.messages.insert(
      { userId: 'me', media: { mimeType: 'message/rfc822', body: rawOf('Media only') } },
      perCall(),
    );
    expect(lastRequest()).toMatchObject({
      path: '/upload/gmail/v1/users/me/messages',
      search: '?uploadType=media',
      contentType: 'message/rfc822',
      status: 200,
    });
    // No labelIds: filed the way state.deliverEmail files mail.
    expect(media.data.labelIds).toEqual(['INBOX', 'UNREAD', 'CATEGORY_PERSONAL']);

    const multi = await g.users.messages.insert(
      {
        userId: 'me',
        requestBody: { labelIds: ['INBOX', 'STARRED'] },
        // A stream, as a caller uploading a large message would pass it.
        media: { mimeType: 'message/rfc822', body: Readable.from([rawOf('Multipart with ünïcode')]) },
      },
      perCall(),
    );
    expect(lastRequest()).toMatchObject({
      path: '/upload/gmail/v1/users/me/messages',
      search: '?uploadType=multipart',
      status: 200,
    });
    expect(lastRequest()?.contentType).toMatch(/^multipart\/related; boundary=/);
    expect(multi.data.labelIds).toEqual(['INBOX', 'STARRED']);
    const got = await g.users.messages.get({ userId: 'me', id: multi.data.id ?? '', format: 'metadata' });
    expect(got.data.payload?.headers?.find((h) => h.name === 'Subject')?.value).toBe(
      'Multipart with ünïcode',
    );
  });

  it('internalDateSource=dateHeader takes the Date header; receivedTime the arrival time', async () => {
    const g = client();
    const then = new Date('2024-03-01T09:30:00Z');
    const insert = async (internalDateSource: string) => {
      const { data } = await g.users.messages.insert({
        userId: 'me',
        internalDateSource,
        requestBody: { raw: b64(rawOf(`Dated ${internalDateSource}`, {}, then)), labelIds: ['INBOX'] },
      });
      return Number((await g.users.messages.get({ userId: 'me', id: data.id ?? '' })).data.internalDate);
    };
    expect(await insert('dateHeader')).toBe(then.getTime());
    expect(Math.abs((await insert('receivedTime')) - Date.now())).toBeLessThan(10_000);
  });

  it('keeps a requested thread only for a linked reply with the same subject, as Gmail does', async () => {
    const g = client();
    const first = (
      await g.users.messages.insert({ userId: 'me', requestBody: { raw: b64(rawOf('Boiler')) } })
    ).data;
    const full = await g.users.messages.get({ userId: 'me', id: first.id ?? '', format: 'metadata' });
    const msgId = full.data.payload?.headers?.find((h) => h.name === 'Message-ID')?.value ?? '';
    const reply = await g.users.messages.insert({
      userId: 'me',
      requestBody: {
        raw: b64(rawOf('Re: Boiler', { 'In-Reply-To': msgId, References: msgId })),
        threadId: first.threadId ?? '',
      },
    });
    expect(reply.data.threadId).toBe(first.threadId);
    const unrelated = await g.users.messages.insert({
      userId: 'me',
      requestBody: { raw: b64(rawOf('Something else')), threadId: first.threadId ?? '' },
    });
    expect(unrelated.data.threadId).toBe(unrelated.data.id);
    const thread = await g.users.threads.get({ userId: 'me', id: first.threadId ?? '' });
    expect(thread.data.messages?.map((m) => m.id)).toEqual([first.id, reply.data.id]);
  });

  it.each([
    ['no raw', { labelIds: ['INBOX'] }, /'raw' RFC822 payload message string/],
    ['empty raw', { raw: '' }, /'raw' RFC822 payload message string/],
    ['raw that is not base64', { raw: 'not base64!' }, /Base64 decoding failed/],
    ['raw without header fields', { raw: b64('just some words\r\n') }, /no header fields/],
    ['an unknown label', { raw: b64(rawOf('x')), labelIds: ['INBOX', 'Urgent'] }, /Invalid label: Urgent/],
    ['labelIds that is not a list', { raw: b64(rawOf('x')), labelIds: 'INBOX' }, /label_ids/],
  ])('%s → 400 with a Gmail error body, nothing stored', async (_name, body, message) => {
    const before = (await client().users.getProfile({ userId: 'me' })).data.messagesTotal;
    const res = await rawPost('/gmail/v1/users/me/messages', JSON.stringify(body), 'application/json');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: {
        code: 400,
        status: 'INVALID_ARGUMENT',
        errors: [{ domain: 'global', reason: expect.any(String) }],
      },
    });
    expect((res.body.error as { message: string }).message).toMatch(message);
    expect((await client().users.getProfile({ userId: 'me' })).data.messagesTotal).toBe(before);
  });

  it('the client surfaces a 400 (bad internalDateSource, non-message upload) as an error with status', async () => {
    const g = client();
    await expect(
      g.users.messages.insert({
        userId: 'me',
        internalDateSource: 'whenever',
        requestBody: { raw: b64(rawOf('x')) },
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/internal_date_source/) });
    await expect(
      g.users.messages.insert({ userId: 'me', media: { mimeType: 'text/plain', body: 'hello' } }, perCall()),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/Valid media types: \[message\/\*\]/),
    });
    const resumable = await rawPost(
      '/upload/gmail/v1/users/me/messages?uploadType=resumable',
      '{}',
      'application/json',
    );
    expect(resumable.status).toBe(400);
  });

  it('is allowed under gmail.modify and gmail.insert, refused under gmail.readonly and gmail.send', async () => {
    const insertWith = (scope: string) =>
      client([`https://www.googleapis.com/auth/${scope}`]).users.messages.insert({
        userId: 'me',
        requestBody: { raw: b64(rawOf(`Scope ${scope}`)) },
      });
    expect((await insertWith('gmail.modify')).status).toBe(200);
    expect((await insertWith('gmail.insert')).status).toBe(200);
    await expect(insertWith('gmail.readonly')).rejects.toMatchObject({ status: 403 });
    await expect(insertWith('gmail.send')).rejects.toMatchObject({ status: 403 });
    // gmail.insert covers inserting only, not reading the mailbox.
    const insertOnly = client(['https://www.googleapis.com/auth/gmail.insert']);
    await expect(insertOnly.users.messages.list({ userId: 'me' })).rejects.toMatchObject({ status: 403 });
    await expect(
      insertOnly.users.messages.insert(
        { userId: 'me', media: { mimeType: 'message/rfc822', body: rawOf('Upload under gmail.insert') } },
        perCall(),
      ),
    ).resolves.toMatchObject({ status: 200 });
  });

  it('refuses another user than the delegated one', async () => {
    const res: Promise<unknown> = client().users.messages.insert({
      userId: 'someone.else@oakproperties.example',
      requestBody: { raw: b64(rawOf('x')) },
    });
    await expect(res).rejects.toMatchObject({ status: 403 });
  });
});
