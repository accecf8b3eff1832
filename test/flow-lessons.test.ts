import { afterAll, beforeAll, expect, test } from 'vitest';
import { type LocalStack, startLocalStack } from '../scripts/local/stack';
import { getCore } from '../shared/src/composition/core';
import type { PendingAction } from '../shared/src/contracts/conversations';

/**
 * Cards #18 "it learns from decisions", on the local stack (rules mode, the git memory workspace, the
 * OpenPhone emulator) through the API as the PWA calls it: the same sign-off added on approval to two text
 * cards becomes a lesson in lessons/ (indexed in MEMORY.md), and the next text draft is signed that way and
 * says so; a deny reason is kept as a note. An admin can delete a lesson (a member cannot).
 */
function middayZone(now = new Date()): string {
  const offset = 12 - now.getUTCHours();
  return offset === 0 ? 'Etc/GMT' : offset > 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`;
}

let stack: LocalStack;
const tokens: Record<string, string> = {};
beforeAll(async () => {
  stack = await startLocalStack({ port: 0, schedules: false, env: { TEAM_TIMEZONE: middayZone() } });
  for (const email of ['sam@oakproperties.example', 'alex@oakproperties.example']) {
    const session = await fetch(`${stack.url}/api/dev/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    tokens[email] = ((await session.json()) as { token: string }).token;
  }
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

async function call(method: string, path: string, body?: unknown, who = 'sam@oakproperties.example') {
  const res = await fetch(`${stack.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[who]}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** A text from `from` and the pending card the worker drafts for it. */
async function cardFor(from: string, text: string): Promise<PendingAction> {
  const op = stack.emulators?.openphone;
  if (!op) throw new Error('no emulators');
  expect((await op.fireIncomingMessage({ from, text, scheme: 'standard' })).status).toBe(202);
  const core = await getCore('test-lessons');
  return until(`a card for ${from}`, async () => {
    const conv = await core.conversations.findByTriggerKey(`sms:${from}`);
    const cards = conv ? await core.actions.listByConversation(conv.id) : [];
    return cards.find((a) => a.status === 'PENDING');
  });
}

const SIGN = '— Sam, Oak Properties';
const route = (a: PendingAction, verb: string) =>
  `/api/conversations/${a.conversationId}/actions/${a.id}/${verb}`;

async function lessonFiles() {
  const files = (await call('GET', '/api/workspace/files')).json.files as Array<{
    path: string;
    kind: string;
  }>;
  return files.filter((f) => f.kind === 'lesson').map((f) => f.path);
}

test('the same sign-off and greeting on two approved edits become lessons that shape the next draft; an admin can delete one', async () => {
  for (const [from, text] of [
    ['+14155550111', 'The heater is broken again'],
    ['+14155550112', 'The kitchen sink is leaking'],
  ] as const) {
    const card = await cardFor(from, text);
    expect(String(card.args.text)).not.toContain(SIGN);
    expect(String(card.args.text)).toMatch(/^Hi\b/);
    // Two corrections in one edit: the greeting ("Hi" → "Hello") and the sign-off.
    const edited = `${String(card.args.text).replace(/^Hi\b/, 'Hello')}\n\n${SIGN}`;
    const approved = await call('POST', route(card, 'approve'), { args: { ...card.args, text: edited } });
    expect(approved.status).toBe(200);
  }
  const [path] = await until('the sign-off lesson file', async () => {
    const found = (await lessonFiles()).filter((p) => p.includes('-sign-off-'));
    const read = found[0]
      ? await call('GET', `/api/workspace/file?path=${encodeURIComponent(found[0])}`)
      : undefined;
    return read && /made 2×/.test(String(read.json.text)) ? found : undefined;
  });
  await until('the greeting lesson seen twice', async () => {
    const memory = await call('GET', `/api/workspace/file?path=MEMORY.md`);
    return /Open text messages with “Hello …” \(made 2×/.test(String(memory.json.text)) ? true : undefined;
  });
  expect(path).toMatch(/^lessons\/send_message-sign-off-[0-9a-f]{8}\.md$/);
  const memory = await call('GET', `/api/workspace/file?path=MEMORY.md`);
  expect(String(memory.json.text)).toContain(`Sign text messages off with “${SIGN}” (made 2× on approval)`);

  const third = await cardFor('+14155550113', 'The bedroom window will not close');
  expect(String(third.args.text).endsWith(`\n\n${SIGN}`)).toBe(true);
  expect(String(third.args.text)).toMatch(/^Hello\b/);
  expect(third.lessons).toEqual(
    expect.arrayContaining([
      expect.stringContaining(`Sign text messages off with “${SIGN}”`),
      expect.stringContaining('Open text messages with “Hello …”'),
    ]),
  );

  // A deny reason is kept as a note for later drafts (the model reads it; rules mode only shows it).
  const denied = await call('POST', route(third, 'deny'), {
    reason: 'never text tenants before we have a plumber booked',
    redraft: false,
  });
  expect(denied.status).toBe(200);
  await until('the note lesson', async () =>
    (await lessonFiles()).some((p) => p.includes('-note-')) ? true : undefined,
  );

  // Only an admin deletes a lesson (the planners stop applying it within their one-minute cache).
  expect((await call('DELETE', `/api/workspace/file?path=${encodeURIComponent(path ?? '')}`)).status).toBe(
    403,
  );
  expect(
    (
      await call(
        'DELETE',
        `/api/workspace/file?path=${encodeURIComponent(path ?? '')}`,
        undefined,
        'alex@oakproperties.example',
      )
    ).status,
  ).toBe(200);
}, 150_000);
