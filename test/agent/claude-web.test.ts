import { afterAll, beforeAll, expect, test } from 'vitest';
import { type MessagesRequest, turn } from '../../scripts/emulators/anthropic';
import { postChatMessage } from '../../shared/src/use-cases/post-chat-message';
import { createWorld, SAM, type Servers, startServers } from './harness';

/**
 * Issue 13 item 4: with WEB_ALLOWED_DOMAINS set, a Claude-mode turn sends web_search / web_fetch as server
 * tools with their versioned `type` and the allow-list, and the server-tool call and result the API ran come
 * back in the history of the next model call (the emulator refuses a history without them).
 */
let servers: Servers;
beforeAll(async () => {
  servers = await startServers({ anthropic: true });
});
afterAll(async () => {
  await servers?.stop();
});

test('a Claude-mode turn sends the web tools with their type and keeps their blocks in history', async () => {
  const emu = servers.anthropic!;
  emu.reset();
  const world = await createWorld(servers, { claude: true, env: { WEB_ALLOWED_DOMAINS: 'zillow.com' } });
  try {
    emu.script([
      {
        content: [
          turn.webSearch('2 bedroom rent near 12 Oak St'),
          { type: 'text', text: 'Let me also check who asked.' },
          { type: 'tool_use', name: 'search_contacts', input: { query: 'Maria' } },
        ],
      },
      turn.text('Two-bedrooms nearby rent for about $2,100.'),
    ]);
    await postChatMessage(
      { ...world.core, clock: servers.clock },
      { text: 'What do 2BRs rent for near 12 Oak St?', user: { id: SAM.id, email: SAM.email, name: 'Sam' } },
    );
    await world.work();

    const calls = emu.requests.filter((r) => r.path === '/v1/messages');
    expect(calls.map((c) => c.status)).toEqual([200, 200]);
    const first = calls[0]!.params as MessagesRequest;
    const web = (first.tools ?? []).filter((t) => t.name === 'web_search' || t.name === 'web_fetch');
    expect(web).toEqual([
      expect.objectContaining({
        type: 'web_search_20250305',
        name: 'web_search',
        allowed_domains: ['zillow.com'],
      }),
      expect.objectContaining({
        type: 'web_fetch_20250910',
        name: 'web_fetch',
        allowed_domains: ['zillow.com'],
      }),
    ]);

    const second = calls[1]!.params as MessagesRequest;
    const assistant = second.messages.find((m) => m.role === 'assistant');
    const types = typeof assistant?.content === 'string' ? [] : (assistant?.content ?? []).map((b) => b.type);
    expect(types).toEqual(['text', 'server_tool_use', 'web_search_tool_result', 'tool_use']);
  } finally {
    await world.stop();
  }
});
