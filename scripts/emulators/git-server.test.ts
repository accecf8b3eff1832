import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitServer, startGitServer } from './git-server';

const exec = promisify(execFile);
const TOKEN = 'test-token-123';

/** Runs the git CLI with no user or system configuration, as a fresh machine would. */
async function git(cwd: string, ...args: string[]) {
  const env = {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  };
  return exec('git', args, { cwd, env });
}

function withToken(url: string, user = 'x-access-token', password = TOKEN) {
  const u = new URL(url);
  u.username = user;
  u.password = password;
  return u.toString();
}

describe('git server emulator', () => {
  let server: GitServer;
  let work: string;

  beforeAll(async () => {
    server = await startGitServer({ token: TOKEN });
    work = await mkdtemp(join(tmpdir(), 'git-server-test-'));
  });
  afterAll(async () => {
    await server?.stop();
    await rm(work, { recursive: true, force: true });
  });

  it('keeps pushes: a second clone sees what the first pushed', async () => {
    const url = await server.createBareRepo('kept');
    await git(work, 'clone', '-q', withToken(url), 'a');
    const a = join(work, 'a');
    await writeFile(join(a, 'MEMORY.md'), 'hello\n');
    await git(a, 'add', '.');
    await git(a, 'commit', '-qm', 'first');
    await git(a, 'push', '-q', 'origin', 'HEAD:main');

    await git(work, 'clone', '-q', withToken(url), 'b');
    expect(await readFile(join(work, 'b', 'MEMORY.md'), 'utf8')).toBe('hello\n');
  });

  it('refuses requests without the token with 401', async () => {
    const url = server.repoUrl('kept');
    const anonymous = await fetch(`${url}/info/refs?service=git-upload-pack`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('Basic');

    const bearer = await fetch(`${url}/info/refs?service=git-upload-pack`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(bearer.status).toBe(200);
    expect(await bearer.text()).toContain('refs/heads/main');

    await expect(
      git(work, 'clone', '-q', withToken(url, 'x-access-token', 'wrong'), 'denied'),
    ).rejects.toThrow(/Authentication failed|401|could not read/i);
  });

  it('rejects a non-fast-forward push, even a forced one', async () => {
    const url = await server.createBareRepo('nff');
    await git(work, 'clone', '-q', withToken(url), 'n1');
    const n1 = join(work, 'n1');
    await writeFile(join(n1, 'a.md'), 'base\n');
    await git(n1, 'add', '.');
    await git(n1, 'commit', '-qm', 'base');
    await git(n1, 'push', '-q', 'origin', 'HEAD:main');

    await git(work, 'clone', '-q', withToken(url), 'n2');
    const n2 = join(work, 'n2');
    await writeFile(join(n2, 'a.md'), 'from n2\n');
    await git(n2, 'commit', '-qam', 'n2');
    await git(n2, 'push', '-q', 'origin', 'HEAD:main');

    await writeFile(join(n1, 'a.md'), 'from n1\n');
    await git(n1, 'commit', '-qam', 'n1');
    await expect(git(n1, 'push', '-q', 'origin', 'HEAD:main')).rejects.toThrow(/rejected|fetch first/);
    await expect(git(n1, 'push', '-q', '--force', 'origin', 'HEAD:main')).rejects.toThrow(
      /non-fast-forward|denied/,
    );

    const { stdout } = await git(n2, 'log', '--format=%s', 'origin/main');
    expect(stdout.trim().split('\n')).toEqual(['n2', 'base']);
  });

  it('refuses bad repository names', async () => {
    await expect(server.createBareRepo('../escape')).rejects.toThrow(/Invalid repository name/);
  });
});
