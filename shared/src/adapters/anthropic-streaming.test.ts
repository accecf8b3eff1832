import { afterAll, beforeAll, expect, test } from 'vitest';
import { type AnthropicEmulator, startAnthropicEmulator, turn } from '../../../scripts/emulators/anthropic';
import { DEFAULT_ANTHROPIC_HELPER_MODEL, DEFAULT_ANTHROPIC_MODEL } from '../config';
import { anthropicModel } from './anthropic-model';

/** Issue 19: with a text sink the adapter streams (the SDK's MessageStream) and still returns the whole message. */
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
    maxRetries: 1,
  });
const request = {
  system: { stable: 'You help a property manager.', dynamic: '' },
  tools: [{ name: 'search_contacts', description: 'Find a contact', input_schema: { type: 'object' } }],
  messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Who is Maria?' }] }],
};
const answer = 'Maria Lopez rents unit 4 at 12 Oak St and pays on the first of the month.';

test('text arrives in pieces through the sink; the response equals the unstreamed one', async () => {
  emu.script([
    turn.toolUse('search_contacts', { query: 'Maria' }, { text: answer }),
    turn.toolUse('search_contacts', { query: 'Maria' }, { text: answer }),
  ]);
  const pieces: string[] = [];
  const streamed = await model().complete({ ...request, onText: (d) => pieces.push(d) });
  const plain = await model().complete(request);
  expect(pieces.length).toBeGreaterThan(1);
  expect(pieces.join('')).toBe(answer);
  expect(emu.requests.at(-2)?.params?.stream).toBe(true);
  expect(streamed.content).toEqual(
    plain.content.map((c) => (c.type === 'tool_use' ? { ...c, id: expect.any(String) } : c)),
  );
  expect(streamed.stopReason).toBe('tool_use');
  expect(streamed.usage.outputTokens).toBeGreaterThan(0);
});

test('a refused stream is retried by the SDK before any text flows, then streams', async () => {
  emu.failNext(529);
  emu.script([turn.text('after the overload')]);
  const pieces: string[] = [];
  const res = await model().complete({ ...request, onText: (d) => pieces.push(d) });
  expect(pieces.join('')).toBe('after the overload');
  expect(res.content).toEqual([{ type: 'text', text: 'after the overload' }]);
});
