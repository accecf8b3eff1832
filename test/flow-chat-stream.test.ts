import { afterAll, beforeAll, expect, test } from 'vitest';
import { type LocalStack, startLocalStack } from '../scripts/local/stack';

/**
 * `/api/chat` is served by the response-streaming handler (function URL in RESPONSE_STREAM mode on AWS):
 * parts of the UI message stream reach the client while the run is still going, not in one piece at the end.
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({ port: 0, schedules: false });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

test('the chat stream arrives live: the run status comes first, the answer later, in one response', async () => {
  const session = await fetch(`${stack.url}/api/dev/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'sam@oakproperties.example' }),
  });
  expect(session.status).toBe(200);
  const { token } = (await session.json()) as { token: string };

  const started = Date.now();
  const res = await fetch(`${stack.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ text: 'who is Lena?' }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/event-stream/);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const chunks: Array<{ at: number; text: string }> = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push({ at: Date.now() - started, text: decoder.decode(value) });
  }
  const all = chunks.map((c) => c.text).join('');
  expect(all).toContain('Lena Fischer');
  const answerAt = chunks.find((c) => c.text.includes('Lena Fischer'))?.at ?? 0;
  // Something was on the wire well before the answer existed: the stream was not buffered to the end.
  expect(chunks[0]?.at).toBeLessThan(answerAt);
  expect(chunks.length).toBeGreaterThan(1);
}, 60_000);

test('behind CloudFront OAC: the session in its own header beside a SigV4 Authorization is accepted', async () => {
  const session = await fetch(`${stack.url}/api/dev/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'sam@oakproperties.example' }),
  });
  const { token } = (await session.json()) as { token: string };
  const res = await fetch(`${stack.url}/api/chat`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      // What the function URL receives: CloudFront's signature, the PWA's session moved beside it.
      authorization:
        'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261123/us-east-1/lambda/aws4_request, SignedHeaders=host, Signature=abc',
      'x-switchboard-session': `Bearer ${token}`,
    },
    body: JSON.stringify({ text: 'who is Lena?' }),
  });
  expect(res.status).toBe(200);
  await res.text();
}, 60_000);

test('the streaming route still requires a session', async () => {
  const res = await fetch(`${stack.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'hello' }),
  });
  expect(res.status).toBe(401);
});
