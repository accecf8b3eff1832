import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createApp } from '../../functions/api/app';
import { turn } from '../../scripts/emulators/anthropic';
import { type GitServer, startGitServer } from '../../scripts/emulators/git-server';
import { generateDevKeyPair } from '../../scripts/local/dev-auth';
import { openGitWorkspace } from '../../shared/src/adapters/git-workspace';
import { EDITOR_TOOLS } from '../../shared/src/agent/team-rulebase';
import { signDevSessionToken } from '../../shared/src/auth/dev-session';
import { buildApiDeps } from '../../shared/src/composition/api';
import { diffWorkspaceFileResponse } from '../../shared/src/contracts/workspace-files';
import { createPolicyGuard, InMemoryFactStore, loadRulebases } from '../../shared/src/domain/policy';
import { DEFAULT_RULEBASE_FILES } from '../../shared/src/domain/policy/defaults';
import { textVersion } from '../../shared/src/domain/text-version';
import { postChatMessage } from '../../shared/src/use-cases/post-chat-message';
import { ALEX, createWorld, SAM, type Servers, startServers, TEAM, type World } from './harness';

/**
 * Issue 12: the agent may *propose* a policy change, never make one. In Claude mode the model calls
 * propose_policy_change → a card; through the public API a member's approval is a 403 and the file is
 * unchanged in the memory repository; an admin's approval commits it there with the admin as the author.
 */
const ORIGIN = 'https://switchboard.test';
const PATH = 'policy/messaging.rules';
const ADDED = '% Vendors may be texted until 22:00 (proposed by the assistant).';

let servers: Servers;
let git: GitServer;
let scratch: string;
let world: World;
let app: ReturnType<typeof createApp>;
const keys = generateDevKeyPair();

beforeAll(async () => {
  servers = await startServers({ anthropic: true });
  git = await startGitServer();
  scratch = await mkdtemp(join(tmpdir(), 'policy-change-'));
  await git.createBareRepo('memory');
  world = await createWorld(servers, {
    claude: true,
    env: {
      MEMORY_GIT_URL: git.repoUrl('memory'),
      MEMORY_DIR: join(scratch, 'worker'),
      CLERK_JWT_KEY: keys.publicKeyPem,
      CLERK_AUTHORIZED_PARTIES: ORIGIN,
      PUBLIC_BASE_URL: ORIGIN,
      ADMIN_EMAILS: ALEX.email,
    },
  });
  const api = buildApiDeps(world.core);
  app = createApp(async () => api);
}, 60_000);
afterAll(async () => {
  await world?.stop();
  await servers?.stop();
  await git?.stop();
  await rm(scratch, { recursive: true, force: true });
});

/** A session token with a verified email claim (the customised Clerk template), signed with the test key. */
async function session(who: { id: string; email: string }, name: string) {
  const { token } = await signDevSessionToken(keys.privateKeyPem, {
    userId: who.id,
    azp: ORIGIN,
    issuer: 'https://clerk.switchboard.test',
    extra: { email: who.email, email_verified: true, name },
  });
  return token;
}

function call(method: string, path: string, token: string, body?: unknown) {
  return app.request(path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

let n = 0;
async function remote() {
  n++;
  return openGitWorkspace({ dir: join(scratch, `check-${n}`), url: git.repoUrl('memory') });
}

test('a proposal is a card with a diff; a member cannot approve it; an admin approval commits it as the admin', async () => {
  const before = DEFAULT_RULEBASE_FILES[PATH] as string;
  const proposed = `${before}\n${ADDED}\n`;
  servers.anthropic!.reset();
  servers.anthropic!.script([
    turn.toolUse('propose_policy_change', {
      path: PATH,
      text: proposed,
      reason: 'Sam asked that vendors can be texted until 22:00.',
    }),
    'I proposed the change; an admin has approved it.',
  ]);
  const { conversation } = await postChatMessage(
    { ...world.core, clock: servers.clock },
    { text: 'Let us text vendors until 10pm', user: { id: SAM.id, email: SAM.email, name: 'Sam Chen' } },
  );
  await world.work();
  const [card] = await world.core.actions.listByConversation(conversation.id);
  expect(card).toMatchObject({ tool: 'propose_policy_change', status: 'PENDING', args: { path: PATH } });
  expect((await (await remote()).readFile(PATH)).includes(ADDED)).toBe(false);

  const sam = await session(SAM, 'Sam Chen');
  const alex = await session(ALEX, 'Alex Rivera');
  // The card's diff is computed from the file as saved, not taken from the proposer.
  const diff = diffWorkspaceFileResponse.parse(
    await (await call('POST', '/api/workspace/diff', sam, { path: PATH, text: proposed })).json(),
  );
  expect(diff.diff).toContain(`+${ADDED}`);
  expect(diff.diff.split('\n').filter((l) => l.startsWith('-') && !l.startsWith('---'))).toEqual([]);

  const approveUrl = `/api/conversations/${conversation.id}/actions/${card!.id}/approve`;
  const refused = await call('POST', approveUrl, sam, {});
  expect(refused.status).toBe(403);
  expect((await refused.json()).error.message).toMatch(/Only an admin can approve a policy change/);
  expect((await world.core.actions.get(conversation.id, card!.id))?.status).toBe('PENDING');
  await world.work();
  expect((await (await remote()).readFile(PATH)).includes(ADDED)).toBe(false);

  const approved = await call('POST', approveUrl, alex, {});
  expect(approved.status).toBe(200);
  await world.work();
  const done = await world.core.actions.get(conversation.id, card!.id);
  expect(done).toMatchObject({ status: 'EXECUTED', decidedBy: ALEX.email, decidedByName: 'Alex Rivera' });

  const ws = await remote();
  expect(await ws.readFile(PATH)).toBe(proposed);
  const commits = await ws.history(10);
  const change = commits.find((c) => c.files.some((f) => f.path === PATH && f.change === 'modified'));
  expect(change?.author).toBe('Alex Rivera');
  expect(change?.message).toMatch(/policy change approved by Alex Rivera/);
  expect(change?.files.map((f) => f.path)).toEqual([PATH]);
  expect(world.sent()).toEqual([]);
}, 60_000);

test('a proposal that would not load fails with the reason and changes nothing', async () => {
  servers.anthropic!.reset();
  servers.anthropic!.script([
    turn.toolUse('propose_policy_change', {
      path: 'policy/broken.rules',
      text: 'known_contact(Phone) :- contact(Phone, _, _',
      reason: 'try a broken rule',
    }),
    'The change could not be applied.',
  ]);
  const { conversation } = await postChatMessage(
    { ...world.core, clock: servers.clock },
    { text: 'add a rule', user: { id: SAM.id, email: SAM.email, name: 'Sam Chen' } },
  );
  await world.work();
  const [card] = await world.core.actions.listByConversation(conversation.id);
  const alex = await session(ALEX, 'Alex Rivera');
  expect(
    (await call('POST', `/api/conversations/${conversation.id}/actions/${card!.id}/approve`, alex, {}))
      .status,
  ).toBe(200);
  await world.work();
  const failed = await world.core.actions.get(conversation.id, card!.id);
  expect(failed?.status).toBe('FAILED');
  expect(failed?.error).toMatch(/policy\/broken\.rules:\d+:\d+/);
  expect(await (await remote()).readFile('policy/broken.rules').catch(() => undefined)).toBeUndefined();
}, 60_000);

test('no rule can make a policy change autonomous, and an approval by text (no admin session) is refused', async () => {
  const rulebase = loadRulebases(
    { ...DEFAULT_RULEBASE_FILES, 'policy/zz.rules': 'autonomous propose_policy_change when true.\n' },
    { tools: EDITOR_TOOLS },
  );
  const guard = createPolicyGuard({ rulebase, facts: new InMemoryFactStore(), conversationId: 'c' });
  const verdict = await guard.check(
    {
      tool: 'propose_policy_change',
      kind: 'write',
      args: { path: PATH, text: 'x', reason: 'y' },
      origin: 'model',
      conversationId: 'c',
    },
    { now: servers.clock(), timezone: 'America/New_York', callReadTool: async () => ({}) },
  );
  expect(verdict.decision).toBe('require_approval');
  // The SMS gate (a team member replying YES) carries no admin session.
  const { conversation } = await postChatMessage(
    { ...world.core, clock: servers.clock },
    { text: 'x', user: { id: SAM.id, email: SAM.email } },
  );
  servers.anthropic!.reset();
  servers.anthropic!.script([
    turn.toolUse('propose_policy_change', { path: PATH, text: 'x', reason: 'y' }),
    'ok',
  ]);
  await world.work();
  const [card] = await world.core.actions.listByConversation(conversation.id);
  await expect(
    world.decide(card!, 'approve', { user: { id: ALEX.id, email: `alex@${TEAM}` } }),
  ).rejects.toMatchObject({ status: 403 });
}, 60_000);

/** The assistant proposes adding one line to messaging.rules (Claude mode); returns the waiting card. */
async function proposeLine(line: string) {
  const before = await (await remote()).readFile(PATH);
  servers.anthropic!.reset();
  servers.anthropic!.script([
    // The model claims a base version of its own; the system's record replaces it.
    turn.toolUse('propose_policy_change', {
      path: PATH,
      text: `${before}${line}\n`,
      reason: 'Sam asked.',
      baseVersion: 'new',
    }),
    'I proposed the change.',
  ]);
  const { conversation } = await postChatMessage(
    { ...world.core, clock: servers.clock },
    { text: 'propose it', user: { id: SAM.id, email: SAM.email, name: 'Sam Chen' } },
  );
  await world.work();
  const [card] = await world.core.actions.listByConversation(conversation.id);
  expect(card).toMatchObject({ tool: 'propose_policy_change', status: 'PENDING' });
  // The system records what the proposal starts from (never the model's word).
  expect(card!.args.baseVersion).toBe(textVersion(before));
  return { card: card!, before };
}

/** An admin saves messaging.rules through the API, as the policy editor does. */
async function adminSaves(alex: string, extra: string) {
  const file = await (await call('GET', `/api/workspace/file?path=${PATH}`, alex)).json();
  const saved = await call('PUT', '/api/workspace/file', alex, {
    path: PATH,
    text: `${file.text}${extra}\n`,
    baseVersion: file.version,
  });
  expect(saved.status).toBe(200);
  return `${file.text}${extra}\n`;
}

test('a proposal made before an admin saved the file is refused at approval (409) and the admin edit stays', async () => {
  const { card } = await proposeLine('% proposed: vendors until 22:00');
  const alex = await session(ALEX, 'Alex Rivera');
  const edited = await adminSaves(alex, '% admin: quiet hours reviewed');

  const url = `/api/conversations/${card.conversationId}/actions/${card.id}/approve`;
  const refused = await call('POST', url, alex, {});
  expect(refused.status).toBe(409);
  const body = await refused.json();
  expect(body.error.code).toBe('stale_proposal');
  expect(body.error.message).toMatch(/changed after this was proposed.*would undo/);
  expect((await world.core.actions.get(card.conversationId, card.id))?.status).toBe('PENDING');
  await world.work();
  expect(await (await remote()).readFile(PATH)).toBe(edited);
  // It can still be denied, and a fresh proposal against the saved file goes through.
  expect((await call('POST', url.replace(/approve$/, 'deny'), alex, { redraft: false })).status).toBe(200);
  await world.work();
  const again = await proposeLine('% proposed again: vendors until 22:00');
  const ok = await call(
    'POST',
    `/api/conversations/${again.card.conversationId}/actions/${again.card.id}/approve`,
    alex,
    {},
  );
  expect(ok.status).toBe(200);
  await world.work();
  const now = await (await remote()).readFile(PATH);
  expect(now).toContain('% admin: quiet hours reviewed');
  expect(now).toContain('% proposed again: vendors until 22:00');
}, 60_000);

test('an admin edit saved between the approval and the run: the card ends FAILED saying so, the edit stays', async () => {
  const { card } = await proposeLine('% proposed: a line that arrives too late');
  const alex = await session(ALEX, 'Alex Rivera');
  const url = `/api/conversations/${card.conversationId}/actions/${card.id}/approve`;
  expect((await call('POST', url, alex, {})).status).toBe(200);
  const edited = await adminSaves(alex, '% admin: saved before the worker ran');
  await world.work();
  const failed = await world.core.actions.get(card.conversationId, card.id);
  expect(failed?.status).toBe('FAILED');
  expect(failed?.error).toMatch(/changed after this was proposed/);
  expect(await (await remote()).readFile(PATH)).toBe(edited);
}, 60_000);
