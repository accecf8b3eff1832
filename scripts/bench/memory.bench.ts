import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { openGitWorkspace } from '../../shared/src/adapters/git-workspace';
import { startGitServer } from '../emulators/git-server';
import { type BenchRow, percentile } from './types';

/**
 * Memory sync cost per agent turn (SPEC §3.5): pull + write two notes + commit + push, on a workspace of
 * 1,000 files, against the local git server. The baseline is the same turn done with the git CLI in the same
 * run, on the same remote: the two take turns, so each pull brings in the other's last commit (a real
 * fast-forward, as with two workers) and machine noise hits both alike.
 */

const exec = promisify(execFile);
const FILES = 1_000;
const TOKEN = 'bench-token';
const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

async function git(cwd: string, ...args: string[]) {
  await exec('git', args, { cwd, env: gitEnv, maxBuffer: 16 * 1024 * 1024 });
}

function authedUrl(url: string): string {
  const u = new URL(url);
  u.username = 'x-access-token';
  u.password = TOKEN;
  return u.toString();
}

/** 1,000 notes of a few hundred bytes, laid out like a real workspace. */
async function populate(dir: string): Promise<void> {
  const paragraph = 'Tenant reported the issue by text; vendor booked; follow up after the visit. '.repeat(5);
  await writeFile(join(dir, 'MEMORY.md'), '# Memory\n\n## Facts\n');
  for (let i = 1; i < FILES; i++) {
    const folder =
      i % 4 === 0
        ? `areas/property-${i % 40}`
        : i % 25 === 0
          ? `skills/skill-${i}`
          : `daily_notes/${2020 + (i % 5)}`;
    const name = folder.startsWith('skills') ? 'SKILL.md' : `note-${i}.md`;
    await mkdir(join(dir, folder), { recursive: true });
    await writeFile(join(dir, folder, name), `# Note ${i}\n\n${paragraph}\n`);
  }
}

const elapsed = (start: number) => performance.now() - start;

/**
 * Cold starts as a new container has them: each into a folder that does not exist yet, nothing cached
 * anywhere (no pack kept in /tmp between opens). Rounds alternate which side goes first, so a burst of
 * load on this shared machine hits both alike; the figure is the median, with each round's ratio.
 */
async function coldStarts(work: string, url: string) {
  const rounds = Number(process.env.BENCH_MEMORY_COLD_ROUNDS ?? 7);
  const iso: number[] = [];
  const cli: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const timeIso = async () => {
      const start = performance.now();
      await openGitWorkspace({ dir: join(work, `cold-iso-${r}`), url, token: TOKEN, depth: 20 });
      return elapsed(start);
    };
    const timeCli = async () => {
      const start = performance.now();
      await git(work, 'clone', '-q', '--depth', '20', authedUrl(url), join(work, `cold-cli-${r}`));
      return elapsed(start);
    };
    let isoMs: number;
    let cliMs: number;
    if (r % 2 === 0) {
      isoMs = await timeIso();
      cliMs = await timeCli();
    } else {
      cliMs = await timeCli();
      isoMs = await timeIso();
    }
    iso.push(isoMs);
    cli.push(cliMs);
    ratios.push(isoMs / cliMs);
    await rm(join(work, `cold-iso-${r}`), { recursive: true, force: true });
    await rm(join(work, `cold-cli-${r}`), { recursive: true, force: true });
  }
  return { iso, cli, ratios };
}

export async function run(): Promise<BenchRow[]> {
  const turns = Number(process.env.BENCH_MEMORY_TURNS ?? 30);
  const warmup = 3;
  const server = await startGitServer({ token: TOKEN });
  const work = await mkdtemp(join(tmpdir(), 'memory-bench-'));
  try {
    const url = await server.createBareRepo('bench');
    const seedDir = join(work, 'seed');
    await git(work, 'clone', '-q', authedUrl(url), seedDir);
    await populate(seedDir);
    await git(seedDir, 'add', '-A');
    await git(seedDir, 'commit', '-qm', 'seed 1,000 notes');
    await git(seedDir, 'push', '-q', 'origin', 'HEAD:main');

    const cold = await coldStarts(work, url);
    const workspace = await openGitWorkspace({ dir: join(work, 'iso'), url, token: TOKEN, depth: 20 });
    const cliDir = join(work, 'cli');
    await git(work, 'clone', '-q', '--depth', '20', authedUrl(url), cliDir);
    let start: number;

    const iso: number[] = [];
    const cli: number[] = [];
    const isoSync: number[] = [];
    for (let turn = 1; turn <= turns + warmup; turn++) {
      const note = `daily_notes/turn-${turn}.md`;

      start = performance.now();
      const synced = await workspace.sync();
      const memory = await workspace.readFile('MEMORY.md');
      await workspace.writeFile('MEMORY.md', `${memory}- fact from isomorphic-git turn ${turn}\n`);
      await workspace.writeFile(`iso-${note}`, `# Turn ${turn}\n- something learned\n`);
      await workspace.commitAndPush({ conversationId: `bench_${turn}`, summary: `bench turn ${turn}` });
      const isoMs = elapsed(start);

      start = performance.now();
      await git(cliDir, 'pull', '-q', '--ff-only', 'origin', 'main');
      const cliMemory = await readFile(join(cliDir, 'MEMORY.md'), 'utf8');
      await writeFile(join(cliDir, 'MEMORY.md'), `${cliMemory}- fact from git CLI turn ${turn}\n`);
      await mkdir(join(cliDir, 'cli-daily_notes'), { recursive: true });
      await writeFile(join(cliDir, `cli-${note}`), `# Turn ${turn}\n- something learned\n`);
      await git(cliDir, 'add', '-A');
      await git(cliDir, 'commit', '-qm', `bench turn ${turn}`);
      await git(cliDir, 'push', '-q', 'origin', 'HEAD:main');
      const cliMs = elapsed(start);

      if (turn > warmup) {
        iso.push(isoMs);
        cli.push(cliMs);
        isoSync.push(synced.ms);
      }
    }

    const row = (name: string, value: number, baseline: number, target?: string): BenchRow => ({
      name,
      value: round(value),
      unit: 'ms',
      baseline: round(baseline),
      ratio: round(value / baseline, 2),
      ...(target ? { target } : {}),
    });
    return [
      row(
        'memory turn p50 (pull + commit + push, 1,000 files) vs git CLI',
        percentile(iso, 50),
        percentile(cli, 50),
      ),
      row(
        'memory turn p95 (pull + commit + push, 1,000 files) vs git CLI',
        percentile(iso, 95),
        percentile(cli, 95),
      ),
      {
        name: 'memory sync p50 (fetch + fast-forward) within the turn',
        value: round(percentile(isoSync, 50)),
        unit: 'ms',
      },
      row(
        `memory cold start p50 of ${cold.iso.length} (shallow clone depth 20, 1,000 files, new folder) vs git CLI`,
        percentile(cold.iso, 50),
        percentile(cold.cli, 50),
        '≤ 1.5×',
      ),
      row('memory cold start, fastest of each', Math.min(...cold.iso), Math.min(...cold.cli), '≤ 1.5×'),
      {
        name: 'memory cold start, per-round ratios (spread)',
        value: round(Math.min(...cold.ratios), 2),
        unit: `× min; max ${round(Math.max(...cold.ratios), 2)}×`,
      },
    ];
  } finally {
    await server.stop();
    await rm(work, { recursive: true, force: true });
  }
}

function round(n: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run()
    .then((rows) => console.table(rows))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
