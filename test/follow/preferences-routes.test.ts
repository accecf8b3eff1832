import { afterAll, beforeAll, expect, test } from 'vitest';
import { ADMIN, type ApiHarness, MEMBER, startApiHarness } from '../api/harness';

/**
 * `GET/PUT /api/me/preferences`: each person reads and saves only their own (time zone, signature, event
 * length, digest hour, properties they handle); bad values are a 400 naming the field; null clears.
 */
let h: ApiHarness;
beforeAll(async () => {
  h = await startApiHarness();
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

test('a member saves their own preferences; another member sees theirs empty and Sam in the assignments', async () => {
  const sam = await h.token(MEMBER);
  const empty = await h.call('GET', '/api/me/preferences', { token: sam });
  expect(empty.status).toBe(200);
  expect(await empty.json()).toMatchObject({ personal: {}, team: { assignments: [] } });

  const saved = await h.call('PUT', '/api/me/preferences', {
    token: sam,
    body: {
      timezone: 'America/Chicago',
      signature: '– Sam, Oak Properties',
      eventMinutes: 45,
      digestHour: 7,
      properties: ['12 Oak St', '40 Elm Ave'],
    },
  });
  expect(saved.status).toBe(200);
  const body = (await saved.json()) as {
    personal: Record<string, unknown>;
    team: { assignments: Array<{ property: string }> };
    nextDigestAt: string;
  };
  expect(body.personal).toEqual({
    timezone: 'America/Chicago',
    signature: '– Sam, Oak Properties',
    eventMinutes: 45,
    digestHour: 7,
  });
  expect(body.team.assignments.map((a) => a.property)).toEqual(['12 Oak St', '40 Elm Ave']);
  expect(
    new Date(body.nextDigestAt).toLocaleString('en-US', {
      timeZone: 'America/Chicago',
      hour: 'numeric',
      hour12: false,
    }),
  ).toBe('07');

  // One key changed, one cleared; the others stay.
  const again = await h.call('PUT', '/api/me/preferences', {
    token: sam,
    body: { eventMinutes: 30, digestHour: null, properties: ['12 Oak St'] },
  });
  const after = (await again.json()) as { personal: Record<string, unknown>; nextDigestAt?: string };
  expect(after.personal).toEqual({
    timezone: 'America/Chicago',
    signature: '– Sam, Oak Properties',
    eventMinutes: 30,
  });
  expect(after.nextDigestAt).toBeUndefined();

  const alex = await h.call('GET', '/api/me/preferences', { token: await h.token(ADMIN) });
  const theirs = (await alex.json()) as {
    personal: object;
    team: { assignments: Array<{ property: string }> };
  };
  expect(theirs.personal).toEqual({});
  expect(theirs.team.assignments.map((a) => a.property)).toEqual(['12 Oak St']);
});

test('bad values are a clear 400 and change nothing', async () => {
  const sam = await h.token(MEMBER);
  for (const body of [
    { timezone: 'Mars/Olympus' },
    { digestHour: 24 },
    { eventMinutes: 2 },
    { signature: 'x'.repeat(201) },
    { somethingElse: true },
  ]) {
    const res = await h.call('PUT', '/api/me/preferences', { token: sam, body });
    expect(res.status, JSON.stringify(body)).toBe(400);
  }
  expect((await h.call('PUT', '/api/me/preferences', { body: { digestHour: 7 } })).status).toBe(401);
});

test('a property someone starts handling makes the existing unassigned conversations about it theirs', async () => {
  const at = new Date().toISOString();
  const conv = (id: string, extra: Record<string, unknown>) =>
    h.core.conversations.create({
      id,
      title: 'Someone',
      source: 'sms',
      preview: '…',
      createdAt: at,
      updatedAt: at,
      lastMessageAt: at,
      createdBy: 'system',
      pendingCount: 0,
      readBy: {},
      ...extra,
    });
  await conv('c_pine_lead', {
    title: 'Jordan Reyes',
    source: 'email',
    lead: { state: 'new', updatedAt: at, property: '7 Pine Ct' },
  });
  await conv('c_pine_text', {
    title: 'Maria Lopez',
    preview: 'Maria Lopez: the gate at 7 pine ct. is stuck',
  });
  await conv('c_pine_taken', { title: 'Tom Becker', preview: 'Tom: 7 Pine Ct heater', assignee: 'u_other' });
  await conv('c_elsewhere', { title: 'David Kim', preview: 'David: 9 Birch Rd roof' });
  const token = await h.token(`pat@oakproperties.example`);
  const res = await h.call('PUT', '/api/me/preferences', { token, body: { properties: ['7 Pine Ct'] } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as {
    assignedNow?: number;
    team: { assignments: Array<{ userId: string; mine?: boolean }> };
  };
  expect(body.assignedNow).toBe(2);
  const me = body.team.assignments.find((a) => a.mine)?.userId;
  const assignee = async (id: string) => (await h.core.conversations.get(id))?.assignee;
  expect(await assignee('c_pine_lead')).toBe(me);
  expect(await assignee('c_pine_text')).toBe(me);
  expect(await assignee('c_pine_taken')).toBe('u_other');
  expect(await assignee('c_elsewhere')).toBeUndefined();
});
