import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_ANTHROPIC_MODEL } from '../../shared/src/config';
import {
  type AnthropicEmulator,
  DEFAULT_REPLY_TEXT,
  lastToolResults,
  startAnthropicEmulator,
  turn,
} from './anthropic';
import { minCacheableTokens } from './anthropic-prompt-cache';

const API_KEY = 'sk-ant-test-key';
const SONNET = DEFAULT_ANTHROPIC_MODEL;

const tools: Anthropic.Tool[] = [
  {
    name: 'search_contacts',
    description: 'Find contacts by name, number or company.',
    input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
  {
    name: 'send_message',
    description: 'Draft a text message (needs approval).',
    input_schema: {
      type: 'object',
      properties: { to: { type: 'string' }, text: { type: 'string' } },
      required: ['to', 'text'],
    },
  },
];

/** ~1,500 tokens of stable instructions: above Sonnet's 1,024-token minimum, below Haiku's 2,048. */
const LONG_INSTRUCTIONS = `You are Switchboard, the assistant of a property-management team. ${'Be brief and precise. '.repeat(270)}`;

let emu: AnthropicEmulator;
let client: Anthropic;

beforeAll(async () => {
  emu = await startAnthropicEmulator({ apiKey: API_KEY });
  client = new Anthropic({ apiKey: API_KEY, baseURL: emu.url, maxRetries: 0 });
});
afterAll(async () => {
  await emu.stop();
});
beforeEach(() => emu.reset());

describe('Anthropic emulator through the real SDK', () => {
  it('plays a scripted multi-turn tool-use conversation, answering from the last tool result', async () => {
    emu.script([
      turn.toolUse('search_contacts', { query: 'Maria' }, { text: 'Let me look her up.' }),
      (req) => {
        const [result] = lastToolResults(req);
        const contact = JSON.parse(result!.content) as { name: string; phone: string };
        return turn.toolUse('send_message', { to: contact.phone, text: 'The plumber comes at 3.' });
      },
      (req) =>
        `Drafted a text to ${lastToolResults(req)[0]?.name === 'send_message' ? 'Maria' : '?'} for approval.`,
    ]);

    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: 'Text Maria that the plumber comes at 3' },
    ];
    const toolCalls: Array<{ name: string; input: unknown }> = [];
    let final: Anthropic.Message | undefined;
    for (let step = 0; step < 5; step++) {
      const res = await client.messages.create({ model: SONNET, max_tokens: 1024, tools, messages });
      messages.push({ role: 'assistant', content: res.content });
      if (res.stop_reason !== 'tool_use') {
        final = res;
        break;
      }
      const results: Anthropic.ToolResultBlockParam[] = [];
      for (const block of res.content) {
        if (block.type !== 'tool_use') continue;
        toolCalls.push({ name: block.name, input: block.input });
        const output =
          block.name === 'search_contacts'
            ? { name: 'Maria Lopez', phone: '+14155550111' }
            : { status: 'pending' };
        results.push({ type: 'tool_result', tool_use_id: block.id, content: JSON.stringify(output) });
      }
      messages.push({ role: 'user', content: results });
    }

    expect(toolCalls).toEqual([
      { name: 'search_contacts', input: { query: 'Maria' } },
      { name: 'send_message', input: { to: '+14155550111', text: 'The plumber comes at 3.' } },
    ]);
    expect(final?.stop_reason).toBe('end_turn');
    expect(final?.content).toEqual([{ type: 'text', text: 'Drafted a text to Maria for approval.' }]);
    expect(emu.pending).toBe(0);
    expect(emu.requests).toHaveLength(3);
    expect(emu.requests.every((r) => r.status === 200)).toBe(true);
    expect(emu.requests[2]?.params?.messages).toHaveLength(5);
    // SDK 1.x sends the key as a bearer token; older clients and curl use x-api-key. Both reach the check.
    expect(emu.requests[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('streams text and tool_use in the event sequence the SDK accumulates', async () => {
    const longText = 'Checking the calendar for tomorrow, then I will draft the reply. '.repeat(3);
    emu.script([
      {
        content: [
          { type: 'text', text: longText },
          {
            type: 'tool_use',
            name: 'search_contacts',
            input: { query: 'Bob Martinez', limit: 3, tags: ['vendor'] },
          },
        ],
      },
    ]);
    const deltas: string[] = [];
    const events: string[] = [];
    const stream = client.messages
      .stream({ model: SONNET, max_tokens: 512, tools, messages: [{ role: 'user', content: 'Find Bob' }] })
      .on('text', (t) => deltas.push(t))
      .on('streamEvent', (e) => events.push(e.type));
    const message = await stream.finalMessage();

    expect(message.stop_reason).toBe('tool_use');
    expect(message.content[0]).toMatchObject({ type: 'text', text: longText });
    expect(message.content[1]).toMatchObject({
      type: 'tool_use',
      name: 'search_contacts',
      input: { query: 'Bob Martinez', limit: 3, tags: ['vendor'] },
    });
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe(longText);
    expect(events[0]).toBe('message_start');
    expect(events.at(-2)).toBe('message_delta');
    expect(events.at(-1)).toBe('message_stop');
    expect(events.filter((e) => e === 'content_block_start')).toHaveLength(2);
    expect(message.usage.output_tokens).toBeGreaterThan(1);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
  });

  it('answers with a deterministic default when nothing is scripted', async () => {
    const a = await client.messages.create({
      model: SONNET,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const b = await client.messages.create({
      model: SONNET,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(a.content).toEqual([{ type: 'text', text: DEFAULT_REPLY_TEXT }]);
    expect(b.content).toEqual(a.content);
    expect(a.stop_reason).toBe('end_turn');
  });

  it('stops at max_tokens like the model would', async () => {
    emu.script(['word '.repeat(100)]);
    const res = await client.messages.create({
      model: SONNET,
      max_tokens: 10,
      messages: [{ role: 'user', content: 'talk' }],
    });
    expect(res.stop_reason).toBe('max_tokens');
    expect(res.usage.output_tokens).toBe(10);
    expect((res.content[0] as Anthropic.TextBlock).text).toHaveLength(40);
  });

  it('counts tokens without touching the script queue', async () => {
    emu.script(['kept for later']);
    const count = await client.messages.countTokens({
      model: SONNET,
      messages: [{ role: 'user', content: 'x'.repeat(400) }],
    });
    expect(count.input_tokens).toBeGreaterThanOrEqual(100);
    expect(emu.pending).toBe(1);
  });
});

describe('prompt caching', () => {
  const cachedSystem: Anthropic.TextBlockParam[] = [
    { type: 'text', text: LONG_INSTRUCTIONS, cache_control: { type: 'ephemeral' } },
  ];

  it('creates the cache on the first call and reads it on the second with the same prefix', async () => {
    const ask = (content: string) =>
      client.messages.create({
        model: SONNET,
        max_tokens: 100,
        system: cachedSystem,
        tools,
        messages: [{ role: 'user', content }],
      });
    const first = await ask('What is on the calendar tomorrow?');
    const second = await ask('Any new leads today?');

    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(1024);
    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(second.usage.cache_creation_input_tokens).toBe(0);
    // Only the uncached tail (the new user message) is billed as plain input.
    expect(second.usage.input_tokens).toBeLessThan(20);
    expect(first.usage.cache_creation?.ephemeral_5m_input_tokens).toBe(
      first.usage.cache_creation_input_tokens,
    );
  });

  it('reports the same cache usage on a streamed call', async () => {
    const stream = () =>
      client.messages
        .stream({
          model: SONNET,
          max_tokens: 50,
          system: cachedSystem,
          messages: [{ role: 'user', content: 'hi' }],
        })
        .finalMessage();
    const first = await stream();
    const second = await stream();
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(1024);
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(second.usage.input_tokens).toBeLessThan(10);
  });

  it('misses when the prefix bytes change', async () => {
    await client.messages.create({
      model: SONNET,
      max_tokens: 50,
      system: cachedSystem,
      messages: [{ role: 'user', content: 'a' }],
    });
    const changed = await client.messages.create({
      model: SONNET,
      max_tokens: 50,
      system: [{ type: 'text', text: `${LONG_INSTRUCTIONS}!`, cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'a' }],
    });
    expect(changed.usage.cache_read_input_tokens).toBe(0);
    expect(changed.usage.cache_creation_input_tokens).toBeGreaterThan(1024);
  });

  it('follows a conversation whose breakpoint moves to the newest message (20-block lookback)', async () => {
    const history: Anthropic.MessageParam[] = [];
    const usages: Anthropic.Usage[] = [];
    for (const text of ['first question', 'second question', 'third question']) {
      // Breakpoint on the newest user block only, as an agent does each turn; earlier turns carry no marker.
      const messages: Anthropic.MessageParam[] = [
        ...history,
        { role: 'user', content: [{ type: 'text', text, cache_control: { type: 'ephemeral' } }] },
      ];
      const res = await client.messages.create({
        model: SONNET,
        max_tokens: 50,
        system: LONG_INSTRUCTIONS,
        messages,
      });
      usages.push(res.usage);
      history.push(
        { role: 'user', content: [{ type: 'text', text }] },
        { role: 'assistant', content: res.content },
      );
    }
    const [u1, u2, u3] = usages;
    expect(u1?.cache_read_input_tokens).toBe(0);
    expect(u2?.cache_read_input_tokens).toBe(u1?.cache_creation_input_tokens);
    expect(u3?.cache_read_input_tokens).toBe(
      (u2?.cache_read_input_tokens ?? 0) + (u2?.cache_creation_input_tokens ?? 0),
    );
    const total = (u: Anthropic.Usage) =>
      u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
    expect((u3?.cache_read_input_tokens ?? 0) / total(u3!)).toBeGreaterThan(0.9);
  });

  it('does not cache a prefix below the model minimum (1,024 for Sonnet, 4,096 for Haiku 4.5)', async () => {
    expect(minCacheableTokens('claude-haiku-4-5-20251001')).toBe(4096);
    expect(minCacheableTokens('claude-opus-5-1')).toBe(512);
    expect(minCacheableTokens('claude-opus-4-7')).toBe(2048);
    const short = await client.messages.create({
      model: SONNET,
      max_tokens: 50,
      system: [{ type: 'text', text: 'Short instructions.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(short.usage.cache_creation_input_tokens).toBe(0);

    const onHaiku = () =>
      client.messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 50,
        system: cachedSystem,
        messages: [{ role: 'user', content: 'hi' }],
      });
    const h1 = await onHaiku();
    const h2 = await onHaiku();
    expect(h1.usage.cache_creation_input_tokens).toBe(0);
    expect(h2.usage.cache_read_input_tokens).toBe(0);
  });

  it('expires entries after five minutes unless a hit refreshed them', async () => {
    let now = 1_000_000;
    const timed = await startAnthropicEmulator({ now: () => now });
    try {
      const c = new Anthropic({ apiKey: 'any', baseURL: timed.url, maxRetries: 0 });
      const ask = () =>
        c.messages.create({
          model: SONNET,
          max_tokens: 50,
          system: cachedSystem,
          messages: [{ role: 'user', content: 'hi' }],
        });
      await ask();
      now += 4 * 60_000;
      expect((await ask()).usage.cache_read_input_tokens).toBeGreaterThan(0);
      now += 4 * 60_000; // 8 minutes after the write, 4 after the refreshing hit
      expect((await ask()).usage.cache_read_input_tokens).toBeGreaterThan(0);
      now += 6 * 60_000;
      const expired = await ask();
      expect(expired.usage.cache_read_input_tokens).toBe(0);
      expect(expired.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    } finally {
      await timed.stop();
    }
  });

  it('uses the request-level cache_control on the last block (automatic caching)', async () => {
    const ask = (extra: string) =>
      client.messages.create({
        model: SONNET,
        max_tokens: 50,
        cache_control: { type: 'ephemeral' },
        system: LONG_INSTRUCTIONS,
        messages: [{ role: 'user', content: `question ${extra}` }],
      });
    const a = await ask('one');
    expect(a.usage.cache_creation_input_tokens).toBeGreaterThan(1024);
    const again = await ask('one');
    expect(again.usage.cache_read_input_tokens).toBe(a.usage.cache_creation_input_tokens);
  });
});

describe('failures and retries', () => {
  it('answers 429 with retry-after, and the SDK retries to success', async () => {
    const retrying = new Anthropic({ apiKey: API_KEY, baseURL: emu.url, maxRetries: 2 });
    emu.failNext(429, 1, { retryAfterSeconds: 0.05 });
    emu.script(['after the rate limit']);
    const res = await retrying.messages.create({
      model: SONNET,
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.content).toEqual([{ type: 'text', text: 'after the rate limit' }]);
    expect(emu.requests.map((r) => r.status)).toEqual([429, 200]);
    expect(emu.requests[1]?.headers['x-stainless-retry-count']).toBe('1');
  });

  it('sends an Anthropic-shaped rate-limit error with a retry-after header', async () => {
    emu.failNext(429);
    const err = await client.messages
      .create({ model: SONNET, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    const apiErr = err as InstanceType<typeof Anthropic.RateLimitError>;
    expect(apiErr.headers?.get('retry-after')).toBe('1');
    expect(apiErr.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
  });

  it('answers 529 overloaded; the SDK backs off and retries, and gives up after maxRetries', async () => {
    const retrying = new Anthropic({ apiKey: API_KEY, baseURL: emu.url, maxRetries: 1 });
    emu.failNext(529, 1);
    const ok = await retrying.messages.create({
      model: SONNET,
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(ok.type).toBe('message');
    expect(emu.requests.map((r) => r.status)).toEqual([529, 200]);

    emu.reset();
    emu.failNext(529, 2, { retryAfterSeconds: 0.01 });
    const err = await retrying.messages
      .create({ model: SONNET, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    expect((err as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      error: { type: 'overloaded_error' },
    });
    expect(emu.requests.map((r) => r.status)).toEqual([529, 529]);
  });

  it('fails a streamed request before the stream starts, then streams on retry', async () => {
    const retrying = new Anthropic({ apiKey: API_KEY, baseURL: emu.url, maxRetries: 1 });
    emu.failNext(500, 1, { retryAfterSeconds: 0.01 });
    emu.script(['streamed after a 500']);
    const msg = await retrying.messages
      .stream({ model: SONNET, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage();
    expect(msg.content).toEqual([{ type: 'text', text: 'streamed after a 500' }]);
  });
});

describe('request checks', () => {
  it('rejects a wrong API key with 401 authentication_error', async () => {
    const bad = new Anthropic({ apiKey: 'wrong', baseURL: emu.url, maxRetries: 0 });
    const err = await bad.messages
      .create({ model: SONNET, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((err as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
    });
  });

  it('requires the x-api-key and anthropic-version headers', async () => {
    const body = JSON.stringify({
      model: SONNET,
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const noKey = await fetch(`${emu.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body,
    });
    expect(noKey.status).toBe(401);
    const noVersion = await fetch(`${emu.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
      body,
    });
    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
    });
  });

  it('names the missing or malformed field in a 400', async () => {
    const post = (body: unknown) =>
      fetch(`${emu.url}/v1/messages`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': API_KEY,
          'anthropic-version': '2023-06-01',
        },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error: { message: string } } }));

    const noMax = await post({ model: SONNET, messages: [{ role: 'user', content: 'hi' }] });
    expect(noMax.status).toBe(400);
    expect(noMax.body.error.message).toContain('max_tokens');
    const noMessages = await post({ model: SONNET, max_tokens: 10, messages: [] });
    expect(noMessages.body.error.message).toContain('messages');
    const badRole = await post({
      model: SONNET,
      max_tokens: 10,
      messages: [{ role: 'robot', content: 'hi' }],
    });
    expect(badRole.body.error.message).toContain('messages.0.role');
    const notJson = await fetch(`${emu.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': API_KEY, 'anthropic-version': '2023-06-01' },
      body: '{nope',
    });
    expect(notJson.status).toBe(400);
  });

  it('rejects a tool_result that answers no tool_use, and a tool_use left unanswered', async () => {
    const orphan = await client.messages
      .create({
        model: SONNET,
        max_tokens: 50,
        tools,
        messages: [
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_nope', content: 'x' }] },
        ],
      })
      .catch((e: unknown) => e);
    expect(orphan).toBeInstanceOf(Anthropic.BadRequestError);
    expect(String((orphan as Error).message)).toContain('unexpected `tool_use_id`');

    const unanswered = await client.messages
      .create({
        model: SONNET,
        max_tokens: 50,
        tools,
        messages: [
          { role: 'user', content: 'find Maria' },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'search_contacts', input: {} }],
          },
          { role: 'user', content: 'and?' },
        ],
      })
      .catch((e: unknown) => e);
    expect(String((unanswered as Error).message)).toContain('without `tool_result` blocks');
  });

  it('rejects more than four cache breakpoints', async () => {
    const cc = { type: 'ephemeral' as const };
    const err = await client.messages
      .create({
        model: SONNET,
        max_tokens: 50,
        system: [1, 2, 3, 4, 5].map((n) => ({ type: 'text' as const, text: `part ${n}`, cache_control: cc })),
        messages: [{ role: 'user', content: 'hi' }],
      })
      .catch((e: unknown) => e);
    expect(String((err as Error).message)).toContain('A maximum of 4 blocks with cache_control');
  });

  it('fails loudly, without SDK retries, when a script calls a tool the request did not declare', async () => {
    const retrying = new Anthropic({ apiKey: API_KEY, baseURL: emu.url, maxRetries: 2 });
    emu.script([turn.toolUse('delete_everything', {})]);
    const err = await retrying.messages
      .create({ model: SONNET, max_tokens: 50, tools, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(String((err as Error).message)).toContain('delete_everything');
    expect(emu.requests).toHaveLength(1);
  });
});
