import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type GitServer, startGitServer } from '../../scripts/emulators/git-server';
import { openGitWorkspace } from '../../shared/src/adapters/git-workspace';
import { createWorld, SAM, type Servers, smsEvent, startServers, type World } from './harness';

/**
 * Issue 12 item 9 through the signed-in path a spoofer would use: a text from a team member's number. An
 * answer carrying a value the team marked sensitive (team/sensitive.md, a protected path) or anything
 * secret-looking becomes a card; an ordinary answer still goes straight back by SMS.
 */
let servers: Servers;
let git: GitServer;
let scratch: string;
let world: World;
beforeAll(async () => {
  servers = await startServers({ anthropic: true });
  git = await startGitServer();
  scratch = await mkdtemp(join(tmpdir(), 'sensitive-'));
  const url = await git.createBareRepo('memory');
  // The team (an admin, not the agent) marks a file and a value sensitive.
  const team = await openGitWorkspace({ dir: join(scratch, 'team'), url });
  await team.writeFile('areas/keys.md', '# Keys\n- Lockbox at 7 Birch Rd: 4821\n');
  await team.writeFile('team/sensitive.md', '# Sensitive\n- file: areas/keys.md\n- value: Bluebird42\n');
  await team.commitAndPush({ conversationId: 'admin', summary: 'sensitive markers' });
  world = await createWorld(servers, {
    claude: true,
    env: { MEMORY_GIT_URL: url, MEMORY_DIR: join(scratch, 'worker') },
  });
}, 60_000);
afterAll(async () => {
  await world?.stop();
  await servers?.stop();
  await git?.stop();
  await rm(scratch, { recursive: true, force: true });
});

async function answer(question: string, reply: string) {
  servers.anthropic!.reset();
  servers.anthropic!.script([reply]);
  const before = world.sentTo(SAM.phone).length;
  await world.deliver(smsEvent(SAM.phone, question, servers.clock()));
  const cards = (await world.actionsFor(`sms:${SAM.phone}`)).filter((a) => a.args.text === reply);
  return { sent: world.sentTo(SAM.phone).slice(before), cards };
}

describe('SMS answers to a team number', () => {
  test('an ordinary answer goes straight back by text', async () => {
    const r = await answer('When does the plumber come?', 'The plumber comes at 3 pm.');
    expect(r.sent.map((m) => m.text)).toEqual(['The plumber comes at 3 pm.']);
  });

  test.each([
    ['a value from a file marked sensitive', 'The lockbox at 7 Birch Rd opens with 48 21.'],
    ['a value marked sensitive', 'The wifi is Bluebird42.'],
    ['a secret-looking code nobody marked', 'The alarm code is 99120.'],
  ])('an answer carrying %s becomes a card; nothing is sent', async (_what, reply) => {
    const r = await answer('What is it?', reply);
    expect(r.sent).toEqual([]);
    expect(r.cards.map((c) => [c.tool, c.status])).toEqual([['reply_to_sender', 'PENDING']]);
    expect(r.cards[0]?.policy?.why?.join('\n')).toMatch(/sensitive content/);
    await world.decide(r.cards[0]!, 'deny', { reason: 'not by text' });
    await world.work();
  });
});
