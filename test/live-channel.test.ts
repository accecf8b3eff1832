import { afterAll, beforeAll, expect, test } from 'vitest';
import { type LocalStack, startLocalStack } from '../scripts/local/stack';
import { type LiveUpdate, liveUpdate } from '../shared/src/contracts/live';

/**
 * The live channel on the local stack (issue 19): the gateway's `/live` WebSocket runs the same
 * `$connect`/`$default`/`$disconnect` function the WebSocket API runs on AWS, and the worker posts changes
 * through the real API Gateway Management API client to the gateway's `/@connections` endpoint.
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({ port: 0, schedules: false, env: { COOLDOWN_SECONDS: '1' } });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

async function token(email = 'sam@oakproperties.example') {
  const res = await fetch(`${stack.url}/api/dev/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });
  return ((await res.json()) as { token: string }).token;
}

function socketUrl(params: string) {
  return `${stack.url.replace(/^http/, 'ws')}/live${params}`;
}

/** Opens a socket and collects every update it receives. */
async function open(params: string, origin = stack.url) {
  const received: LiveUpdate[] = [];
  // Node's WebSocket (undici) sends the Origin a browser would when given it as a header.
  const ws = new WebSocket(socketUrl(params), { headers: { origin } } as unknown as string[]);
  ws.addEventListener('message', (e) => received.push(liveUpdate.parse(JSON.parse(String(e.data)))));
  const opened = await new Promise<boolean>((resolve) => {
    ws.addEventListener('open', () => resolve(true));
    ws.addEventListener('error', () => resolve(false));
  });
  return { ws, received, opened };
}

async function until<T>(fn: () => T | undefined, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('timed out');
}

test('the public config names the socket', async () => {
  const res = await fetch(`${stack.url}/api/config`);
  expect(((await res.json()) as { liveUrl?: string }).liveUrl).toBe('/live');
});

test('a socket without a valid session, or from another site, is refused at the upgrade', async () => {
  expect((await open('')).opened).toBe(false);
  expect((await open('?token=not-a-jwt')).opened).toBe(false);
  expect((await open(`?token=${await token()}`, 'https://evil.example')).opened).toBe(false);
});

test('a new card reaches an open app over the socket, as a hint naming the conversation and card', async () => {
  const { ws, received, opened } = await open(`?token=${await token()}`);
  expect(opened).toBe(true);
  await stack.emulators!.openphone.fireIncomingMessage({
    from: '+14155550111',
    text: 'Hi, the kitchen sink is leaking slowly',
    scheme: 'standard',
  });
  const card = await until(() => received.find((u) => u.type === 'card.changed' && u.status === 'PENDING'));
  expect(card).toMatchObject({ type: 'card.changed', conversationId: expect.any(String) });
  expect(received.some((u) => u.type === 'message.created')).toBe(true);
  ws.close();
}, 60_000);

test('presence is passed on with the name from the session, and bad frames are ignored', async () => {
  const a = await open(`?token=${await token()}`);
  const b = await open(`?token=${await token('jo@oakproperties.example')}`);
  a.ws.send('not json');
  a.ws.send(JSON.stringify({ action: 'ping' }));
  a.ws.send(JSON.stringify({ action: 'presence', conversationId: 'c_1', state: 'viewing', name: 'Mallory' }));
  const seen = await until(() => b.received.find((u) => u.type === 'presence'));
  expect(seen).toMatchObject({ conversationId: 'c_1', state: 'viewing', name: 'Sam Chen' });
  a.ws.close();
  b.ws.close();
}, 30_000);

test('an answer to a newcomer’s "viewing" reaches the newcomer, though its socket opened a moment ago', async () => {
  // The publisher reuses its list of open sockets for a second (api-gateway-live.ts); presence is sent to the
  // sockets open now, or the answer to a socket that opened inside that second went to everyone else.
  const a = await open(`?token=${await token()}`);
  a.ws.send(JSON.stringify({ action: 'presence', conversationId: 'c_2', state: 'viewing' }));
  await new Promise((r) => setTimeout(r, 100));
  const b = await open(`?token=${await token('jo@oakproperties.example')}`);
  b.ws.send(JSON.stringify({ action: 'presence', conversationId: 'c_2', state: 'viewing' }));
  await until(() => a.received.find((u) => u.type === 'presence' && u.name === 'Jo Patel'));
  a.ws.send(JSON.stringify({ action: 'presence', conversationId: 'c_2', state: 'viewing' }));
  const answer = await until(
    () => b.received.find((u) => u.type === 'presence' && u.name === 'Sam Chen'),
    5_000,
  );
  expect(answer).toMatchObject({ conversationId: 'c_2', state: 'viewing' });
  a.ws.close();
  b.ws.close();
}, 30_000);

test('the management endpoint refuses unsigned posts and answers 410 for a closed connection', async () => {
  const unsigned = await fetch(`${stack.url}/@connections/abc`, { method: 'POST', body: '{}' });
  expect(unsigned.status).toBe(403);
  const gone = await fetch(`${stack.url}/@connections/abc`, {
    method: 'POST',
    body: '{}',
    headers: { authorization: 'AWS4-HMAC-SHA256 Credential=x' },
  });
  expect(gone.status).toBe(410);
  expect(gone.headers.get('x-amzn-errortype')).toBe('GoneException');
});
