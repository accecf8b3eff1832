import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnthropicEmulator, startAnthropicEmulator } from '../../../scripts/emulators/anthropic';
import { buildWebToolDeps } from '../composition/tool-deps';
import { DEFAULT_ANTHROPIC_MODEL } from '../config';
import { ConfigError } from '../errors';
import { bindAll, ToolRegistry } from './registry';
import { parseWebAccess, WebUnavailableError, webServerTools, webTools } from './web';

let emu: AnthropicEmulator;
beforeAll(async () => {
  emu = await startAnthropicEmulator();
});
afterAll(async () => {
  await emu?.stop();
});

describe('WEB_ALLOWED_DOMAINS', () => {
  it('is off when empty, open with *, else a normalised list', () => {
    expect(parseWebAccess([])).toEqual({ mode: 'off' });
    expect(parseWebAccess(['*'])).toEqual({ mode: 'any' });
    expect(parseWebAccess(['Zillow.com', 'apartments.com/', 'zillow.com', 'nyc.gov/hpd'])).toEqual({
      mode: 'list',
      domains: ['zillow.com', 'apartments.com', 'nyc.gov/hpd'],
    });
  });

  it('refuses entries that are not domains instead of ignoring them', () => {
    expect(() => parseWebAccess(['https://zillow.com'])).toThrow(ConfigError);
    expect(() => parseWebAccess(['zillow'])).toThrow(/not a domain/);
    expect(() => parseWebAccess(['*', 'zillow.com'])).toThrow(/cannot be combined/);
  });
});

describe('server tools (Claude mode)', () => {
  it('carry the allow-list, or none when open, and nothing when off', () => {
    const tools = webServerTools(parseWebAccess(['zillow.com']));
    expect(tools).toEqual([
      { type: 'web_search_20250305', name: 'web_search', max_uses: 5, allowed_domains: ['zillow.com'] },
      {
        type: 'web_fetch_20250910',
        name: 'web_fetch',
        max_uses: 5,
        max_content_tokens: 20_000,
        allowed_domains: ['zillow.com'],
      },
    ]);
    expect(webServerTools({ mode: 'any' }).every((t) => !('allowed_domains' in t))).toBe(true);
    expect(webServerTools({ mode: 'off' })).toEqual([]);
  });

  it('are accepted by the Messages API next to ordinary tools', async () => {
    const client = new Anthropic({ apiKey: 'test', baseURL: emu.url, maxRetries: 0 });
    await client.messages.create({
      model: DEFAULT_ANTHROPIC_MODEL,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'rents near 12 Oak St?' }],
      tools: [
        { name: 'search_contacts', description: 'x', input_schema: { type: 'object' as const } },
        ...webServerTools(parseWebAccess(['zillow.com'])),
      ],
    });
    const sent = emu.requests.at(-1)?.params as { tools: { name: string; allowed_domains?: string[] }[] };
    expect(sent.tools.map((t) => t.name)).toEqual(['search_contacts', 'web_search', 'web_fetch']);
    expect(sent.tools[1]?.allowed_domains).toEqual(['zillow.com']);
  });
});

describe('choosing between server tools and the ordinary stand-ins', () => {
  it('rules mode gets stand-ins that say web access needs Claude', async () => {
    const web = buildWebToolDeps({ WEB_ALLOWED_DOMAINS: ['zillow.com'] });
    expect(web.serverTools).toEqual([]);
    const registry = new ToolRegistry(bindAll(webTools, web.fallback as { reason: string }));
    const ctx = { conversationId: 'c', runId: 'r', now: new Date(), timezone: 'UTC' };
    const e = (await registry
      .get('web_search')
      .run({ query: 'rent prices' }, ctx)
      .catch((x: unknown) => x)) as Error;
    expect(e).toBeInstanceOf(WebUnavailableError);
    expect(e).toMatchObject({ code: 'tool_unavailable', retryable: false });
    expect(e.message).toMatch(/without Claude/);
    await expect(registry.get('web_fetch').run({ url: 'https://zillow.com' }, ctx)).rejects.toThrow(
      /unavailable/,
    );
    expect(registry.validateArgs('web_fetch', { url: 'not a url' }).ok).toBe(false);
  });

  it('Claude mode with web switched off says so; with an allow-list it gets server tools only', () => {
    const off = buildWebToolDeps({ WEB_ALLOWED_DOMAINS: [], ANTHROPIC_API_KEY: 'k' });
    expect(off).toEqual({ serverTools: [], fallback: { reason: expect.stringMatching(/switched off/) } });
    const on = buildWebToolDeps({ WEB_ALLOWED_DOMAINS: ['zillow.com'], ANTHROPIC_API_KEY: 'k' });
    expect(on.fallback).toBeUndefined();
    expect(on.serverTools.map((t) => t.name)).toEqual(['web_search', 'web_fetch']);
  });
});
