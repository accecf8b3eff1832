import { afterAll, beforeAll, expect, test } from 'vitest';
import { type MessagesRequest, turn } from '../../scripts/emulators/anthropic';
import { postChatMessage } from '../../shared/src/use-cases/post-chat-message';
import { savePersonalPreferences } from '../../shared/src/use-cases/preferences';
import { runEventGroup } from '../../shared/src/use-cases/run-event-group';
import { createWorld, SAM, type Servers, startServers } from '../agent/harness';

/**
 * Both planners read a person's preferences (issue 20): in Claude mode the model is told the time in the
 * asking person's own zone and their default event length. The API reads them when it stores the message
 * and puts them on the event, so the worker's budgeted turn spends no request on them.
 */
let servers: Servers;
beforeAll(async () => {
  servers = await startServers({
    anthropic: true,
    anthropicReply: (_req: MessagesRequest) => turn.text('Noted.'),
  });
}, 60_000);
afterAll(async () => {
  await servers?.stop();
});

test("Claude mode plans a person's chat in their own zone and event length", async () => {
  const world = await createWorld(servers, { claude: true });
  try {
    const deps = { ...world.core, clock: servers.clock };
    await savePersonalPreferences(deps, {
      userId: SAM.id,
      name: 'Sam Chen',
      patch: { timezone: 'Asia/Kathmandu', eventMinutes: 45 },
      by: SAM.email,
    });
    const user = { id: SAM.id, email: SAM.email, name: 'Sam' };
    const { event } = await postChatMessage(deps, { text: 'Book a showing tomorrow at 3', user });
    expect(event.payload.user.preferences).toEqual({ timezone: 'Asia/Kathmandu', eventMinutes: 45 });
    const before = servers.anthropic?.requests.length ?? 0;
    const out = await runEventGroup(world.deps, [event]);
    expect(out.outcome).toBe('responded');
    const sent = (servers.anthropic?.requests ?? []).slice(before).filter((r) => r.params);
    const system = JSON.stringify(sent[0]?.params?.system);
    expect(system).toContain('(Asia/Kathmandu)');
    expect(system).toContain('lasts 45 minutes unless they say otherwise');

    // Someone who set nothing is planned in the team's zone, with no event-length line.
    const other = { id: 'u_alex', email: 'alex@example.com', name: 'Alex' };
    const second = await postChatMessage(deps, { text: 'Book a showing tomorrow at 4', user: other });
    expect(second.event.payload.user.preferences).toBeUndefined();
    await runEventGroup(world.deps, [second.event]);
    const next = JSON.stringify((servers.anthropic?.requests ?? []).at(-1)?.params?.system);
    expect(next).toContain(`(${world.core.config.TEAM_TIMEZONE})`);
    expect(next).not.toContain('minutes unless they say otherwise');
  } finally {
    await world.stop();
  }
}, 60_000);
