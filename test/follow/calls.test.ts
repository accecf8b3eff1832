import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type GitServer, startGitServer } from '../../scripts/emulators/git-server';
import { simulateCall } from '../../scripts/simulate-call';
import { openGitWorkspace } from '../../shared/src/adapters/git-workspace';
import { createWorld, MARIA, type Servers, startServers, type World } from '../agent/harness';
import { FOLLOW_WEBHOOK_SECRET, startWebhookReceiver } from './support';

/**
 * A completed call with its summary and transcript, through the signed webhook, in either order: one entry
 * in Maria's conversation (who, how long, the summary), and one run that proposes a follow-up text as a card.
 */
let servers: Servers;
let git: GitServer;
let scratch: string;
const env = { OPENPHONE_WEBHOOK_SECRET: FOLLOW_WEBHOOK_SECRET };
beforeAll(async () => {
  servers = await startServers({ webhookSecret: FOLLOW_WEBHOOK_SECRET });
  git = await startGitServer();
  scratch = await mkdtemp(join(tmpdir(), 'follow-calls-'));
}, 60_000);
afterAll(async () => {
  await servers?.stop();
  await git?.stop();
  await rm(scratch, { recursive: true, force: true });
});

async function post(url: string, d: { rawBody: string; headers: Record<string, string> }) {
  const res = await fetch(url, { method: 'POST', headers: d.headers, body: d.rawBody });
  return res.status;
}

async function expectOneEntryAndCard(world: World) {
  const conv = await world.conversationFor(`sms:${MARIA}`);
  if (!conv) throw new Error('no conversation for the call');
  const entries = (await world.core.conversations.listMessages(conv.id)).filter((m) => m.call);
  expect(entries).toHaveLength(1);
  expect(entries[0]).toMatchObject({
    role: 'system',
    call: {
      with: MARIA,
      durationSeconds: 192,
      summary: ['Leak under the kitchen sink'],
      nextSteps: ['Send a plumber'],
    },
  });
  expect(entries[0]?.text).toMatch(/^Call from Maria Lopez · 3 min 12 s\nLeak under the kitchen sink/);
  expect(entries[0]?.call?.transcript?.[0]).toBe('caller: There is a leak under my kitchen sink');
  const cards = await world.core.actions.listByConversation(conv.id);
  expect(cards).toHaveLength(1);
  expect(cards[0]).toMatchObject({ tool: 'send_message', args: { to: MARIA } });
  return conv;
}

test('a call and its summary and transcript become one entry, notes in memory, and one follow-up card', async () => {
  await git.createBareRepo('calls');
  const world = await createWorld(servers, {
    env: { ...env, MEMORY_GIT_URL: git.repoUrl('calls'), MEMORY_DIR: join(scratch, 'clone') },
  });
  const hook = await startWebhookReceiver(world);
  try {
    const call = await servers.openphone.fireCall({
      from: MARIA,
      scheme: 'standard',
      durationSeconds: 192,
      summary: { summary: ['Leak under the kitchen sink'], nextSteps: ['Send a plumber'] },
      transcript: [
        { who: 'caller', text: 'There is a leak under my kitchen sink' },
        { who: 'member', text: 'We will send someone' },
      ],
      url: hook.url,
    });
    expect(call.deliveries.map((d) => d.status)).toEqual([202, 202, 202]);
    await world.work();
    const conv = await expectOneEntryAndCard(world);

    // The notes need no card; they reach the remote when the run ends (here: the text is declined).
    const [card] = await world.core.actions.listByConversation(conv.id);
    if (!card) throw new Error('no card');
    await world.decide(card, 'deny', { reason: 'I will call her back instead' });
    await world.work();
    const check = await openGitWorkspace({ dir: join(scratch, 'check'), url: git.repoUrl('calls') });
    const notes = await check.listFiles('calls');
    expect(notes).toHaveLength(1);
    const note = await check.readFile(notes[0]?.path as string);
    expect(note).toContain('# Call with Maria Lopez (3 min)');
    expect(note).toContain('- Send a plumber');

    // The same deliveries again (Quo retries) change nothing: no second entry, no second card.
    for (const d of call.deliveries) expect(await post(hook.url, d)).toBe(200);
    await world.work();
    await expectOneEntryAndCard(world);
  } finally {
    await hook.stop();
    await world.stop();
  }
}, 60_000);

test('the transcript and summary arriving before call.completed give the same entry and card', async () => {
  const first = await createWorld(servers, { env });
  const firstHook = await startWebhookReceiver(first);
  const call = await servers.openphone.fireCall({
    from: MARIA,
    scheme: 'standard',
    durationSeconds: 192,
    summary: { summary: ['Leak under the kitchen sink'], nextSteps: ['Send a plumber'] },
    transcript: [{ who: 'caller', text: 'There is a leak under my kitchen sink' }],
    url: firstHook.url,
  });
  await firstHook.stop();
  await first.stop();

  const world = await createWorld(servers, { env });
  const hook = await startWebhookReceiver(world);
  try {
    for (const d of [...call.deliveries].reverse()) {
      expect(await post(hook.url, d)).toBe(202);
      await world.work();
    }
    await expectOneEntryAndCard(world);
  } finally {
    await hook.stop();
    await world.stop();
  }
}, 60_000);

test('npm run simulate:call: the signed deliveries it posts give the call entry and a follow-up card', async () => {
  const world = await createWorld(servers, { env });
  const hook = await startWebhookReceiver(world);
  try {
    const sent = await simulateCall(
      { url: hook.url, openPhoneWebhookSecret: FOLLOW_WEBHOOK_SECRET },
      {
        from: MARIA,
        durationSeconds: 192,
        summary: ['Leak under the kitchen sink'],
        nextSteps: ['Send a plumber'],
        said: 'There is a leak under my kitchen sink',
      },
      servers.clock,
    );
    expect(sent.map((s) => s.status)).toEqual([202, 202, 202]);
    await world.work();
    await expectOneEntryAndCard(world);
  } finally {
    await hook.stop();
    await world.stop();
  }
}, 60_000);
