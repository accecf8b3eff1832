import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createGoogleAuth } from '../../shared/src/adapters/google/auth';
import { type GoogleEmulator, startGoogleEmulator } from './google';

/**
 * The Google emulator against Google's own generated types (test/contracts/vendor/google/). Excerpts are
 * the `export interface Schema$X { … }` blocks of the installed @googleapis packages, extracted with
 *   awk '$0 ~ "export interface Schema\\$X \\{" {p=1} p {print} p && /^    }$/ {exit}' build/v1.d.ts
 */
const vendorDir = new URL('../../test/contracts/vendor/google/', import.meta.url);
const sdk = {
  gmail: new URL('../../node_modules/@googleapis/gmail/build/v1.d.ts', import.meta.url),
  calendar: new URL('../../node_modules/@googleapis/calendar/build/v3.d.ts', import.meta.url),
};

/** `{ interface name → its property names }` from d.ts text. */
function interfaces(text: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const block of text.split(/(?=^ {4}export interface )/m)) {
    const name = /export interface (Schema\$\w+) \{/.exec(block)?.[1];
    if (!name) continue;
    out.set(name, new Set([...block.matchAll(/^ {8}(\w+)\?:/gm)].map((m) => m[1] as string)));
  }
  return out;
}

function block(text: string, name: string): string {
  const start = text.indexOf(`    export interface ${name} {`);
  const end = text.indexOf('\n    }\n', start);
  return text.slice(start, end + 7);
}

const excerpt = (file: string) => readFileSync(new URL(file, vendorDir), 'utf8');
const gmailTypes = interfaces(excerpt('sdk-gmail-v1.d.ts.txt'));
const calendarTypes = interfaces(excerpt('sdk-calendar-v3.d.ts.txt'));

test('the excerpts are the installed SDK’s (a package upgrade that changes them fails here)', () => {
  for (const [file, source, types] of [
    ['sdk-gmail-v1.d.ts.txt', sdk.gmail, gmailTypes],
    ['sdk-calendar-v3.d.ts.txt', sdk.calendar, calendarTypes],
  ] as const) {
    const installed = readFileSync(source, 'utf8');
    const expected = [...types.keys()].map((n) => block(installed, n)).join('');
    expect(excerpt(file), file).toBe(expected);
  }
  expect(gmailTypes.get('Schema$Message')).toContain('payload');
  expect(calendarTypes.get('Schema$Event')).toContain('start');
});

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

async function get(path: string, params: Record<string, string> = {}) {
  const url = new URL(path, emu.url);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

/** Every key of `value` is a declared property of `type`; nested objects are checked by `nested`. */
function conforms(
  types: Map<string, Set<string>>,
  type: string,
  value: Record<string, unknown>,
  nested: Record<string, string> = {},
): string[] {
  const declared = types.get(type) ?? new Set<string>();
  const problems: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (!declared.has(k)) problems.push(`${type}.${k}`);
    const inner = nested[k];
    if (!inner || v === null || typeof v !== 'object') continue;
    for (const item of Array.isArray(v) ? v : [v])
      problems.push(...conforms(types, inner, item as Record<string, unknown>, nested));
  }
  return problems;
}

describe('the Google emulator answers in Google’s field names', () => {
  test('Gmail users.messages.list and users.messages.get (full and metadata)', async () => {
    const list = await get('/gmail/v1/users/me/messages', { q: 'in:inbox' });
    expect(conforms(gmailTypes, 'Schema$ListMessagesResponse', list, { messages: 'Schema$Message' })).toEqual(
      [],
    );
    const first = (list.messages as Array<{ id: string }>)[0];
    expect(first).toBeDefined();
    const part = {
      payload: 'Schema$MessagePart',
      parts: 'Schema$MessagePart',
      headers: 'Schema$MessagePartHeader',
      body: 'Schema$MessagePartBody',
    };
    for (const format of ['full', 'metadata']) {
      const message = await get(`/gmail/v1/users/me/messages/${first?.id}`, { format });
      expect(conforms(gmailTypes, 'Schema$Message', message, part), format).toEqual([]);
      expect(message).toHaveProperty('payload');
    }
  });

  test('Calendar events.list', async () => {
    const events = await get('/calendar/v3/calendars/primary/events', {
      timeMin: '2020-01-01T00:00:00Z',
      singleEvents: 'true',
      orderBy: 'startTime',
    });
    const nested = { items: 'Schema$Event', start: 'Schema$EventDateTime', end: 'Schema$EventDateTime' };
    expect((events.items as unknown[]).length).toBeGreaterThan(0);
    expect(conforms(calendarTypes, 'Schema$Events', events, nested)).toEqual([]);
  });
});
