import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import { AppError, ConfigError } from '../errors';
import { lazyInput, type Tool } from './tool';

/**
 * Web search and fetch (SPEC §3.4, web row). In Claude mode they are Anthropic's server-side tools: the
 * Messages API runs them and returns the results inline, and `allowed_domains` is enforced there. In rules
 * mode (no model) there is nothing to run them, so ordinary tools of the same names say so plainly instead
 * of the agent finding no tool at all.
 *
 * WEB_ALLOWED_DOMAINS: comma-separated hosts ("zillow.com, apartments.com"; subdomains included, no
 * scheme). Empty switches web access off; `*` allows any domain. Off by default because fetched pages are
 * untrusted text the model reads (SPEC §6.4), so a team opts in to the sites it wants.
 */
export type WebServerTool =
  | Anthropic.Messages.WebSearchTool20250305
  | Anthropic.Messages.WebFetchTool20250910;

export interface WebConfig {
  WEB_ALLOWED_DOMAINS: string[];
  ANTHROPIC_API_KEY?: string | undefined;
}

export type WebAccess = { mode: 'off' } | { mode: 'any' } | { mode: 'list'; domains: string[] };

const HOST = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}(\/[^\s]*)?$/;

/** Validates and normalises the allow-list; a malformed entry is a configuration error, never ignored. */
export function parseWebAccess(entries: string[]): WebAccess {
  const cleaned = entries.map((d) => d.trim().toLowerCase()).filter(Boolean);
  if (!cleaned.length) return { mode: 'off' };
  if (cleaned.includes('*')) {
    if (cleaned.length > 1) throw new ConfigError('WEB_ALLOWED_DOMAINS: `*` cannot be combined with domains');
    return { mode: 'any' };
  }
  const domains = cleaned.map((d) => {
    const host = d.replace(/\/+$/, '');
    if (/^[a-z]+:\/\//.test(host) || !HOST.test(host))
      throw new ConfigError(
        `WEB_ALLOWED_DOMAINS: “${d}” is not a domain (write it like example.com, no scheme)`,
      );
    return host;
  });
  return { mode: 'list', domains: [...new Set(domains)] };
}

export interface WebServerToolOptions {
  /** Per API request (a run makes several); Anthropic bills each search. */
  maxSearches?: number;
  maxFetches?: number;
  /** Caps the tokens a fetched page adds to the context. */
  maxFetchTokens?: number;
}

/** The server-tool definitions to append to the Messages API `tools`; empty when web access is off. */
export function webServerTools(access: WebAccess, opts: WebServerToolOptions = {}): WebServerTool[] {
  if (access.mode === 'off') return [];
  const allow = access.mode === 'list' ? { allowed_domains: access.domains } : {};
  return [
    { type: 'web_search_20250305', name: 'web_search', max_uses: opts.maxSearches ?? 5, ...allow },
    {
      type: 'web_fetch_20250910',
      name: 'web_fetch',
      max_uses: opts.maxFetches ?? 5,
      max_content_tokens: opts.maxFetchTokens ?? 20_000,
      ...allow,
    },
  ];
}

export interface WebToolDeps {
  /** Why the web is out of reach here, in words the agent can pass on. */
  reason: string;
}

export class WebUnavailableError extends AppError {
  constructor(message: string) {
    super(message, { code: 'tool_unavailable', status: 501 });
  }
}

const searchInput = lazyInput(() => z.object({ query: z.string().trim().min(1).max(400) }));
const fetchInput = lazyInput(() => z.object({ url: z.url().max(2000) }));

export const webSearchUnavailable: Tool<typeof searchInput, WebToolDeps> = {
  name: 'web_search',
  group: 'web',
  kind: 'read',
  description: 'Search the web. Unavailable in this mode: it answers why, so say you cannot look it up.',
  input: searchInput,
  async run(deps) {
    throw new WebUnavailableError(`Web search is unavailable: ${deps.reason}`);
  },
  summarize: (i) => `Search the web for “${i.query}”`,
};

export const webFetchUnavailable: Tool<typeof fetchInput, WebToolDeps> = {
  name: 'web_fetch',
  group: 'web',
  kind: 'read',
  description: 'Fetch a web page. Unavailable in this mode: it answers why, so say you cannot open it.',
  input: fetchInput,
  async run(deps) {
    throw new WebUnavailableError(`Fetching web pages is unavailable: ${deps.reason}`);
  },
  summarize: (i) => `Fetch ${i.url}`,
};

/** Ordinary tools for when the server tools are not offered (rules mode, or web access switched off). */
export const webTools = [webSearchUnavailable, webFetchUnavailable] as const;
