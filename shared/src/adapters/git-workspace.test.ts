import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitServer, startGitServer } from '../../../scripts/emulators/git-server';
import { WorkspacePathError } from '../domain/workspace-paths';
import { type GitWorkspace, type GitWorkspaceOptions, mergeText, openGitWorkspace } from './git-workspace';

const exec = promisify(execFile);
const TOKEN = 'memory-secret-token';

let server: GitServer;
let work: string;
let repoCount = 0;

beforeAll(async () => {
  server = await startGitServer({ token: TOKEN });
  work = await mkdtemp(join(tmpdir(), 'git-workspace-test-'));
});
afterAll(async () => {
  await server?.stop();
  await rm(work, { recursive: true, force: true });
});

/** A fresh empty remote and a factory for workers (separate clones) on it. */
async function freshRemote(overrides: Partial<GitWorkspaceOptions> = {}) {
  const name = `memory-${++repoCount}`;
  const url = await server.createBareRepo(name);
  let workers = 0;
  const open = (more: Partial<GitWorkspaceOptions> = {}) =>
    openGitWorkspace({
      dir: join(work, `${name}-worker-${++workers}`),
      url,
      token: TOKEN,
      teamName: 'Oak Properties',
      ...overrides,
      ...more,
    });
  /** Reads the remote with the git CLI, so assertions do not trust the code under test. */
  const remoteGit = async (...args: string[]) =>
    (await exec('git', ['--git-dir', join(server.root, `${name}.git`), ...args])).stdout;
  const remoteFile = (path: string) => remoteGit('show', `main:${path}`);
  return { name, url, open, remoteGit, remoteFile };
}

describe('GitWorkspace: clone, seed, commit, push, pull', () => {
  it('seeds an empty remote on first use and a second worker clones the seed', async () => {
    const remote = await freshRemote();
    const first = await remote.open();
    expect(first.openInfo?.action).toBe('seeded');
    const seeded = await remote.remoteGit('ls-tree', '-r', '--name-only', 'main');
    expect(seeded.split('\n')).toEqual(
      expect.arrayContaining([
        'MEMORY.md',
        'daily_notes/README.md',
        'areas/maintenance.md',
        'skills/triage-inbound-text/SKILL.md',
      ]),
    );
    expect(await remote.remoteFile('MEMORY.md')).toContain(
      'Oak Properties is a small property-management firm',
    );

    const second = await remote.open();
    expect(second.openInfo?.action).toBe('cloned');
    expect(await second.readFile('MEMORY.md')).toBe(await first.readFile('MEMORY.md'));
  });

  it('commits a turn with a summarising message as Switchboard and pushes it; another worker pulls it', async () => {
    const remote = await freshRemote();
    const a = await remote.open();
    const b = await remote.open();

    await a.editFile('MEMORY.md', '- (none yet)', '- Maria Lopez prefers texts after 5 pm.');
    await a.writeFile(
      'daily_notes/2025-03-04_heater.md',
      '# Heater at 12 Oak St\n- Lena booked for Thursday.\n',
    );
    const result = await a.commitAndPush({
      conversationId: 'conv_123',
      summary: 'remembered Maria prefers evenings',
    });

    expect(result.pushed).toBe(true);
    expect(result.attempts).toBe(1);
    expect(result.conflicts).toEqual([]);
    expect(result.changes).toEqual([
      { path: 'MEMORY.md', change: 'modified' },
      { path: 'daily_notes/2025-03-04_heater.md', change: 'added' },
    ]);
    expect(result.timings.totalMs).toBeGreaterThanOrEqual(0);
    const log = await remote.remoteGit('log', '-1', '--format=%an%n%B', 'main');
    expect(log).toContain('Switchboard');
    expect(log).toContain('memory: remembered Maria prefers evenings');
    expect(log).toContain('- added daily_notes/2025-03-04_heater.md');
    expect(log).toContain('Conversation: conv_123');
    expect(await remote.remoteFile('MEMORY.md')).toContain('Maria Lopez prefers texts after 5 pm.');

    const synced = await b.sync();
    expect(synced.outcome).toBe('fast-forward');
    expect(synced.head).toBe(result.commit);
    expect(await b.readFile('daily_notes/2025-03-04_heater.md')).toContain('Lena booked');
    expect((await b.status()).pending).toEqual([]);
    expect(await cliStatus(a.dir)).toBe('');
    expect(await cliStatus(b.dir)).toBe('');
  });

  it('does nothing (and no network) when a turn changed nothing, including rewriting identical content', async () => {
    const remote = await freshRemote();
    const a = await remote.open();
    await a.writeFile('MEMORY.md', await a.readFile('MEMORY.md'));
    const result = await a.commitAndPush({ conversationId: 'conv_noop' });
    expect(result.commit).toBeUndefined();
    expect(result.changes).toEqual([]);
    expect(result.attempts).toBe(0);
  });

  it('commits deletions', async () => {
    const remote = await freshRemote();
    const a = await remote.open();
    await a.deleteFile('areas/leasing.md');
    const result = await a.commitAndPush({ conversationId: 'conv_del' });
    expect(result.changes).toEqual([{ path: 'areas/leasing.md', change: 'deleted' }]);
    await expect(remote.remoteFile('areas/leasing.md')).rejects.toThrow();
    await expect(a.readFile('areas/leasing.md')).rejects.toThrow(/does not exist/);
  });

  it('reopening an existing copy pulls, and commits notes a crashed turn left on disk', async () => {
    const remote = await freshRemote();
    const a = await remote.open();
    await writeFile(join(a.dir, 'areas', 'crash.md'), 'written before the crash\n');
    const other = await remote.open();
    await other.writeFile('areas/other.md', 'from another worker\n');
    await other.commitAndPush({ conversationId: 'conv_other' });

    const reopened = await openGitWorkspace({ dir: a.dir, url: remote.url, token: TOKEN });
    expect(reopened.openInfo?.action).toBe('pulled');
    expect(await reopened.readFile('areas/other.md')).toBe('from another worker\n');
    const pushed = await reopened.commitAndPush({ conversationId: 'conv_after_crash' });
    expect(pushed.pushed).toBe(true);
    expect(await remote.remoteFile('areas/crash.md')).toBe('written before the crash\n');
  });

  it('a remote that lost its history (a fresh local emulator) gets it back from the next push', async () => {
    const remote = await freshRemote();
    const a = await remote.open();
    await a.writeFile('areas/kept.md', 'kept\n');
    await a.commitAndPush({ conversationId: 'conv_kept' });

    const fresh = await startGitServer({ token: TOKEN });
    try {
      const url = await fresh.createBareRepo('replacement');
      const reopened = await openGitWorkspace({ dir: a.dir, url, token: TOKEN });
      expect(reopened.openInfo?.action).toBe('pulled');
      expect((await reopened.status()).hasUnpushedCommits).toBe(true);
      const pushed = await reopened.commitAndPush({ conversationId: 'conv_restore' });
      expect(pushed.attempts).toBe(1);
      const { stdout } = await exec('git', [
        '--git-dir',
        join(fresh.root, 'replacement.git'),
        'show',
        'main:areas/kept.md',
      ]);
      expect(stdout).toBe('kept\n');
    } finally {
      await fresh.stop();
    }
  });

  it('refuses a wrong token with an auth error that never shows the token', async () => {
    const remote = await freshRemote();
    await remote.open();
    const error = await openGitWorkspace({
      dir: join(work, 'wrong-token'),
      url: remote.url,
      token: 'not-the-token',
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'memory_git_auth_failed', retryable: false });
    expect(String((error as Error).message)).not.toContain('not-the-token');
  });
});

describe('GitWorkspace: concurrent workers', () => {
  it('a rejected push is followed by fetch, merge and a successful retry (different files)', async () => {
    const remote = await freshRemote();
    const a = await remote.open();
    const b = await remote.open();
    await a.writeFile('areas/a.md', 'from A\n');
    await b.writeFile('areas/b.md', 'from B\n');

    const first = await a.commitAndPush({ conversationId: 'conv_a' });
    const second = await b.commitAndPush({ conversationId: 'conv_b' });
    expect(first.attempts).toBe(1);
    expect(second.attempts).toBe(2);
    expect(second.conflicts).toEqual([]);
    expect(second.timings.mergeMs).toBeGreaterThanOrEqual(0);
    expect(await remote.remoteFile('areas/a.md')).toBe('from A\n');
    expect(await remote.remoteFile('areas/b.md')).toBe('from B\n');
    const parents = await remote.remoteGit('log', '-1', '--format=%P', 'main');
    expect(parents.trim().split(' ')).toHaveLength(2);
    expect(await b.readFile('areas/a.md')).toBe('from A\n');
  });

  it('merges edits to different parts of the same file without conflict', async () => {
    const remote = await freshRemote();
    const a = await remote.open();
    const b = await remote.open();
    await a.editFile('areas/maintenance.md', '## Vendors', '## Vendors\n- Plumbing: Martinez Plumbing');
    await b.editFile('areas/maintenance.md', '## Routine', '## Routine\n- Entry needs 24 h notice.');
    await a.commitAndPush({ conversationId: 'conv_a' });
    const merged = await b.commitAndPush({ conversationId: 'conv_b' });
    expect(merged.conflicts).toEqual([]);
    const text = await remote.remoteFile('areas/maintenance.md');
    expect(text).toContain('- Plumbing: Martinez Plumbing');
    expect(text).toContain('- Entry needs 24 h notice.');
    expect(text).not.toContain('<<<<<<<');
  });

  it('a conflict on the same lines keeps both versions with markers and reports the file', async () => {
    const remote = await freshRemote();
    const a = await remote.open();
    const b = await remote.open();
    await a.editFile('MEMORY.md', '- (none yet)', '- Office closes at 5 pm.');
    await b.editFile('MEMORY.md', '- (none yet)', '- Office closes at 6 pm on Fridays.');
    await a.commitAndPush({ conversationId: 'conv_a' });
    const result = await b.commitAndPush({ conversationId: 'conv_b' });

    expect(result.pushed).toBe(true);
    expect(result.conflicts).toEqual(['MEMORY.md']);
    const text = await remote.remoteFile('MEMORY.md');
    expect(text).toMatch(
      /<<<<<<< ours[^\n]*\n- Office closes at 6 pm on Fridays\.\n=======\n- Office closes at 5 pm\.\n>>>>>>> theirs/,
    );
    expect(await b.readFile('MEMORY.md')).toBe(text);
    expect((await b.status()).conflicts).toEqual(['MEMORY.md']);

    // The agent resolves it next turn: the markers go, and so does the conflict.
    await b.writeFile(
      'MEMORY.md',
      text.replace(/<<<<<<<[\s\S]*>>>>>>>[^\n]*\n/, '- Office closes at 5 pm (6 pm on Fridays).\n'),
    );
    expect((await b.status()).conflicts).toEqual([]);
    await b.commitAndPush({ conversationId: 'conv_b2', summary: 'resolved conflict in MEMORY.md' });
    expect(await remote.remoteFile('MEMORY.md')).toContain('5 pm (6 pm on Fridays)');
  });

  it('a file deleted by one worker and changed by another is kept', async () => {
    const remote = await freshRemote();
    const a = await remote.open();
    const b = await remote.open();
    await a.deleteFile('areas/leasing.md');
    await b.editFile(
      'areas/leasing.md',
      '## Listings',
      '## Listings\n- 48 Elm Ave #3: $1,850, from April 1.',
    );
    await a.commitAndPush({ conversationId: 'conv_a' });
    await b.commitAndPush({ conversationId: 'conv_b' });
    expect(await remote.remoteFile('areas/leasing.md')).toContain('48 Elm Ave #3');
  });

  it('two workers writing at the same moment, same file and different files, lose nothing', async () => {
    const remote = await freshRemote();
    const a = await remote.open();
    const b = await remote.open();
    const rounds = 4;
    for (let round = 1; round <= rounds; round++) {
      await Promise.all([a.sync(), b.sync()]);
      // Same file, same place (appending at the end): both lines must survive, if need be inside markers.
      await a.writeFile(
        'daily_notes/shared.md',
        `${await readOr(a, 'daily_notes/shared.md')}A${round} fact\n`,
      );
      await b.writeFile(
        'daily_notes/shared.md',
        `${await readOr(b, 'daily_notes/shared.md')}B${round} fact\n`,
      );
      await a.writeFile(`areas/a-${round}.md`, `A round ${round}\n`);
      await b.writeFile(`areas/b-${round}.md`, `B round ${round}\n`);
      const results = await Promise.all([
        a.commitAndPush({ conversationId: `conv_a${round}` }),
        b.commitAndPush({ conversationId: `conv_b${round}` }),
      ]);
      expect(results.every((r) => r.pushed)).toBe(true);
    }
    const shared = await remote.remoteFile('daily_notes/shared.md');
    const files = await remote.remoteGit('ls-tree', '-r', '--name-only', 'main');
    for (let round = 1; round <= rounds; round++) {
      expect(shared).toContain(`A${round} fact`);
      expect(shared).toContain(`B${round} fact`);
      expect(files).toContain(`areas/a-${round}.md`);
      expect(files).toContain(`areas/b-${round}.md`);
    }
    // Both workers end on the remote head.
    await a.sync();
    await b.sync();
    const head = (await remote.remoteGit('rev-parse', 'main')).trim();
    expect((await a.status()).head).toBe(head);
    expect((await b.status()).head).toBe(head);
    expect(await cliStatus(a.dir)).toBe('');
    expect(await cliStatus(b.dir)).toBe('');
  });

  it('two workers seeding an empty remote at once end up on one seed', async () => {
    const remote = await freshRemote();
    const [a, b] = await Promise.all([remote.open(), remote.open()]);
    // Usually one push loses and that worker clones the other's seed. Seeds made in the same second are the
    // same commit (same files, author and time), so the second push is a no-op and both say "seeded" (seen
    // once in a whole-suite run): either way the remote holds exactly one seed commit.
    expect([
      ['cloned', 'seeded'],
      ['seeded', 'seeded'],
    ]).toContainEqual([a.openInfo?.action, b.openInfo?.action].sort());
    expect((await remote.remoteGit('rev-list', '--count', 'main')).trim()).toBe('1');
    const head = (await remote.remoteGit('rev-parse', 'main')).trim();
    expect((await a.status()).head).toBe(head);
    expect((await b.status()).head).toBe(head);
  });
});

describe('GitWorkspace: shallow clones and history', () => {
  it('clones shallow, still merges a concurrent push, and deepens to show history with diffs', async () => {
    const remote = await freshRemote();
    const writer = await remote.open();
    for (let i = 1; i <= 8; i++) {
      await writer.writeFile('areas/log.md', `${await readOr(writer, 'areas/log.md')}entry ${i}\n`);
      await writer.commitAndPush({ conversationId: `conv_${i}`, summary: `entry ${i}` });
    }
    const shallow = await remote.open({ depth: 2 });
    expect((await readFile(join(shallow.dir, '.git', 'shallow'), 'utf8')).trim()).not.toBe('');

    await writer.writeFile('areas/writer.md', 'writer\n');
    await writer.commitAndPush({ conversationId: 'conv_w' });
    await shallow.writeFile('areas/shallow.md', 'shallow\n');
    const merged = await shallow.commitAndPush({ conversationId: 'conv_s' });
    expect(merged.attempts).toBe(2);
    expect(await remote.remoteFile('areas/writer.md')).toBe('writer\n');
    expect(await remote.remoteFile('areas/shallow.md')).toBe('shallow\n');

    const history = await shallow.history(6);
    expect(history.map((c) => c.message.split('\n')[0])).toEqual([
      'memory: add areas/shallow.md',
      'memory: add areas/writer.md',
      'memory: entry 8',
      'memory: entry 7',
      'memory: entry 6',
      'memory: entry 5',
    ]);
    const entry5 = history[5];
    expect(entry5?.files).toHaveLength(1);
    expect(entry5?.files[0]).toMatchObject({
      path: 'areas/log.md',
      change: 'modified',
      patchTruncated: false,
    });
    expect(entry5?.files[0]?.patch).toContain('+entry 5');
    expect(entry5?.files[0]?.patch).toContain('--- a/areas/log.md');
    expect(history[0]?.committedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(history[0]?.author).toBe('Switchboard');
  });

  it('lists a conflict merge in history with the markers it produced, and skips clean merges', async () => {
    const remote = await freshRemote();
    const a = await remote.open();
    const b = await remote.open();
    await a.writeFile('areas/x.md', 'A\n');
    await b.writeFile('areas/y.md', 'B\n');
    await a.commitAndPush({ conversationId: 'conv_a' });
    await b.commitAndPush({ conversationId: 'conv_b' });
    await a.sync();
    await a.editFile('MEMORY.md', '- (none yet)', '- A says so');
    await b.editFile('MEMORY.md', '- (none yet)', '- B says so');
    await a.commitAndPush({ conversationId: 'conv_a2' });
    await b.commitAndPush({ conversationId: 'conv_b2' });

    const history = await b.history(10);
    const merges = history.filter((c) => c.merge);
    expect(merges).toHaveLength(1);
    expect(merges[0]?.files.map((f) => f.path)).toEqual(['MEMORY.md']);
    expect(merges[0]?.files[0]?.patch).toContain('+<<<<<<< ours');
    expect(history.some((c) => c.files.some((f) => f.path === 'areas/y.md' && f.change === 'added'))).toBe(
      true,
    );
  });
});

describe('GitWorkspace: sandbox', () => {
  let ws: GitWorkspace;
  beforeAll(async () => {
    ws = await (await freshRemote()).open();
  });

  it.each([
    ['../outside.md', 'parent_segment'],
    ['areas/../../outside.md', 'parent_segment'],
    ['/etc/passwd.txt', 'absolute'],
    ['.git/config', 'git_dir'],
    ['areas/.GIT/hooks.md', 'git_dir'],
    ['run.sh', 'bad_suffix'],
    ['notes\\evil.md', 'bad_character'],
    ['nul\u0000.md', 'bad_character'],
  ])('refuses %j (%s) for read, write and delete', async (path, problem) => {
    await expect(ws.writeFile(path, 'x')).rejects.toMatchObject({ problem });
    await expect(ws.readFile(path)).rejects.toMatchObject({ problem });
    await expect(ws.deleteFile(path)).rejects.toMatchObject({ problem });
  });

  it('refuses files over the size cap with a message saying what to do', async () => {
    const error = await ws.writeFile('areas/big.md', 'x'.repeat(100_001)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspacePathError);
    expect((error as Error).message).toMatch(/capped at 100000 bytes.*Split it/);
  });

  it('refuses symbolic links, including a linked folder on the way', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'outside-'));
    await writeFile(join(outside, 'secret.md'), 'secret');
    await symlink(join(outside, 'secret.md'), join(ws.dir, 'link.md'));
    await symlink(outside, join(ws.dir, 'linked'));
    await expect(ws.readFile('link.md')).rejects.toMatchObject({ problem: 'symlink' });
    await expect(ws.writeFile('link.md', 'overwrite')).rejects.toMatchObject({ problem: 'symlink' });
    await expect(ws.readFile('linked/secret.md')).rejects.toMatchObject({ problem: 'symlink' });
    await expect(ws.writeFile('linked/new.md', 'x')).rejects.toMatchObject({ problem: 'symlink' });
    await expect(ws.listFiles('linked')).rejects.toMatchObject({ problem: 'symlink' });
    expect((await ws.listFiles()).map((f) => f.path)).not.toContain('link.md');
    expect(await readFile(join(outside, 'secret.md'), 'utf8')).toBe('secret');
    await rm(join(ws.dir, 'link.md'));
    await rm(join(ws.dir, 'linked'));
    await rm(outside, { recursive: true, force: true });
  });

  it('allows .rules files only under policy/', async () => {
    await expect(ws.writeFile('policy/default.rules', 'allow(read).\n')).resolves.toMatchObject({
      created: true,
    });
    await expect(ws.writeFile('areas/x.rules', 'x')).rejects.toMatchObject({ problem: 'bad_suffix' });
  });

  it('reads, lists and searches', async () => {
    await ws.writeFile('areas/vendors.md', '# Vendors\n- Plumber: Bob Martinez\n- HVAC: Lena Fischer\n');
    expect(await ws.readFile('./areas//vendors.md')).toContain('Bob Martinez');
    await expect(ws.readFile('areas/nope.md')).rejects.toThrow(/does not exist/);
    await expect(ws.readFile('areas')).rejects.toMatchObject({ problem: 'bad_suffix' });
    await expect(ws.listFiles('MEMORY.md')).rejects.toMatchObject({ problem: 'not_a_folder' });
    await expect(ws.listFiles('nowhere')).rejects.toThrow(/does not exist/);
    const listed = await ws.listFiles('areas');
    expect(listed.map((f) => f.path)).toContain('areas/vendors.md');
    expect(listed.every((f) => f.path.startsWith('areas/'))).toBe(true);
    const found = await ws.searchFiles('bob MARTINEZ');
    expect(found.hits).toEqual([{ path: 'areas/vendors.md', line: 2, text: '- Plumber: Bob Martinez' }]);
    const capped = await ws.searchFiles('e', { maxResults: 3 });
    expect(capped.hits).toHaveLength(3);
    expect(capped.truncated).toBe(true);
  });

  it('edit_file replaces exactly one occurrence and refuses absent or ambiguous text', async () => {
    await ws.writeFile('areas/edit.md', 'one two one\nprice $5\n');
    await expect(ws.editFile('areas/edit.md', 'three', 'x')).rejects.toThrow(
      /was not found in "areas\/edit.md"/,
    );
    await expect(ws.editFile('areas/edit.md', 'one', 'x')).rejects.toThrow(/appears 2 times/);
    await ws.editFile('areas/edit.md', 'price $5', 'price $$& $6');
    expect(await ws.readFile('areas/edit.md')).toBe('one two one\nprice $$& $6\n');
  });
});

describe('mergeText', () => {
  const labels = { ours: 'ours', theirs: 'theirs' };
  it('merges separate changes cleanly and treats identical changes as agreement', () => {
    expect(mergeText('a\nb\nc\n', 'A\nb\nc\n', 'a\nb\nC\n', labels)).toEqual({
      text: 'A\nb\nC\n',
      conflict: false,
    });
    expect(mergeText('a\n', 'b\n', 'b\n', labels)).toEqual({ text: 'b\n', conflict: false });
  });
  it('keeps both sides of an add/add conflict', () => {
    expect(mergeText('', 'mine\n', 'yours\n', labels)).toEqual({
      text: '<<<<<<< ours\nmine\n=======\nyours\n>>>>>>> theirs\n',
      conflict: true,
    });
  });
});

/** The git CLI's view of a working copy: empty when files, index and HEAD agree. */
async function cliStatus(dir: string): Promise<string> {
  return (await exec('git', ['-C', dir, 'status', '--porcelain'])).stdout;
}

async function readOr(ws: GitWorkspace, path: string): Promise<string> {
  return ws.readFile(path).catch(() => '');
}
