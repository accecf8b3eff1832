import { execFile } from 'node:child_process';
import nodeFs from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import git from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitServer, startGitServer } from '../../../scripts/emulators/git-server';
import { applyDelta, checkoutFromPack } from './git-pack-checkout';

const exec = promisify(execFile);
const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'T',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 'T',
  GIT_COMMITTER_EMAIL: 't@example.com',
};
const cli = async (cwd: string, ...args: string[]) => (await exec('git', args, { cwd, env: gitEnv })).stdout;

let server: GitServer;
let work: string;
beforeAll(async () => {
  server = await startGitServer({});
  work = await mkdtemp(join(tmpdir(), 'pack-checkout-test-'));
});
afterAll(async () => {
  await server?.stop();
  await rm(work, { recursive: true, force: true });
});

/** A remote whose pack has delta chains (near-identical notes), two commits deep, one executable file. */
async function remoteWithNotes() {
  const url = await server.createBareRepo('notes');
  const seed = join(work, 'seed');
  await cli(work, 'clone', '-q', url, seed);
  const para = 'Tenant reported the issue by text; vendor booked; follow up after the visit. '.repeat(6);
  for (let i = 0; i < 60; i++) {
    await mkdir(join(seed, `areas/p-${i % 7}`), { recursive: true });
    await writeFile(join(seed, `areas/p-${i % 7}/note-${i}.md`), `# Note ${i}\n\n${para}\n`);
  }
  await writeFile(join(seed, 'MEMORY.md'), '# Memory\n\n- café, naïve: UTF-8 names and text\n');
  await writeFile(join(seed, 'run.sh'), '#!/bin/sh\necho hi\n');
  await chmod(join(seed, 'run.sh'), 0o755);
  await cli(seed, 'add', '-A');
  await cli(seed, 'commit', '-qm', 'one');
  await writeFile(join(seed, 'areas/p-1/note-1.md'), `# Note 1, edited\n\n${para}\nmore\n`);
  await cli(seed, 'commit', '-qam', 'two');
  await cli(seed, 'push', '-q', 'origin', 'HEAD:main');
  return { url, seed };
}

describe('checkout from the pack (memory cold start, #14)', () => {
  it('writes the same files as the git CLI, with an index the CLI reads as clean', async () => {
    const { url, seed } = await remoteWithNotes();
    const dir = join(work, 'fast');
    await git.clone({
      fs: nodeFs,
      http,
      dir,
      url,
      ref: 'main',
      singleBranch: true,
      depth: 20,
      noCheckout: true,
    });
    const head = await git.resolveRef({ fs: nodeFs, dir, ref: 'refs/heads/main' });
    const packs = await cli(dir, 'verify-pack', '-v', ...(await packPaths(dir)));
    expect(packs, 'the remote sent deltas, so delta resolution is exercised').toMatch(/chain length = [1-9]/);

    expect(await checkoutFromPack(dir, head)).toBe(true);

    expect(await cli(dir, 'status', '--porcelain')).toBe('');
    const files = (await cli(seed, 'ls-files')).trim().split('\n');
    expect(files).toHaveLength(62);
    for (const f of files)
      expect(await readFile(join(dir, f), 'utf8')).toBe(await readFile(join(seed, f), 'utf8'));
    expect((await stat(join(dir, 'run.sh'))).mode & 0o111).not.toBe(0);
    // isomorphic-git reads the same index: nothing modified, nothing staged.
    const matrix = await git.statusMatrix({ fs: nodeFs, dir });
    expect(matrix.filter(([, h, w, s]) => !(h === 1 && w === 1 && s === 1))).toEqual([]);
  });

  it('declines (the caller falls back to isomorphic-git) when the commit is not in the pack', async () => {
    const dir = join(work, 'fast');
    expect(await checkoutFromPack(dir, '0'.repeat(40))).toBe(false);
    expect(await checkoutFromPack(join(work, 'no-such-clone'), '0'.repeat(40))).toBe(false);
  });

  it('applies copy and insert instructions, and refuses a delta for another base', () => {
    const base = Buffer.from('hello, world');
    // source size 12, target size 11; copy offset 7 size 5 ("world"), insert 6 bytes ", hell"
    const delta = Buffer.from([12, 11, 0x91, 7, 5, 6, ...Buffer.from(', hell')]);
    expect(applyDelta(base, delta).toString()).toBe('world, hell');
    expect(() => applyDelta(Buffer.from('short'), delta)).toThrow(/size/);
  });
});

async function packPaths(dir: string) {
  const packDir = join(dir, '.git/objects/pack');
  return (await nodeFs.promises.readdir(packDir))
    .filter((f) => f.endsWith('.idx'))
    .map((f) => join(packDir, f));
}
