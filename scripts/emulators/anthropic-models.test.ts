import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ANTHROPIC_HELPER_MODEL, DEFAULT_ANTHROPIC_MODEL } from '../../shared/src/config';
import { type AnthropicEmulator, startAnthropicEmulator, turn } from './anthropic';

/**
 * What the emulator refuses because the real API does: models it does not serve (from the installed SDK's
 * own model and deprecation lists, on the emulator's clock) and server tools sent without their `type`; and
 * how it runs the web server tools.
 */
let now = Date.parse('2026-11-23T12:00:00Z');
let emu: AnthropicEmulator;
let client: Anthropic;
beforeAll(async () => {
  emu = await startAnthropicEmulator({ now: () => now });
  client = new Anthropic({ apiKey: 'k', baseURL: emu.url, maxRetries: 0 });
});
afterAll(async () => {
  await emu?.stop();
});

const ask = (model: string) =>
  client.messages
    .create({ model, max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] })
    .then(() => 200)
    .catch((e: unknown) => (e instanceof Anthropic.APIError ? `${e.status} ${e.message}` : String(e)));

describe('models', () => {
  it('refuses claude-sonnet-4-5 from its end-of-life date on, and serves our defaults', async () => {
    now = Date.parse('2026-11-29T23:59:00Z');
    expect(await ask('claude-sonnet-4-5')).toBe(200);
    now = Date.parse('2026-12-01T00:00:00Z');
    expect(await ask('claude-sonnet-4-5')).toMatch(/^404 .*model: claude-sonnet-4-5/);
    expect(await ask('claude-sonnet-4-5-20250929')).toMatch(/^404/);
    expect(await ask(DEFAULT_ANTHROPIC_MODEL)).toBe(200);
    expect(await ask(DEFAULT_ANTHROPIC_HELPER_MODEL)).toBe(200);
  });

  it('refuses a name the SDK does not list, and an already retired one', async () => {
    expect(await ask('claude-sonnet-test')).toMatch(/^404 .*model: claude-sonnet-test/);
    expect(await ask('claude-mythos-preview')).toMatch(/^404/);
  });
});

const webSearch = {
  type: 'web_search_20250305' as const,
  name: 'web_search' as const,
  allowed_domains: ['zillow.com'],
};
const webFetch = {
  type: 'web_fetch_20250910' as const,
  name: 'web_fetch' as const,
  allowed_domains: ['zillow.com'],
};

describe('server tools', () => {
  const send = (
    tools: unknown[],
    messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'rents?' }],
  ) =>
    client.messages.create({
      model: DEFAULT_ANTHROPIC_MODEL,
      max_tokens: 200,
      messages,
      tools: tools as Anthropic.ToolUnion[],
    });

  it('refuses web_search without its type (what stripping it to {name, description} sends)', async () => {
    const err = await send([{ name: 'web_search', description: 'Search the web' }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect(String(err)).toMatch(/web_search is a server tool and needs its versioned `type`/);
    const unknown = await send([{ type: 'web_search_20990101', name: 'web_search' }]).catch(
      (e: unknown) => e,
    );
    expect(String(unknown)).toMatch(/unknown tool type/);
    const both = await send([{ ...webSearch, blocked_domains: ['evil.example'] }]).catch((e: unknown) => e);
    expect(String(both)).toMatch(/both allowed_domains and blocked_domains/);
  });

  it('runs web_search on the allowed domains and returns the call, its result and the usage', async () => {
    emu.script([
      { content: [turn.webSearch('rent 12 Oak St'), { type: 'text', text: 'Rents are about $2k.' }] },
    ]);
    const res = await send([webSearch, webFetch]);
    expect(res.content.map((b) => b.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text']);
    const result = res.content[1] as Anthropic.WebSearchToolResultBlock;
    const pages = result.content as Anthropic.WebSearchResultBlock[];
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.every((p) => new URL(p.url).hostname === 'zillow.com')).toBe(true);
    expect(result.tool_use_id).toBe((res.content[0] as Anthropic.ServerToolUseBlock).id);
    expect(res.usage.server_tool_use).toEqual({ web_search_requests: 1, web_fetch_requests: 0 });
    expect(res.stop_reason).toBe('end_turn');
  });

  it('web_fetch refuses URLs off the allow-list or not seen before, and fetches a search result', async () => {
    emu.script([
      {
        content: [
          turn.webSearch('rent'),
          turn.webFetch('https://evil.example/x'),
          turn.webFetch('https://zillow.com/never-mentioned'),
          turn.webFetch('https://zillow.com/search-result-1?q=rent'),
          { type: 'text', text: 'ok' },
        ],
      },
    ]);
    const res = await send([webSearch, webFetch]);
    const fetches = res.content.filter(
      (b) => b.type === 'web_fetch_tool_result',
    ) as Anthropic.WebFetchToolResultBlock[];
    expect(
      fetches.map((f) => (f.content as { error_code?: string; type: string }).error_code ?? f.content.type),
    ).toEqual(['url_not_allowed', 'url_not_in_prior_context', 'web_fetch_result']);
  });

  it('accepts the server blocks back in history only with their results beside them', async () => {
    emu.script([{ content: [turn.webSearch('rent'), { type: 'text', text: 'found' }] }]);
    const first = await send([webSearch]);
    const history: Anthropic.MessageParam[] = [
      { role: 'user', content: 'rents?' },
      { role: 'assistant', content: first.content as Anthropic.ContentBlockParam[] },
      { role: 'user', content: 'thanks' },
    ];
    await expect(send([webSearch], history)).resolves.toBeTruthy();
    const withoutResult: Anthropic.MessageParam[] = [
      history[0]!,
      {
        role: 'assistant',
        content: [first.content[0] as Anthropic.ContentBlockParam, { type: 'text', text: 'x' }],
      },
      history[2]!,
    ];
    const err = await send([webSearch], withoutResult).catch((e: unknown) => e);
    expect(String(err)).toMatch(/has no result block after it/);
  });
});
