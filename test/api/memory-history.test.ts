import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type GitServer, startGitServer } from '../../scripts/emulators/git-server';
import { memoryHistoryResponseSchema } from '../../shared/src/contracts/memory';
import { type ApiHarness, MEMBER, startApiHarness } from './harness';

let git: GitServer;
let dir: string;
let h: ApiHarness;
let without: ApiHarness;

beforeAll(async () => {
  git = await startGitServer();
  dir = await mkdtemp(join(tmpdir(), 'switchboard-api-memory-'));
  const url = await git.createBareRepo('memory');
  h = await startApiHarness({ env: { MEMORY_GIT_URL: url, MEMORY_DIR: join(dir, 'work') } });
  without = await startApiHarness();
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await without?.stop();
  await git?.stop();
  await rm(dir, { recursive: true, force: true });
});

test('GET /api/memory/history lists the workspace commits with their changes', async () => {
  const res = await h.call('GET', '/api/memory/history?limit=5', { token: await h.token(MEMBER) });
  expect(res.status).toBe(200);
  const body = memoryHistoryResponseSchema.parse(await res.json());
  // Opening an empty remote seeds it, so there is at least the seed commit with MEMORY.md.
  expect(body.commits.length).toBeGreaterThanOrEqual(1);
  expect(body.commits.flatMap((c) => c.files.map((f) => f.path))).toContain('MEMORY.md');
});

test('a bad query is a 400 and a deployment without a memory workspace says so', async () => {
  const token = await h.token(MEMBER);
  expect((await h.call('GET', '/api/memory/history?limit=500', { token })).status).toBe(400);
  const res = await without.call('GET', '/api/memory/history', { token: await without.token(MEMBER) });
  expect(res.status).toBe(404);
  expect((await res.json()).error.message).toMatch(/no memory workspace/);
});
