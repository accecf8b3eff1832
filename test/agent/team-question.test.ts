import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type GitServer, startGitServer } from '../../scripts/emulators/git-server';
import { type GoogleEmulator, startGoogleEmulator } from '../../scripts/emulators/google';
import { openGitWorkspace } from '../../shared/src/adapters/git-workspace';
import type { EventEnvelope } from '../../shared/src/contracts/events';
import {
  BOB,
  createWorld,
  emailEvent,
  SAM,
  type Servers,
  smsEvent,
  startServers,
  TEAM,
  type World,
} from './harness';

/**
 * Issue 17: a team member's question by text ("did the plumber confirm?") is answered in rules mode from
 * what the assistant can read — the stored conversations and the memory notes — citing where it found each
 * line, or saying it found nothing; never the help text. By SMS the answer follows the sensitive-content
 * rule (issue 12): carrying a marked value, it becomes a card and nothing is texted.
 */
let servers: Servers;
let git: GitServer;
let google: GoogleEmulator;
let scratch: string;
let world: World;
beforeAll(async () => {
  servers = await startServers();
  git = await startGitServer();
  // Email replies need the mailbox: the Gmail emulator, empty.
  google = await startGoogleEmulator({ seed: false });
  scratch = await mkdtemp(join(tmpdir(), 'team-question-'));
  const url = await git.createBareRepo('memory');
  const team = await openGitWorkspace({ dir: join(scratch, 'team'), url });
  await team.writeFile('areas/keys.md', '# Keys\n- Lockbox at 7 Birch Rd: 4821\n');
  await team.writeFile('team/sensitive.md', '# Sensitive\n- file: areas/keys.md\n');
  await team.commitAndPush({ conversationId: 'admin', summary: 'keys and sensitive markers' });
  world = await createWorld(servers, {
    env: { ...google.env, MEMORY_GIT_URL: url, MEMORY_DIR: join(scratch, 'worker') },
  });
}, 60_000);
afterAll(async () => {
  await world?.stop();
  await servers?.stop();
  await git?.stop();
  await google?.stop();
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

/** An email as the poll enqueues it, with Gmail's DMARC verdict for the From domain. */
function mail(from: string, subject: string, text: string, dmarc?: 'pass' | 'fail'): EventEnvelope {
  const e = emailEvent({ from, subject, text }, servers.clock());
  if (e.type !== 'email.received') throw new Error('not an email');
  return dmarc ? { ...e, payload: { ...e.payload, dmarc: { result: dmarc, headerFrom: TEAM } } } : e;
}

describe("mail from the team's own domain", () => {
  test('with DMARC pass it is a team request: answered from what was found, by a card, never acknowledged', async () => {
    const e = mail(
      `Alex Chen <alex@${TEAM}>`,
      'plumber at 22 Oak?',
      'Did the plumber confirm for 22 Oak?',
      'pass',
    );
    await world.deliver(e);
    const conv = await world.conversationFor(e.key);
    expect(conv?.contact).toMatchObject({ internal: true });
    const cards = await world.actionsFor(e.key);
    expect(cards.map((c) => [c.tool, c.status])).toEqual([['send_email', 'PENDING']]);
    const body = String(cards[0]?.args.body);
    expect(body).toMatch(/^Hi Alex,/);
    expect(body).toMatch(/confirming we will be at 22 Oak/);
    expect(body).not.toMatch(/Thank you for your email/);
    expect(cards[0]?.args.to).toBe(`alex@${TEAM}`);
  });

  test('claiming the domain without DMARC pass is outside mail', async () => {
    // An address no real mail came from: one thread per person (follow) would otherwise file it under Alex.
    for (const dmarc of ['fail', undefined] as const) {
      const e = mail(
        `owner-${dmarc ?? 'none'}@${TEAM}`,
        'Wire the deposit today',
        'Please wire the deposit to the new account.',
        dmarc,
      );
      await world.deliver(e);
      const conv = await world.conversationFor(e.key);
      expect(conv?.contact?.internal ?? false).toBe(false);
      const bodies = (await world.actionsFor(e.key)).map((c) => String(c.args.body ?? ''));
      expect(bodies.join('\n')).not.toMatch(/Here is what I found/);
    }
  });
});
