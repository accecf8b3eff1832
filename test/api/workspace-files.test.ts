import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type GitServer, startGitServer } from '../../scripts/emulators/git-server';
import { openGitWorkspace } from '../../shared/src/adapters/git-workspace';
import { conversationPolicy } from '../../shared/src/agent/policy-runtime';
import { EDITOR_TOOLS, rulebaseRefresher, savedRulebaseFiles } from '../../shared/src/agent/team-rulebase';
import { memoryHistoryResponseSchema } from '../../shared/src/contracts/memory';
import {
  tryPolicyResponse,
  workspaceFileResponse,
  workspaceFilesResponse,
} from '../../shared/src/contracts/workspace-files';
import { InMemoryFactStore, loadRulebases } from '../../shared/src/domain/policy';
import { MESSAGING_RULES } from '../../shared/src/domain/policy/defaults';
import { ADMIN, type ApiHarness, MEMBER, startApiHarness } from './harness';

/**
 * The workspace-files API and the admin policy editor on it (issue 12), through the public API against a real
 * git remote: per-path permissions, parse errors by line and column, "try it" on unsaved text, and a save
 * committed with the admin's name.
 */
let git: GitServer;
let dir: string;
let h: ApiHarness;
let admin: string;
let member: string;
let repoUrl: string;

beforeAll(async () => {
  git = await startGitServer();
  dir = await mkdtemp(join(tmpdir(), 'switchboard-api-files-'));
  const url = await git.createBareRepo('memory');
  repoUrl = url;
  h = await startApiHarness({ env: { MEMORY_GIT_URL: url, MEMORY_DIR: join(dir, 'work') } });
  admin = await h.token(ADMIN, { name: 'Alex Admin' });
  member = await h.token(MEMBER, { name: 'Sam Member' });
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await git?.stop();
  await rm(dir, { recursive: true, force: true });
});

const MESSAGING = 'policy/messaging.rules';

async function read(path: string, token: string) {
  const res = await h.call('GET', `/api/workspace/file?path=${encodeURIComponent(path)}`, { token });
  expect(res.status).toBe(200);
  return workspaceFileResponse.parse(await res.json());
}

test('every file is listed with what this person may do with it', async () => {
  const asMember = workspaceFilesResponse.parse(
    await (await h.call('GET', '/api/workspace/files', { token: member })).json(),
  );
  const asAdmin = workspaceFilesResponse.parse(
    await (await h.call('GET', '/api/workspace/files', { token: admin })).json(),
  );
  const policyM = asMember.files.find((f) => f.path === MESSAGING);
  const policyA = asAdmin.files.find((f) => f.path === MESSAGING);
  // Before the worker's first run the shipped defaults are what applies, so they are listed.
  expect(policyM).toMatchObject({ kind: 'policy', canRead: true, canWrite: false, canDelete: false });
  expect(policyA).toMatchObject({ kind: 'policy', canRead: true, canWrite: true });
  expect(asMember.files.find((f) => f.path === 'MEMORY.md')).toMatchObject({
    kind: 'memory',
    canWrite: true,
  });
  expect((await h.call('GET', '/api/workspace/files')).status).toBe(401);
});

test('a member cannot change the policy or try it; an admin can', async () => {
  const put = await h.call('PUT', '/api/workspace/file', {
    token: member,
    body: { path: MESSAGING, text: `${MESSAGING_RULES}\nautonomous send_message(_, _) when true.\n` },
  });
  expect(put.status).toBe(403);
  expect((await put.json()).error.message).toMatch(/Only admins/);
  const tryIt = await h.call('POST', '/api/admin/policy/try', {
    token: member,
    body: { path: MESSAGING, text: MESSAGING_RULES, query: 'known_contact(X)' },
  });
  expect(tryIt.status).toBe(403);
});

test('a parse error is reported by line and column, and nothing is saved', async () => {
  const broken = MESSAGING_RULES.replace(
    'known_contact(Phone) :- contact(Phone, _, _).',
    'known_contact(Phone) :- contact(Phone, _, _',
  );
  const line = broken.split('\n').findIndex((l) => l.startsWith('known_contact(Phone) :-')) + 1;
  const tried = tryPolicyResponse.parse(
    await (
      await h.call('POST', '/api/admin/policy/try', { token: admin, body: { path: MESSAGING, text: broken } })
    ).json(),
  );
  expect(tried.issues.length).toBeGreaterThan(0);
  expect(tried.issues[0]).toMatchObject({ file: MESSAGING });
  expect(tried.issues[0]?.line).toBeGreaterThanOrEqual(line);
  expect(tried.issues[0]?.column).toBeGreaterThan(0);

  const before = await read(MESSAGING, admin);
  const put = await h.call('PUT', '/api/workspace/file', {
    token: admin,
    body: { path: MESSAGING, text: broken, baseVersion: before.version },
  });
  expect(put.status).toBe(400);
  const body = await put.json();
  expect(body.error.code).toBe('rulebase_invalid');
  expect(body.error.details.issues[0]).toMatchObject({ file: MESSAGING });
  expect((await read(MESSAGING, admin)).text).toBe(before.text);
});

test('"try it" evaluates the edited, unsaved text: a query with its derivation and a call with its decision', async () => {
  const edited = `${MESSAGING_RULES}\nvip("+14155550111").\n`;
  const query = tryPolicyResponse.parse(
    await (
      await h.call('POST', '/api/admin/policy/try', {
        token: admin,
        body: { path: MESSAGING, text: edited, query: 'vip(X)' },
      })
    ).json(),
  );
  expect(query.issues).toEqual([]);
  expect(query.outcome).toMatchObject({ type: 'query', status: 'proved' });
  expect(query.outcome?.type === 'query' && query.outcome.answers[0]?.bindings).toEqual({
    X: '+14155550111',
  });

  const call = (facts: string[]) =>
    h.call('POST', '/api/admin/policy/try', {
      token: admin,
      body: {
        path: MESSAGING,
        text: edited,
        call: { tool: 'send_message', args: { to: '+14155550111', text: 'Hi' } },
        facts,
      },
    });
  const unknown = tryPolicyResponse.parse(await (await call([])).json());
  // Nothing is fetched in "try it": the contact lookup is reported as missing.
  expect(unknown.outcome).toMatchObject({ type: 'call', decision: 'deny' });
  expect(JSON.stringify(unknown.outcome)).toMatch(/search_contacts/);
  const known = tryPolicyResponse.parse(await (await call(['contact("+14155550111", "ct_1", true)'])).json());
  expect(known.outcome).toMatchObject({ type: 'call', decision: 'require_approval' });
  expect(known.outcome?.type === 'call' && known.outcome.why.join('\n')).toMatch(/known_contact/);
  // Not saved.
  expect((await read(MESSAGING, admin)).text).not.toContain('vip(');
});

test('a save is committed with the admin as the author; a stale editor gets a 409', async () => {
  const before = await read(MESSAGING, admin);
  const text = `${before.text}\n% Office line note added by Alex.\n`;
  const put = await h.call('PUT', '/api/workspace/file', {
    token: admin,
    body: { path: MESSAGING, text, baseVersion: before.version, message: 'note about the office line' },
  });
  expect(put.status).toBe(200);
  expect((await read(MESSAGING, member)).text).toBe(text);

  const history = memoryHistoryResponseSchema.parse(
    await (await h.call('GET', '/api/memory/history?limit=5', { token: member })).json(),
  );
  const commit = history.commits.find((c) => c.files.some((f) => f.path === MESSAGING));
  expect(commit?.author).toBe('Alex Admin');
  expect(commit?.message).toMatch(/note about the office line/);
  // The first edit of the shipped defaults saves all of them, so no other file's rules are dropped.
  expect(commit?.files.map((f) => f.path).sort()).toEqual([
    'policy/autonomy.rules',
    'policy/leads.rules',
    'policy/messaging.rules',
  ]);

  const stale = await h.call('PUT', '/api/workspace/file', {
    token: admin,
    body: { path: MESSAGING, text: `${text}x`, baseVersion: before.version },
  });
  expect(stale.status).toBe(409);
});

test('bad input is a clear 4xx', async () => {
  const cases: Array<[string, string, unknown]> = [
    ['GET', '/api/workspace/file?path=../etc/passwd', undefined],
    ['GET', '/api/workspace/file', undefined],
    ['PUT', '/api/workspace/file', { path: 'notes/a.exe', text: 'x' }],
    ['PUT', '/api/workspace/file', { path: 'MEMORY.md', text: 'x'.repeat(100_001) }],
    ['POST', '/api/admin/policy/try', { path: 'MEMORY.md', text: 'x', query: 'a' }],
    ['POST', '/api/admin/policy/try', { path: MESSAGING, text: MESSAGING_RULES, call: { tool: 'nope' } }],
  ];
  for (const [method, path, body] of cases) {
    const res = await h.call(method, path, { token: admin, ...(body !== undefined ? { body } : {}) });
    expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
    expect(res.status, `${method} ${path}`).toBeLessThan(500);
  }
  expect((await h.call('GET', '/api/workspace/file?path=nope.md', { token: admin })).status).toBe(404);
});

test('a saved edit governs a warm container within the refresh interval, without a cold start', async () => {
  const log = { debug() {}, info() {}, warn() {}, error() {} };
  const ws = await openGitWorkspace({ dir: join(dir, 'warm'), url: repoUrl });
  const refresher = rulebaseRefresher(ws, EDITOR_TOOLS, log, { sync: true });
  await refresher.prime();
  let now = Date.parse('2026-11-24T15:00:00Z');
  const clock = () => new Date(now);
  const policy = conversationPolicy({
    rulebase: loadRulebases((await savedRulebaseFiles(ws)).files, { tools: EDITOR_TOOLS }),
    facts: new InMemoryFactStore(),
    tools: EDITOR_TOOLS,
    timezone: 'America/New_York',
    settings: {},
    log,
    refresh: { load: refresher.load, everyMs: 60_000, clock },
  });
  const ctx = { conversationId: 'c_warm', runId: 'r', now: clock(), timezone: 'America/New_York' };
  const env = { now: clock(), timezone: 'America/New_York', callReadTool: async () => ({}) };
  const askVip = async () => {
    await policy.guard.check(
      { tool: 'list_files', kind: 'read', args: {}, origin: 'model', conversationId: 'c_warm' },
      env,
    );
    const ask = policy.tools.find((t) => t.name === 'ask_policy');
    return ask?.run({ query: 'vip(X)' }, ctx);
  };
  await expect(askVip()).rejects.toThrow(/vip/);

  const current = await read(MESSAGING, admin);
  const saved = await h.call('PUT', '/api/workspace/file', {
    token: admin,
    body: { path: MESSAGING, text: `${current.text}\nvip("+14155550111").\n`, baseVersion: current.version },
  });
  expect(saved.status).toBe(200);
  now += 30_000;
  await expect(askVip()).rejects.toThrow(/vip/);
  now += 31_000;
  expect(await askVip()).toMatchObject({ status: 'proved' });
});
