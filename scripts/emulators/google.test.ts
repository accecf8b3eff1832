import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGoogleAuth } from '../../shared/src/adapters/google/auth';
import { type GoogleEmulator, startGoogleEmulator } from './google';
import { DEMO_DRIVE_IDS } from './seed/google-data';

let emu: GoogleEmulator;
let token: string;

beforeAll(async () => {
  emu = await startGoogleEmulator();
  const auth = createGoogleAuth({ serviceAccount: emu.serviceAccountJson, subject: emu.mailbox });
  token = (await auth.getAccessToken()).token ?? '';
});
afterAll(async () => {
  await emu?.stop();
});

async function get(path: string, params: Record<string, string | string[]> = {}) {
  const url = new URL(path, emu.url);
  for (const [k, v] of Object.entries(params)) for (const x of [v].flat()) url.searchParams.append(k, x);
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function post(path: string, body: unknown) {
  const res = await fetch(new URL(path, emu.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const ids = async (q: string) => {
  const { status, body } = await get('/gmail/v1/users/me/messages', { q });
  expect(status).toBe(200);
  return ((body.messages as { id: string }[] | undefined) ?? []).map((m) => m.id).sort();
};

describe('Gmail search (q subset)', () => {
  it('supports is:, from:, -from:, category:, subject:, label: and in:', async () => {
    expect(await ids('is:unread category:promotions')).toEqual(['18f0a00000000005']);
    expect(await ids('from:zillow.example')).toEqual(['18f0a00000000007']);
    expect(await ids('is:unread -from:zillow -from:notifications -category:promotions')).toEqual([
      '18f0a00000000003',
      '18f0a00000000004',
      '18f0a00000000008',
    ]);
    expect(await ids('subject:"lease renewal"')).toEqual([
      '18f0a00000000001',
      '18f0a00000000002',
      '18f0a00000000003',
    ]);
    expect(await ids('in:sent')).toEqual(['18f0a00000000002']);
    expect(await ids('label:inbox is:read')).toEqual(['18f0a00000000001']);
    expect(await ids('has:attachment filename:invoice')).toEqual(['18f0a00000000008']);
  });

  it('supports OR, groups, braces and bare words', async () => {
    expect(await ids('from:(zillow OR homemart)')).toEqual(['18f0a00000000005', '18f0a00000000007']);
    expect(await ids('{from:zillow from:homemart}')).toEqual(['18f0a00000000005', '18f0a00000000007']);
    expect(await ids('heater -category:promotions')).toEqual(['18f0a00000000004', '18f0a00000000006']);
    expect(await ids('(from:maria OR from:bob) is:unread')).toEqual(['18f0a00000000004', '18f0a00000000008']);
  });

  it('supports newer_than:, after: (epoch seconds and Pacific dates) and rfc822msgid:', async () => {
    expect(await ids('newer_than:1d -in:sent')).toHaveLength(6);
    const anHourAgo = Math.floor((Date.now() - 3600_000) / 1000);
    expect(await ids(`after:${anHourAgo}`)).toEqual([
      '18f0a00000000004',
      '18f0a00000000005',
      '18f0a00000000006',
      '18f0a00000000007',
      '18f0a00000000008',
    ]);
    expect(await ids('after:2001/01/01 before:2001/01/02')).toEqual([]);
    expect(await ids('rfc822msgid:<CAMl0004@mail.example>')).toEqual(['18f0a00000000004']);
  });
});

describe('Gmail messages and history', () => {
  it('serves format=metadata with only the asked headers, and 404 for unknown ids', async () => {
    const { body } = await get('/gmail/v1/users/me/messages/18f0a00000000004', {
      format: 'metadata',
      metadataHeaders: ['Subject', 'From'],
    });
    const payload = body.payload as { headers: { name: string }[]; parts?: unknown };
    expect(payload.headers.map((h) => h.name).sort()).toEqual(['From', 'Subject']);
    expect(payload.parts).toBeUndefined();
    expect(body.internalDate).toMatch(/^\d+$/);
    expect((await get('/gmail/v1/users/me/messages/0000000000000000')).status).toBe(404);
  });

  it('records label changes and new mail in history.list', async () => {
    const start = (await get('/gmail/v1/users/me/profile')).body.historyId as string;
    await post('/gmail/v1/users/me/messages/18f0a00000000004/modify', { removeLabelIds: ['UNREAD'] });
    const delivered = emu.state.deliverEmail({
      from: 'priya.n@mail.example',
      subject: 'Keys',
      text: 'Lost my keys',
    });
    const { body } = await get('/gmail/v1/users/me/history', { startHistoryId: start });
    const history = body.history as {
      labelsRemoved?: unknown[];
      messagesAdded?: { message: { id: string } }[];
    }[];
    expect(history).toHaveLength(2);
    expect(history[0]?.labelsRemoved).toHaveLength(1);
    expect(history[1]?.messagesAdded?.[0]?.message.id).toBe(delivered.id);
    const added = await get('/gmail/v1/users/me/history', {
      startHistoryId: start,
      historyTypes: 'messageAdded',
    });
    expect(added.body.history).toHaveLength(1);
    expect((await get('/gmail/v1/users/me/history', { startHistoryId: '1' })).status).toBe(404);
  });

  it('refuses another user than the delegated one', async () => {
    const { status } = await get('/gmail/v1/users/alex@oakproperties.example/messages');
    expect(status).toBe(403);
  });
});

describe('Calendar, Drive, Sheets details', () => {
  it('requires singleEvents for orderBy=startTime and offsets on timeMin', async () => {
    expect((await get('/calendar/v3/calendars/primary/events', { orderBy: 'startTime' })).status).toBe(400);
    expect(
      (await get('/calendar/v3/calendars/primary/events', { timeMin: '2025-01-01T00:00:00' })).status,
    ).toBe(400);
  });

  it('refuses an event without a time zone for a local time, and a duplicate id', async () => {
    const local = await post('/calendar/v3/calendars/primary/events', {
      start: { dateTime: '2025-01-01T10:00:00' },
      end: { dateTime: '2025-01-01T11:00:00' },
    });
    expect(local.status).toBe(400);
    const event = {
      id: 'abcdef12345',
      start: { dateTime: '2025-01-01T10:00:00', timeZone: 'America/New_York' },
      end: { dateTime: '2025-01-01T11:00:00', timeZone: 'America/New_York' },
    };
    expect((await post('/calendar/v3/calendars/primary/events', event)).status).toBe(200);
    expect((await post('/calendar/v3/calendars/primary/events', event)).status).toBe(409);
  });

  it('rejects a Drive query it cannot parse, like Drive does', async () => {
    const { status, body } = await get('/drive/v3/files', { q: "name contains 'x' and" });
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: { code: 400 } });
  });

  it('exports a Doc as text/plain and refuses alt=media for it', async () => {
    const res = await fetch(
      `${emu.url}/drive/v3/files/${DEMO_DRIVE_IDS.procedures}/export?mimeType=text/plain`,
      {
        headers: { authorization: `Bearer ${token}` },
      },
    );
    expect(await res.text()).toContain('Preferred vendors');
    expect((await get(`/drive/v3/files/${DEMO_DRIVE_IDS.procedures}`, { alt: 'media' })).status).toBe(403);
  });

  it('parses A1 ranges with quoted sheet names and open ends', async () => {
    const { body } = await get(`/v4/spreadsheets/${DEMO_DRIVE_IDS.rentRoll}/values/'Rent roll'!B2:C`);
    expect(body.range).toBe("'Rent roll'!B2:C5");
    expect(body.values).toEqual([
      ['Maria Lopez', '2150'],
      ['David Kim', '1875'],
      ['Priya Nair', '2600'],
      ['', '1950'],
    ]);
    expect((await get(`/v4/spreadsheets/${DEMO_DRIVE_IDS.rentRoll}/values/Nope!A1`)).status).toBe(400);
  });

  it('answers 403 for a scope that does not cover the API', async () => {
    const gmailOnly = createGoogleAuth({
      serviceAccount: emu.serviceAccountJson,
      subject: emu.mailbox,
      scopes: ['https://www.googleapis.com/auth/gmail.readonly'],
    });
    const t = (await gmailOnly.getAccessToken()).token;
    const res = await fetch(`${emu.url}/drive/v3/files`, { headers: { authorization: `Bearer ${t}` } });
    expect(res.status).toBe(403);
    const send = await fetch(`${emu.url}/gmail/v1/users/me/messages/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(send.status).toBe(403);
  });
});
