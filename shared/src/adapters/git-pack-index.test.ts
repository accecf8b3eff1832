import { execFile } from 'node:child_process';
import nodeFs from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import git from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitServer, startGitServer } from '../../../scripts/emulators/git-server';
import { capturingHttp, indexPack } from './git-pack-index';
import { openGitWorkspace } from './git-workspace';

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
let url: string;
let seed: string;
beforeAll(async () => {
  server = await startGitServer({});
  work = await mkdtemp(join(tmpdir(), 'pack-index-test-'));
  // Near-identical notes over three commits: the server's pack has deltas, some on deltas.
  url = await server.createBareRepo('notes');
  seed = join(work, 'seed');
  await cli(work, 'clone', '-q', url, seed);
  const para = 'Tenant reported the issue by text; vendor booked; follow up after the visit. '.repeat(6);
  for (let c = 0; c < 3; c++) {
    for (let i = 0; i < 40; i++) {
      await mkdir(join(seed, `areas/p-${i % 5}`), { recursive: true });
      await writeFile(join(seed, `areas/p-${i % 5}/note-${i}.md`), `# Note ${i} v${c}\n\n${para}\n`);
    }
    await writeFile(join(seed, 'MEMORY.md'), `# Memory\n\n- café, naïve (${c})\n`);
    await cli(seed, 'add', '-A');
    await cli(seed, 'commit', '-qm', `commit ${c}`);
  }
  await cli(seed, 'push', '-q', 'origin', 'HEAD:main');
});
afterAll(async () => {
  await server?.stop();
  await rm(work, { recursive: true, force: true });
});

async function packOf(dir: string) {
  const packDir = join(dir, '.git', 'objects', 'pack');
  const names = await readdir(packDir);
  const pack = names.find((n) => n.endsWith('.pack'));
  if (!pack) throw new Error(`no pack in ${packDir}`);
  return join(packDir, pack);
}

describe('the clone indexes its pack with node:zlib (memory cold start, #14)', () => {
  it('writes the same index, byte for byte, as `git index-pack` for the same pack', async () => {
    const dir = join(work, 'cli-clone');
    await cli(work, 'clone', '-q', '--depth', '20', url, dir);
    const pack = await readFile(await packOf(dir));
    const ours = indexPack(pack);
    const theirs = await readFile((await packOf(dir)).replace(/\.pack$/, '.idx'));
    expect(ours?.equals(theirs)).toBe(true);
  });

  it('a workspace cloned this way passes `git fsck`, and isomorphic-git reads, commits and pushes on it', async () => {
    const dir = join(work, 'ws');
    const ws = await openGitWorkspace({ dir, url, depth: 20 });
    expect((await readdir(join(dir, '.git', 'objects', 'pack'))).sort()).toHaveLength(2);
    await cli(dir, 'fsck', '--no-dangling');
    expect((await cli(dir, 'status', '--porcelain')).trim()).toBe('');
    expect(await ws.readFile('MEMORY.md')).toContain('naïve (2)');
    const head = await git.resolveRef({ fs: nodeFs, dir, ref: 'HEAD' });
    expect(head).toBe((await cli(seed, 'rev-parse', 'HEAD')).trim());
    await ws.writeFile('daily_notes/today.md', '# Today\n');
    await ws.commitAndPush({ conversationId: 'c_test', summary: 'a note' });
    await cli(seed, 'pull', '-q', 'origin', 'main');
    expect(await readFile(join(seed, 'daily_notes/today.md'), 'utf8')).toBe('# Today\n');
  });

  it('the upload-pack response is taken apart: the pack goes to `keep`, isomorphic-git gets an empty one', async () => {
    const dir = join(work, 'captured');
    const kept: Array<{ pack: Buffer; idx: Buffer }> = [];
    await git.clone({
      fs: nodeFs,
      http: capturingHttp(http, async (pack, idx) => {
        kept.push({ pack, idx });
        await writePackFiles(dir, pack, idx);
      }),
      dir,
      url,
      ref: 'main',
      singleBranch: true,
      noTags: true,
      depth: 20,
      noCheckout: true,
    });
    expect(kept).toHaveLength(1);
    // Only the kept pack is there (isomorphic-git wrote none of its own), and git finds it whole.
    expect(await readdir(join(dir, '.git', 'objects', 'pack'))).toHaveLength(2);
    await cli(dir, 'fsck', '--no-dangling');
    // The refs isomorphic-git wrote from the same response point at the kept pack's commit.
    const fetched = await git.resolveRef({ fs: nodeFs, dir, ref: 'refs/remotes/origin/main' });
    expect(fetched).toBe((await cli(seed, 'rev-parse', 'HEAD')).trim());
  });

  it('refuses a damaged or cut-short pack (the clone then indexes it the old way)', async () => {
    const dir = join(work, 'cli-clone');
    const pack = await readFile(await packOf(dir));
    const flipped = Buffer.from(pack);
    flipped[40] = (flipped[40] as number) ^ 0xff;
    expect(indexPack(flipped)).toBeUndefined();
    expect(indexPack(pack.subarray(0, pack.length - 30))).toBeUndefined();
  });
});

async function writePackFiles(dir: string, pack: Buffer, idx: Buffer) {
  const base = join(dir, '.git', 'objects', 'pack', `pack-${pack.subarray(-20).toString('hex')}`);
  await mkdir(join(dir, '.git', 'objects', 'pack'), { recursive: true });
  await writeFile(`${base}.pack`, pack);
  await writeFile(`${base}.idx`, idx);
}
