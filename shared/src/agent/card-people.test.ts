import { expect, test } from 'vitest';
import type { DirectoryEntry } from '../tools/contact-directory';
import { cardPeople, cardPeopleSafe } from './card-people';

const entries: DirectoryEntry[] = [
  {
    id: 'ct_maria',
    name: 'Maria Lopez',
    company: null,
    role: 'tenant, 12 Oak St #2',
    phones: ['+14155550111'],
    emails: ['maria.lopez@mail.example'],
    internal: false,
  },
  {
    id: 'ct_sam',
    name: 'Sam Chen',
    company: 'Oak Properties',
    role: 'property manager',
    phones: ['+14155550102'],
    emails: ['sam@oakproperties.example'],
    internal: true,
  },
  {
    id: 'ct_tom',
    name: 'Tom Becker',
    company: null,
    role: 'rental lead',
    phones: [],
    emails: ['tom.becker@mail.example'],
    internal: false,
  },
];
const deps = {
  directory: {
    byPhone: async (n: string) => entries.find((e) => e.phones.includes(n)),
    byEmail: async (a: string) => entries.find((e) => e.emails.includes(a)),
  },
  lines: { shared: '+14155550100', assistant: '+14155550199' },
  mailbox: 'office@oakproperties.example',
};

test('a text to a tenant: name · role · property, from the shared line', async () => {
  expect(await cardPeople(deps, 'send_message', { to: '+14155550111', text: 'hi' })).toEqual({
    from: { label: 'Shared line', address: '+14155550100' },
    to: [{ address: '+14155550111', name: 'Maria Lopez', role: 'tenant', property: '12 Oak St #2' }],
  });
});

test('a text to a team member goes from the assistant line', async () => {
  const p = await cardPeople(deps, 'send_message', { to: '+14155550102', text: 'hi' });
  expect(p?.from).toEqual({ label: 'Assistant line', address: '+14155550199' });
  expect(p?.to[0]).toMatchObject({ name: 'Sam Chen', role: 'property manager', team: true });
});

test('an email names a known contact even when the address is written bare or in angle brackets', async () => {
  const p = await cardPeople(deps, 'send_email', {
    to: '<tom.becker@mail.example>, Ann Other <ann@x.example>',
    body: 'x',
  });
  expect(p).toEqual({
    from: { label: 'Team mailbox', address: 'office@oakproperties.example' },
    to: [
      { address: '<tom.becker@mail.example>', name: 'Tom Becker', role: 'rental lead' },
      { address: 'Ann Other <ann@x.example>', name: 'Ann Other' },
    ],
  });
});

test('an unknown number keeps the number; an address book outage costs only the names', async () => {
  expect((await cardPeople(deps, 'send_message', { to: '+19995550000', text: 'x' }))?.to).toEqual([
    { address: '+19995550000' },
  ]);
  const down = { directory: { byPhone: async () => Promise.reject(new Error('503')) } };
  expect(await cardPeopleSafe(down, 'send_message', { to: '+1', text: 'x' })).toBeUndefined();
  expect(await cardPeople(deps, 'create_task', { name: 'x' })).toBeUndefined();
});
