import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type GitServer, startGitServer } from '../../scripts/emulators/git-server';
import { openGitWorkspace } from '../../shared/src/adapters/git-workspace';
import { BOB, createWorld, SAM, type Servers, smsEvent, startServers, type World } from './harness';

/**
 * Issue 17: a team member's question by text ("did the plumber confirm?") is answered in rules mode from
 * what the assistant can read — the stored conversations and the memory notes — citing where it found each
 * line, or saying it found nothing; never the help text. By SMS the answer follows the sensitive-content
 * rule (issue 12): carrying a marked value, it becomes a card and nothing is texted.
 */
let servers: Servers;
let git: GitServer;
let scratch: string;
let world: World;
beforeAll(async () => {
  servers = await startServers();
  git = await startGitServer();
  scratch = await mkdtemp(join(tmpdir(), 'team-question-'));
  const url = await git.createBareRepo('memory');
  const team = await openGitWorkspace({ dir: join(scratch, 'team'), url });
  await team.writeFile('areas/keys.md', '# Keys\n- Lockbox at 7 Birch Rd: 4821\n');
  await team.writeFile('team/sensitive.md', '# Sensitive\n- file: areas/keys.md\n');
  await team.commitAndPush({ conversationId: 'admin', summary: 'keys and sensitive markers' });
  world = await createWorld(servers, { env: { MEMORY_GIT_URL: url, MEMORY_DIR: join(scratch, 'worker') } });
}, 60_000);
afterAll(async () => {
  await world?.stop();
  await servers?.stop();
  await git?.stop();
  await rm(scratch, { recursive: true, force: true });
});

async function samAsks(question: string) {
  const before = world.sentTo(SAM.phone).length;
  await world.deliver(smsEvent(SAM.phone, question, servers.clock()));
  const cards = (await world.actionsFor(`sms:${SAM.phone}`)).filter((a) => a.status === 'PENDING');
  return {
    sent: world
      .sentTo(SAM.phone)
      .slice(before)
      .map((m) => m.text),
    cards,
  };
}

describe('a team member asks a question by text', () => {
  test('it is answered from the conversations, citing who said it and where', async () => {
    await world.deliver(
      smsEvent(
        BOB,
        'This is Bob from ABC Plumbing, confirming we will be at 22 Oak tomorrow 8-10',
        servers.clock(),
      ),
    );
    servers.clock.advance(60_000);
    const r = await samAsks('did the plumber confirm for 22 Oak?');
    expect(r.cards).toEqual([]);
    expect(r.sent).toHaveLength(1);
    expect(r.sent[0]).toMatch(/^Here is what I found/);
    expect(r.sent[0]).toMatch(/confirming we will be at 22 Oak/);
    expect(r.sent[0]).toMatch(/conversation “/);
  });

  test('nothing found is said plainly, not the help text', async () => {
    const r = await samAsks('has the roofer sent the gutter quote?');
    expect(r.sent).toEqual([expect.stringMatching(/found nothing/)]);
  });

  test('an answer quoting a note marked sensitive becomes a card; nothing is texted', async () => {
    const r = await samAsks('what is the lockbox code at Birch?');
    expect(r.sent).toEqual([]);
    expect(r.cards.map((c) => c.tool)).toEqual(['reply_to_sender']);
    expect(String(r.cards[0]?.args.text)).toMatch(/4821/);
    expect(String(r.cards[0]?.args.text)).toMatch(/notes, areas\/keys\.md line 2/);
  });
});
