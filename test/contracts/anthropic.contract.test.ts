import { readFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAnthropicEmulator, turn } from '../../scripts/emulators/anthropic';
import { MIN_CACHEABLE_TOKENS } from '../../scripts/emulators/anthropic-prompt-cache';
import { toModelContent } from '../../shared/src/adapters/anthropic-model';
import { DEFAULT_ANTHROPIC_MODEL } from '../../shared/src/config';
import { SDK_DEPRECATED_MODELS, SDK_MODELS } from '../../shared/src/generated/anthropic-models';
import { parseWebAccess, webServerTools } from '../../shared/src/tools/web';

/** The adapter and the emulator against what Anthropic publishes (test/contracts/vendor/anthropic/). */
const dir = 'test/contracts/vendor/anthropic';
const read = (f: string) => readFileSync(`${dir}/${f}`, 'utf8');

test('the kept SDK excerpts list the same models and deprecations as the generated file', () => {
  const union = [...read('sdk-model-union.d.ts.txt').matchAll(/'([^']+)'/g)].map((m) => m[1]);
  expect(union).toEqual([...SDK_MODELS]);
  const deprecated = Object.fromEntries(
    [...read('sdk-deprecated-models.js.txt').matchAll(/'([^']+)': '([^']+)'/g)].map((m) => [m[1], m[2]]),
  );
  expect(deprecated).toEqual(
    Object.fromEntries(Object.entries(SDK_DEPRECATED_MODELS).map(([k, v]) => [k, v.sdkText])),
  );
});

test('the emulator’s minimum cacheable lengths are the documented ones', () => {
  const documented = Object.fromEntries(
    Object.entries(JSON.parse(read('prompt-caching-minimums.json')) as Record<string, unknown>).filter(
      ([k]) => !k.startsWith('_'),
    ),
  );
  expect(MIN_CACHEABLE_TOKENS).toEqual(documented);
});

test('our web server tools use tool types and fields the SDK declares', () => {
  const excerpt = read('sdk-server-tools.d.ts.txt');
  for (const t of webServerTools(parseWebAccess(['zillow.com']))) {
    expect(excerpt).toContain(`type: '${t.type}';`);
    for (const field of Object.keys(t)) expect(excerpt).toMatch(new RegExp(`\\b${field}\\??:`));
  }
});

test('the adapter keeps a web search response’s server blocks to send back', () => {
  const res = JSON.parse(read('web-search-response.json')) as Anthropic.Message;
  const content = toModelContent(res.content);
  expect(content.map((c) => c.type)).toEqual(['text', 'server_tool_use', 'web_search_tool_result', 'text']);
  expect(content[2]).toEqual({
    type: 'web_search_tool_result',
    tool_use_id: 'srvtoolu_01Example',
    content: (res.content[2] as Anthropic.WebSearchToolResultBlock).content,
  });
});

let emu: Awaited<ReturnType<typeof startAnthropicEmulator>>;
beforeAll(async () => {
  emu = await startAnthropicEmulator();
});
afterAll(async () => {
  await emu?.stop();
});

test('the emulator answers a web search with the fields of the published response', async () => {
  const example = JSON.parse(read('web-search-response.json')) as Anthropic.Message;
  emu.script([{ content: [turn.webSearch('rent'), { type: 'text', text: 'ok' }] }]);
  const client = new Anthropic({ apiKey: 'k', baseURL: emu.url, maxRetries: 0 });
  const res = await client.messages.create({
    model: DEFAULT_ANTHROPIC_MODEL,
    max_tokens: 100,
    messages: [{ role: 'user', content: 'rents?' }],
    tools: webServerTools(parseWebAccess(['zillow.com'])),
  });
  const keys = (b: unknown) => Object.keys(b as object).sort();
  for (const type of ['server_tool_use', 'web_search_tool_result'] as const) {
    expect(keys(res.content.find((b) => b.type === type))).toEqual(
      keys(example.content.find((b) => b.type === type)),
    );
  }
  const page = (
    res.content.find((b) => b.type === 'web_search_tool_result') as Anthropic.WebSearchToolResultBlock
  ).content as Anthropic.WebSearchResultBlock[];
  const examplePage = (example.content[2] as Anthropic.WebSearchToolResultBlock)
    .content as Anthropic.WebSearchResultBlock[];
  expect(keys(page[0])).toEqual(keys(examplePage[0]));
  expect(keys(res.usage.server_tool_use)).toEqual(keys(example.usage.server_tool_use));
});

/** The raw SSE of a streamed answer, read off the wire (not through the SDK, which forgives). */
async function rawStream(body: Record<string, unknown>) {
  const res = await fetch(`${emu.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: DEFAULT_ANTHROPIC_MODEL, max_tokens: 200, stream: true, ...body }),
  });
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return (await res.text())
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => {
      const event = frame.match(/^event: (.+)$/m)?.[1];
      const data = JSON.parse(frame.match(/^data: (.+)$/m)?.[1] ?? 'null') as Record<string, unknown>;
      return { event, data };
    });
}

test('a streamed answer uses only the SSE events and deltas the SDK declares, in the documented order', async () => {
  const excerpt = read('sdk-stream-events.d.ts.txt');
  const declared = (re: RegExp) => new Set([...excerpt.matchAll(re)].map((m) => m[1]));
  const eventTypes = declared(/^\s+type: '((?:message|content_block)_[a-z_]+)';$/gm);
  const deltaTypes = declared(/^\s+type: '([a-z_]+_delta)';$/gm);
  expect(eventTypes.size).toBe(6);
  emu.script([turn.toolUse('search_contacts', { query: 'Maria' }, { text: 'Let me look Maria up.' })]);
  const frames = await rawStream({
    messages: [{ role: 'user', content: 'Find Maria' }],
    tools: [{ name: 'search_contacts', input_schema: { type: 'object' } }],
  });
  for (const { event, data } of frames) {
    // `ping` is the one event outside the union: the SDK skips it (core/streaming.js, kept in the excerpt).
    if (event === 'ping') continue;
    expect(eventTypes).toContain(event);
    expect(data.type).toBe(event);
    if (event === 'content_block_delta') expect(deltaTypes).toContain((data.delta as { type: string }).type);
  }
  const order = frames.map((f) => f.event).filter((e) => e !== 'ping');
  expect(order[0]).toBe('message_start');
  expect(order.slice(-2)).toEqual(['message_delta', 'message_stop']);
  // Every block opens, takes its deltas, and closes before the next one opens.
  const blocks = order.slice(1, -2).join(' ').split(' content_block_stop');
  expect(blocks.filter(Boolean).every((b) => /^ ?content_block_start( content_block_delta)*$/.test(b))).toBe(
    true,
  );
  const messageDelta = frames.find((f) => f.event === 'message_delta')?.data.delta as object;
  const fields = excerpt.match(/interface Delta \{([^}]+)\}/)?.[1] ?? '';
  expect(Object.keys(messageDelta).sort()).toEqual([...fields.matchAll(/(\w+):/g)].map((m) => m[1]).sort());
  expect(excerpt).toContain("sse.event === 'ping'");
});
