import { createHash } from 'node:crypto';

/**
 * Anthropic's web server tools as the Messages API runs them (docs: "Web search tool", "Web fetch tool";
 * SDK types WebSearchTool20250305 / WebFetchTool20250910 and their result blocks; excerpts in
 * test/contracts/vendor/anthropic/). The emulator does not search anything: results are deterministic pages
 * on the allowed domains, so a test sees the request shape, the result blocks and the errors the API gives
 * (url_not_allowed, url_not_in_prior_context, max_uses_exceeded), not real content.
 */

export type ServerToolName = 'web_search' | 'web_fetch';

export interface ServerToolDef {
  type: string;
  name: string;
  allowed_domains?: string[] | null;
  blocked_domains?: string[] | null;
  max_uses?: number | null;
}

export type ServerToolUse = {
  type: 'server_tool_use';
  id: string;
  name: ServerToolName;
  input: Record<string, unknown>;
};

export type ServerToolResult =
  | { type: 'web_search_tool_result'; tool_use_id: string; content: unknown }
  | { type: 'web_fetch_tool_result'; tool_use_id: string; content: unknown };

/** `example.com` allows `example.com` and its subdomains; an entry with a path allows that path prefix. */
function matchesDomain(url: URL, entry: string): boolean {
  const [host, ...path] = entry.toLowerCase().split('/');
  const h = url.hostname.toLowerCase();
  const hostOk = h === host || h.endsWith(`.${host}`);
  return hostOk && (path.length === 0 || url.pathname.startsWith(`/${path.join('/')}`));
}

function allowed(url: URL, def: ServerToolDef): boolean {
  if (def.allowed_domains?.length) return def.allowed_domains.some((d) => matchesDomain(url, d));
  if (def.blocked_domains?.length) return !def.blocked_domains.some((d) => matchesDomain(url, d));
  return true;
}

function searchResults(query: string, def: ServerToolDef) {
  const hosts = def.allowed_domains?.length
    ? def.allowed_domains.map((d) => d.split('/')[0]!)
    : ['example.com', 'example.org'];
  return hosts.slice(0, 3).map((host, i) => {
    const url = `https://${host}/search-result-${i + 1}?q=${encodeURIComponent(query)}`;
    return {
      type: 'web_search_result',
      title: `${query} — result ${i + 1} on ${host}`,
      url,
      page_age: null,
      // The real API sends opaque encrypted text the client must send back unchanged.
      encrypted_content: createHash('sha256').update(url).digest('base64'),
    };
  });
}

/**
 * Runs one server-tool call. `uses` counts earlier calls of the same tool in this response (max_uses is per
 * request); `priorContext` is the request's text, where a fetched URL must already appear.
 */
export function runServerTool(
  use: ServerToolUse,
  def: ServerToolDef,
  uses: number,
  priorContext: string,
): ServerToolResult {
  const overLimit = def.max_uses != null && uses >= def.max_uses;
  if (use.name === 'web_search') {
    const query = typeof use.input.query === 'string' ? use.input.query : '';
    const content = overLimit
      ? { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' }
      : !query
        ? { type: 'web_search_tool_result_error', error_code: 'invalid_tool_input' }
        : searchResults(query, def);
    return { type: 'web_search_tool_result', tool_use_id: use.id, content };
  }
  const raw = typeof use.input.url === 'string' ? use.input.url : '';
  const error = (error_code: string) => ({
    type: 'web_fetch_tool_result',
    tool_use_id: use.id,
    content: { type: 'web_fetch_tool_result_error', error_code },
  });
  if (overLimit) return error('max_uses_exceeded') as ServerToolResult;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return error('invalid_tool_input') as ServerToolResult;
  }
  if (!allowed(url, def)) return error('url_not_allowed') as ServerToolResult;
  // The API only fetches URLs the user gave or earlier search/fetch results contained.
  if (!priorContext.includes(raw)) return error('url_not_in_prior_context') as ServerToolResult;
  return {
    type: 'web_fetch_tool_result',
    tool_use_id: use.id,
    content: {
      type: 'web_fetch_result',
      url: raw,
      retrieved_at: '2026-11-23T00:00:00Z',
      content: {
        type: 'document',
        title: `Page at ${url.hostname}`,
        citations: null,
        source: { type: 'text', media_type: 'text/plain', data: `Emulated content of ${raw}.` },
      },
    },
  };
}
