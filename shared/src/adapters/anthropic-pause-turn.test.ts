import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  type AnthropicEmulator,
  type MessagesRequest,
  startAnthropicEmulator,
  turn,
} from '../../../scripts/emulators/anthropic';
import { buildWebToolDeps } from '../composition/tool-deps';
import { DEFAULT_ANTHROPIC_HELPER_MODEL, DEFAULT_ANTHROPIC_MODEL } from '../config';
import { anthropicModel } from './anthropic-model';

/**
 * `pause_turn` (Anthropic's server-tool loop): a long web_search run may end a response with
 * stop_reason `pause_turn`; the client sends the paused assistant turn back unchanged and the model continues
 * it. The adapter does that, against the fake Messages API, and stops after a bounded number of pauses.
 */
let emu: AnthropicEmulator;
beforeAll(async () => {
  emu = await startAnthropicEmulator({ apiKey: 'k' });
});
afterAll(async () => {
  await emu?.stop();
});

const model = () =>
  anthropicModel({
    apiKey: 'k',
    baseURL: emu.url,
    model: DEFAULT_ANTHROPIC_MODEL,
    helperModel: DEFAULT_ANTHROPIC_HELPER_MODEL,
    maxRetries: 0,
    serverTools: buildWebToolDeps({ ANTHROPIC_API_KEY: 'k', WEB_ALLOWED_DOMAINS: ['zillow.com'] })
      .serverTools,
  });
const request = {
  system: { stable: 'You help a property manager.', dynamic: '' },
  tools: [],
  messages: [
    {
      role: 'user' as const,
      content: [{ type: 'text' as const, text: 'What do 2BRs rent for near 12 Oak St?' }],
    },
  ],
};
const messageCalls = () => emu.requests.filter((r) => r.path === '/v1/messages');

test('a paused turn is sent back as the assistant turn and the model finishes it', async () => {
  emu.reset();
  emu.script([
    { content: [turn.webSearch('2 bedroom rent near 12 Oak St')], stop_reason: 'pause_turn' },
    turn.text('Two-bedrooms nearby rent for about $2,100.'),
  ]);
  const res = await model().complete(request);

  expect(res.stopReason).toBe('end_turn');
  // One turn for the caller: the server tool's call and result, then the answer.
  expect(res.content.map((b) => b.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text']);
  const calls = messageCalls();
  expect(calls.map((c) => c.status)).toEqual([200, 200]);
  const second = calls[1]!.params as MessagesRequest;
  // The continuation is the same conversation plus the paused assistant content, unchanged, as the last message.
  expect(second.messages).toHaveLength(2);
  const last = second.messages[1]!;
  expect(last.role).toBe('assistant');
  expect(typeof last.content === 'string' ? [] : last.content.map((b) => b.type)).toEqual([
    'server_tool_use',
    'web_search_tool_result',
  ]);
  // Same tools (server tools with their versioned type) on the continuation.
  expect((second.tools ?? []).map((t) => (t as { type?: string }).type)).toEqual([
    'web_search_20250305',
    'web_fetch_20250910',
  ]);
  expect(res.usage.inputTokens).toBeGreaterThan(0);
});

test('a turn that keeps pausing stops after the bounded continuations and says so', async () => {
  emu.reset();
  const paused = { content: [turn.webSearch('again')], stop_reason: 'pause_turn' as const };
  emu.script([paused, paused, paused, paused, paused]);
  const res = await model().complete(request);
  expect(res.stopReason).toBe('pause_turn');
  // The first call and three continuations; the fifth scripted pause is never asked for.
  expect(messageCalls()).toHaveLength(4);
});
