import { afterAll, beforeAll, expect, test } from 'vitest';
import { type AnthropicEmulator, startAnthropicEmulator } from '../scripts/emulators/anthropic';
import { fakeClaudeTurn } from '../scripts/local/fake-claude';
import { type LocalStack, startLocalStack } from '../scripts/local/stack';
import { getCore } from '../shared/src/composition/core';
import { decideApproval } from '../shared/src/use-cases/decide-approval';

/**
 * Issue 4's Claude-mode "done when", the way `npm start -- --fake-claude` runs it: the same inbound text
 * flow, planned by the model through the real Anthropic SDK against the local fake Messages API.
 */
let stack: LocalStack;
let claude: AnthropicEmulator;
beforeAll(async () => {
  claude = await startAnthropicEmulator({ apiKey: 'local-fake-key', defaultReply: fakeClaudeTurn });
  stack = await startLocalStack({
    port: 0,
    schedules: false,
    env: { ANTHROPIC_API_KEY: 'local-fake-key', ANTHROPIC_BASE_URL: claude.url },
  });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await claude?.stop();
});

test('an inbound text is triaged by the model, drafted for approval, and sent once after approval', async () => {
  const core = await getCore('test-claude-flow');
  await stack.emulators!.openphone.fireIncomingMessage({
    from: '+14155550112',
    text: 'Is the parking permit ready?',
    scheme: 'standard',
  });
  const deadline = Date.now() + 40_000;
  let action: Awaited<ReturnType<typeof core.actions.listByConversation>>[number] | undefined;
  while (Date.now() < deadline && !action) {
    const conv = await core.conversations.findByTriggerKey('sms:+14155550112');
    action = conv
      ? (await core.actions.listByConversation(conv.id)).find((a) => a.status === 'PENDING')
      : undefined;
    if (!action) await new Promise((r) => setTimeout(r, 200));
  }
  expect(action?.proposedBy).toBe('model');
  expect(action?.args).toMatchObject({ to: '+14155550112', text: expect.stringMatching(/^Hi David/) });
  expect(claude.requests.some((r) => JSON.stringify(r.body).includes('cache_control'))).toBe(true);

  await decideApproval(
    { ...core, validateArgs: (_t, args) => ({ ok: true, args: args as Record<string, unknown> }) },
    {
      conversationId: action!.conversationId,
      actionId: action!.id,
      decision: 'approve',
      user: { id: 'u_sam', email: 'sam@oakproperties.example' },
    },
  );
  const until = Date.now() + 40_000;
  let run = await core.runs.get(action!.conversationId, action!.runId);
  while (Date.now() < until && run?.status !== 'completed') {
    await new Promise((r) => setTimeout(r, 200));
    run = await core.runs.get(action!.conversationId, action!.runId);
  }
  expect(run?.mode).toBe('claude');
  expect(run?.usage.modelCalls).toBeGreaterThanOrEqual(3);
  const sent = stack.emulators!.openphone.state.sent.filter((m) => m.to.includes('+14155550112'));
  expect(sent).toHaveLength(1);
  const messages = await core.conversations.listMessages(action!.conversationId);
  expect(messages.at(-1)?.text).toBe('The acknowledgement was sent.');
}, 90_000);

test('a PWA chat turn in Claude mode streams the answer as the fake Claude writes it (issue 19)', async () => {
  const session = await fetch(`${stack.url}/api/dev/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'sam@oakproperties.example' }),
  });
  const { token } = (await session.json()) as { token: string };
  claude.setLatency(40);
  try {
    const res = await fetch(`${stack.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ text: 'What can you do?' }),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const deltas: Array<{ at: number; text: string }> = [];
    let all = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const chunk = decoder.decode(value);
      all += chunk;
      for (const m of chunk.matchAll(/"type":"text-delta","id":"[^"]+","delta":"((?:[^"\\]|\\.)*)"/g))
        deltas.push({ at: Date.now(), text: JSON.parse(`"${m[1]}"`) as string });
    }
    // Many pieces, spread over the model's writing time: streamed, not sent whole at the end.
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.at(-1)!.at - deltas[0]!.at).toBeGreaterThan(40);
    const conversationId = all.match(/"conversationId":"([^"]+)"/)?.[1] ?? '';
    const core = await getCore('test-claude-flow');
    const stored = (await core.conversations.listMessages(conversationId)).filter(
      (m) => m.role === 'assistant',
    );
    expect(stored.map((m) => m.text)).toEqual([
      deltas
        .map((d) => d.text)
        .join('')
        .trim(),
    ]);
    expect(all).toContain('"status":"completed"');
  } finally {
    claude.setLatency(0);
  }
}, 60_000);

test('a person who leaves mid-answer does not stop the turn: the answer is stored all the same', async () => {
  const session = await fetch(`${stack.url}/api/dev/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'sam@oakproperties.example' }),
  });
  const { token } = (await session.json()) as { token: string };
  claude.writeSlowly(40);
  const gone = new AbortController();
  try {
    const res = await fetch(`${stack.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ text: 'What can you do today?' }),
      signal: gone.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let head = '';
    while (!head.includes('"type":"text-delta"'))
      head += new TextDecoder().decode((await reader.read()).value);
    gone.abort();
    const conversationId = head.match(/"conversationId":"([^"]+)"/)?.[1] ?? '';
    const core = await getCore('test-claude-flow');
    await expect
      .poll(async () => (await core.conversations.listMessages(conversationId)).map((m) => m.role), {
        timeout: 20_000,
      })
      .toEqual(['user', 'assistant']);
  } finally {
    claude.writeSlowly(0);
  }
}, 60_000);
