import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  type AnthropicEmulator,
  lastToolResults,
  type MessagesRequest,
  startAnthropicEmulator,
  type TurnReply,
  turn,
} from '../../scripts/emulators/anthropic';
import { type LocalStack, startLocalStack } from '../../scripts/local/stack';
import { DynamoFactStore } from '../../shared/src/adapters/dynamo/fact-store';
import { getCore } from '../../shared/src/composition/core';
import type { PendingAction } from '../../shared/src/contracts/conversations';

/**
 * The product's path on the functions Lambda runs (`npm start -- --bundled`): the CDK-built artifacts,
 * each staged alone in a clean folder, behind the local gateway, SQS poller and emulators. A signed text
 * reaches the bundled webhook, the bundled worker plans it through the real Anthropic SDK against the fake
 * Messages API — computing with `run_code` in the sandbox worker file and wasm shipped in its artifact —
 * drafts a reply card, a person approves it through the bundled API, and the text is sent exactly once.
 * The table lives in dynalite (pure-JS DynamoDB), the fallback `npm start` uses when Java is missing.
 */
// A known contact of the demo team (the policy drafts texts only to known contacts).
const FROM = '+14155550112';

/** The fake model: compute with run_code, then draft a reply quoting the result (other texts: a note). */
function plan(req: MessagesRequest): TurnReply {
  if (!JSON.stringify(req.messages).includes('What is my reference?')) return turn.text('Noted.');
  const results = lastToolResults(req);
  const last = results[results.length - 1];
  if (!last) return turn.toolUse('run_code', { code: '[3, 4, 5].map((n) => n * n).reduce((a, b) => a + b)' });
  if (last.name === 'run_code') {
    const ok = !last.is_error && /\b50\b/.test(last.content);
    return turn.toolUse('send_message', {
      to: FROM,
      text: ok ? 'Hi, your reference number is 50.' : `run_code failed: ${last.content.slice(0, 300)}`,
    });
  }
  if (last.name === 'send_message') return turn.text('The reply was sent.');
  return turn.text('Done.');
}

let stack: LocalStack;
let claude: AnthropicEmulator;
beforeAll(async () => {
  claude = await startAnthropicEmulator({ apiKey: 'local-fake-key', defaultReply: plan });
  stack = await startLocalStack({
    port: 0,
    schedules: false,
    bundled: true,
    // On dynalite, as `npm start` runs on a machine without Java: one stack start covers both (CI time).
    dynamo: 'dynalite',
    env: { ANTHROPIC_API_KEY: 'local-fake-key', ANTHROPIC_BASE_URL: claude.url },
  });
}, 600_000);
afterAll(async () => {
  await stack?.stop();
  await claude?.stop();
});

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function api(path: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const res = await fetch(`${stack.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      'content-type': 'application/json',
      origin: stack.url,
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
}

test('signed text → card (run_code result in it) → approve through the bundled API → one send', async () => {
  const core = await getCore('test-bundled-flow');
  await stack.emulators!.openphone.fireIncomingMessage({
    from: FROM,
    text: 'What is my reference?',
    scheme: 'standard',
  });

  const card = await until<PendingAction>('a pending card', async () => {
    const conv = await core.conversations.findByTriggerKey(`sms:${FROM}`);
    const actions = conv ? await core.actions.listByConversation(conv.id) : [];
    return actions.find((a) => a.status === 'PENDING');
  });
  expect(card.args).toMatchObject({ to: FROM, text: 'Hi, your reference number is 50.' });

  const session = await api('/api/dev/session', {
    method: 'POST',
    body: { email: 'alex@oakproperties.example' },
  });
  expect(session.status).toBe(200);
  const approved = await api(`/api/conversations/${card.conversationId}/actions/${card.id}/approve`, {
    method: 'POST',
    token: String(session.body.token),
    body: {},
  });
  expect(approved.status).toBe(200);

  const sent = await until('the text to go out', async () => {
    const out = stack.emulators!.openphone.state.sent.filter((m) => m.to.includes(FROM));
    return out.length ? out : undefined;
  });
  // Let any duplicate delivery arrive before counting.
  await until('the run to finish', async () => {
    const run = await core.runs.get(card.conversationId, card.runId);
    return run?.status === 'completed' ? run : undefined;
  });
  expect(stack.emulators!.openphone.state.sent.filter((m) => m.to.includes(FROM))).toHaveLength(1);
  expect(sent[0]?.text ?? JSON.stringify(sent[0])).toContain('reference number is 50');
}, 240_000);

test('a texted lead is triaged and its claims recorded as facts by the bundled worker (lazy triage and lead chunks)', async () => {
  const core = await getCore('test-bundled-flow');
  const lead = '+14155550191';
  await stack.emulators!.openphone.fireIncomingMessage({
    from: lead,
    text: 'Hi, is the 1 bed at 48 Elm Ave still available? My credit score is 745 and I have a cat.',
    scheme: 'standard',
  });
  const conv = await until('the lead conversation', async () => {
    const c = await core.conversations.findByTriggerKey(`sms:${lead}`);
    return c?.lead ? c : undefined;
  });
  expect(conv.lead?.state).toBe('new');
  const facts = (await new DynamoFactStore(core.table).list(conv.id, { now: new Date() })).filter(
    (f) => !f.predicate.startsWith('$'),
  );
  expect(facts.map((f) => [f.predicate, f.args])).toEqual(
    expect.arrayContaining([
      ['credit_score', [lead, 745]],
      ['pet', [lead, 'cat']],
    ]),
  );
  expect(facts.every((f) => /^text \S+$/.test(f.provenance.detail))).toBe(true);
}, 120_000);
