import { randomUUID } from 'node:crypto';
import nodeFs, { type Stats } from 'node:fs';
import {
  lstat,
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  rmdir,
  symlink,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import git, { type ReadCommitResult, type WalkerEntry } from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import { diff3Merge } from 'node-diff3';
import { z } from 'zod';
import type { Config } from '../config';
import type { MemoryCommit, MemoryFileChange } from '../contracts/memory';
import { memorySeedFiles, type SeedFile } from '../domain/memory-seed';
import {
  assertNoSymlinks,
  assertWorkspaceFileSize,
  normalizeWorkspacePath,
  WorkspacePathError,
} from '../domain/workspace-paths';
import {
  AppError,
  ConfigError,
  describeZodIssues,
  NotFoundError,
  UpstreamError,
  ValidationError,
} from '../errors';
import type {
  ChangeKind,
  CommitResult,
  SearchOptions,
  SearchResult,
  SyncResult,
  TurnSummary,
  Workspace,
  WorkspaceChange,
  WorkspaceFile,
  WorkspaceStatus,
  WriteResult,
} from '../ports/workspace';
import { checkoutFromPack } from './git-pack-checkout';
import { capturingHttp, type PackObjects } from './git-pack-index';

/**
 * The memory workspace as a git working copy, synced with isomorphic-git (pure JS: Lambda has no git binary).
 *
 * Primary course: at cold start clone (shallow) or pull into a writable temp folder and seed an empty remote;
 * each turn `sync()`s, reads and writes files on disk, then `commitAndPush()`es one commit. A push refused
 * because another worker got there first is followed by fetch → merge → push again, a bounded number of times.
 *
 * Merges are computed here from the three trees rather than by `git.merge`, which aborts on
 * modify/delete and on multiple merge bases: the rule is that no write is ever dropped, so a file both sides
 * changed keeps both versions between conflict markers (reported in `conflicts`), and a file one side deleted
 * while the other changed it is kept.
 */

export interface WorkspaceLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

export const gitWorkspaceSettingsSchema = z.object({
  dir: z.string().min(1),
  url: z.string().url(),
  token: z.string().min(1).optional(),
  branch: z
    .string()
    .regex(/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/)
    .default('main'),
  /** Clone depth: enough history for the merge base and the PWA's history view, without the whole past. */
  depth: z.number().int().positive().default(20),
  maxPushAttempts: z.number().int().min(1).max(20).default(6),
  authorName: z.string().min(1).default('Switchboard'),
  authorEmail: z.string().min(3).default('switchboard@users.noreply.invalid'),
  teamName: z.string().default('Switchboard team'),
  timezone: z.string().default('America/New_York'),
});

export type GitWorkspaceOptions = z.input<typeof gitWorkspaceSettingsSchema> & {
  logger?: WorkspaceLogger;
  now?: () => Date;
  /** Overrides the default seed (shared/src/domain/memory-seed.ts). */
  seedFiles?: SeedFile[];
};

type Settings = z.infer<typeof gitWorkspaceSettingsSchema>;

export interface OpenInfo {
  /** cloned: fresh copy; pulled: existing copy brought up to date; seeded: we wrote the first commit. */
  action: 'cloned' | 'pulled' | 'seeded';
  ms: number;
  conflicts: string[];
}

const turnSummarySchema = z.object({
  conversationId: z.string().min(1).max(200),
  summary: z.string().max(2_000).optional(),
  author: z.object({ name: z.string().min(1).max(200), email: z.string().min(3).max(320) }).optional(),
});

/** Maps the environment (shared/src/config.ts) to workspace settings; the memory feature needs a remote. */
export function gitWorkspaceOptionsFromConfig(
  config: Pick<Config, 'MEMORY_GIT_URL' | 'MEMORY_GIT_TOKEN' | 'MEMORY_DIR' | 'TEAM_NAME' | 'TEAM_TIMEZONE'>,
): GitWorkspaceOptions {
  if (!config.MEMORY_GIT_URL) {
    throw new ConfigError('Invalid configuration: MEMORY_GIT_URL is required for the memory workspace');
  }
  return {
    dir: config.MEMORY_DIR,
    url: config.MEMORY_GIT_URL,
    token: config.MEMORY_GIT_TOKEN,
    teamName: config.TEAM_NAME,
    timezone: config.TEAM_TIMEZONE,
  };
}

/** Creates the workspace and brings it up to date (clone or pull, seed when the remote is empty). */
export async function openGitWorkspace(options: GitWorkspaceOptions): Promise<GitWorkspace> {
  const workspace = new GitWorkspace(options);
  await workspace.open();
  return workspace;
}

const SEARCH_DEFAULT_RESULTS = 50;
const SEARCH_MAX_RESULTS = 200;
const SEARCH_LINE_CHARS = 200;
const PATCH_MAX_CHARS = 6_000;
const HISTORY_MAX = 50;
const SYMLINK_MODE = 0o120000;

interface Entry {
  oid: string;
  mode: number;
}
type FlatTree = Map<string, Entry>;
interface TreeChange {
  path: string;
  from?: Entry;
  to?: Entry;
}
interface Integration {
  outcome: SyncResult['outcome'];
  conflicts: string[];
}

export class GitWorkspace implements Workspace {
  private readonly settings: Settings;
  private readonly logger?: WorkspaceLogger;
  private readonly now: () => Date;
  private readonly seedFiles: SeedFile[];
  /** isomorphic-git's parsed-object cache; reset when the folder moves (its keys are file paths). */
  private cache: object = {};
  /** Paths written or deleted since the last commit: committing stages only these, not a full scan. */
  private readonly touched = new Set<string>();
  /** Paths a merge left with conflict markers, until a write removes the markers. */
  private readonly conflicted = new Set<string>();
  /** Serialises git operations and writes: one worker process may run turns concurrently. */
  private queue: Promise<unknown> = Promise.resolve();
  private emptyTree?: string;
  openInfo?: OpenInfo;

  constructor(options: GitWorkspaceOptions) {
    const { logger, now, seedFiles, ...settings } = options;
    this.settings = gitWorkspaceSettingsSchema.parse(settings);
    this.logger = logger;
    this.now = now ?? (() => new Date());
    this.seedFiles =
      seedFiles ?? memorySeedFiles({ teamName: this.settings.teamName, timezone: this.settings.timezone });
  }

  get dir(): string {
    return this.settings.dir;
  }

  open(): Promise<OpenInfo> {
    return this.exclusive(async () => {
      const started = performance.now();
      let action: OpenInfo['action'];
      let conflicts: string[] = [];
      if (await exists(join(this.dir, '.git'))) {
        await this.ensureRemoteUrl();
        await this.adoptUncommittedChanges();
        await this.commitPending({
          conversationId: 'recovery',
          summary: 'notes left uncommitted by an earlier run',
        });
        conflicts = (await this.integrate(await this.fetchRemote())).conflicts;
        action = 'pulled';
      } else {
        await this.cloneFresh();
        action = 'cloned';
      }
      if (!(await this.resolve(this.localRef))) {
        action = await this.seed();
      }
      const info: OpenInfo = { action, ms: Math.round(performance.now() - started), conflicts };
      this.openInfo = info;
      this.logger?.info('memory.open', { ...info, remote: redactUrl(this.settings.url) });
      return info;
    });
  }

  async readFile(input: string): Promise<string> {
    const path = normalizeWorkspacePath(input);
    await this.assertNoLinks(path);
    const st = await lstatOrNull(this.abs(path));
    if (!st) throw missingFile(path);
    if (!st.isFile()) throw notAFile(path);
    return readFile(this.abs(path), 'utf8');
  }

  writeFile(input: string, content: string): Promise<WriteResult> {
    return this.exclusive(() => this.writeUnlocked(normalizeWorkspacePath(input), content));
  }

  editFile(input: string, oldText: string, newText: string): Promise<WriteResult> {
    return this.exclusive(async () => {
      const path = normalizeWorkspacePath(input);
      if (oldText === '') {
        throw new ValidationError(
          'The text to replace is empty; copy the exact text to change from the file.',
        );
      }
      const current = await this.readFile(path);
      const at = current.indexOf(oldText);
      if (at < 0) {
        throw new ValidationError(
          `The text to replace was not found in "${path}". Read the file and copy the exact text, including spaces and line breaks.`,
          { path },
        );
      }
      const count = countOccurrences(current, oldText);
      if (count > 1) {
        throw new ValidationError(
          `The text to replace appears ${count} times in "${path}"; include more of the surrounding text so it matches exactly once.`,
          { path, count },
        );
      }
      // Slicing rather than String.replace, whose replacement string treats `$&` and friends specially.
      const next = current.slice(0, at) + newText + current.slice(at + oldText.length);
      return this.writeUnlocked(path, next);
    });
  }

  deleteFile(input: string): Promise<void> {
    return this.exclusive(async () => {
      const path = normalizeWorkspacePath(input);
      await this.assertNoLinks(path);
      const st = await lstatOrNull(this.abs(path));
      if (!st) throw missingFile(path);
      if (!st.isFile()) throw notAFile(path);
      await unlink(this.abs(path));
      await this.pruneEmptyFolders(dirname(path));
      this.touched.add(path);
      this.conflicted.delete(path);
    });
  }

  async listFiles(dirInput = ''): Promise<WorkspaceFile[]> {
    const dir = normalizeWorkspacePath(dirInput, 'dir');
    if (dir) {
      await this.assertNoLinks(dir);
      const st = await lstatOrNull(this.abs(dir));
      if (!st)
        throw new NotFoundError(
          `The folder "${dir}" does not exist; list_files with no folder shows everything.`,
        );
      if (!st.isDirectory())
        throw new WorkspacePathError('not_a_folder', dir, `"${dir}" is a file, not a folder; use read_file.`);
    }
    const files: WorkspaceFile[] = [];
    const visit = async (rel: string) => {
      for (const entry of await readdir(this.abs(rel), { withFileTypes: true })) {
        const path = rel ? `${rel}/${entry.name}` : entry.name;
        if (entry.isDirectory()) {
          if (entry.name !== '.git') await visit(path);
        } else if (entry.isFile() && isToolPath(path)) {
          const st = await lstat(this.abs(path));
          files.push({ path, bytes: st.size });
        }
      }
    };
    await visit(dir);
    return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async searchFiles(query: string, opts: SearchOptions = {}): Promise<SearchResult> {
    const needle = query.trim().toLowerCase();
    if (!needle) throw new ValidationError('The search text is empty; give a word or phrase to look for.');
    const max = Math.min(Math.max(opts.maxResults ?? SEARCH_DEFAULT_RESULTS, 1), SEARCH_MAX_RESULTS);
    const files = await this.listFiles(opts.dir ?? '');
    const hits: SearchResult['hits'] = [];
    let filesSearched = 0;
    for (const file of files) {
      filesSearched++;
      const lines = (await readFile(this.abs(file.path), 'utf8')).split('\n');
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i] as string;
        if (!line.toLowerCase().includes(needle)) continue;
        if (hits.length === max) return { hits, truncated: true, filesSearched };
        hits.push({ path: file.path, line: i + 1, text: clip(line.trim(), SEARCH_LINE_CHARS) });
      }
    }
    return { hits, truncated: false, filesSearched };
  }

  sync(): Promise<SyncResult> {
    return this.exclusive(async () => {
      const started = performance.now();
      // Anything still on disk from an interrupted turn becomes a commit first, so a merge cannot clobber it.
      await this.commitPending({
        conversationId: 'recovery',
        summary: 'notes left uncommitted by an earlier turn',
      });
      const { outcome, conflicts } = await this.integrate(await this.fetchRemote());
      const result: SyncResult = {
        outcome,
        head: (await this.resolve(this.localRef)) ?? '',
        conflicts,
        ms: Math.round(performance.now() - started),
      };
      this.logger?.info('memory.sync', { outcome, ms: result.ms, conflicts });
      return result;
    });
  }

  commitAndPush(turn: TurnSummary): Promise<CommitResult> {
    return this.exclusive(async () => {
      const parsed = turnSummarySchema.safeParse(turn);
      if (!parsed.success)
        throw new ValidationError(`Invalid turn summary: ${describeZodIssues(parsed.error.issues)}`);
      const parsedTurn = parsed.data;
      const started = performance.now();
      const { commit, changes } = await this.commitPending(parsedTurn);
      const commitMs = performance.now() - started;
      const pushed = await this.pushWithRetry({ commit, changes });
      const result: CommitResult = {
        commit,
        changes,
        pushed: true,
        attempts: pushed.attempts,
        conflicts: pushed.conflicts,
        timings: {
          commitMs: Math.round(commitMs),
          pushMs: Math.round(pushed.pushMs),
          mergeMs: Math.round(pushed.mergeMs),
          totalMs: Math.round(performance.now() - started),
        },
      };
      if (commit || pushed.attempts > 0) {
        this.logger?.info('memory.commit', {
          conversationId: parsedTurn.conversationId,
          commit,
          changes: changes.length,
          attempts: pushed.attempts,
          conflicts: pushed.conflicts,
          ...result.timings,
        });
      }
      if (pushed.conflicts.length > 0) {
        this.logger?.warn('memory.conflict', {
          conversationId: parsedTurn.conversationId,
          paths: pushed.conflicts,
        });
      }
      return result;
    });
  }

  status(): Promise<WorkspaceStatus> {
    return this.exclusive(async () => {
      const head = (await this.resolve(this.localRef)) ?? null;
      const remote = await this.resolve(this.remoteRef);
      const pending = (await this.classifyTouched(head)).map(({ path, change }) => ({ path, change }));
      const conflicts: string[] = [];
      for (const path of [...this.conflicted].sort()) {
        const content = await readFile(this.abs(path), 'utf8').catch(() => '');
        if (hasConflictMarkers(content)) conflicts.push(path);
        else this.conflicted.delete(path);
      }
      return { head, pending, hasUnpushedCommits: head !== null && head !== remote, conflicts };
    });
  }

  history(limit: number): Promise<MemoryCommit[]> {
    return this.exclusive(async () => {
      const wanted = Math.min(Math.max(Math.trunc(limit), 1), HISTORY_MAX);
      const head = await this.resolve(this.localRef);
      if (!head) return [];
      // Clean merges add nothing new and are skipped, so read further back than `wanted`.
      const depth = wanted * 2 + 5;
      let shallow = await this.readShallow();
      let log = await this.readLog(head, depth, shallow);
      if (log.length < depth && log.some((c) => shallow.has(c.oid))) {
        await this.remoteOp('fetch', () =>
          git.fetch({
            ...this.remoteArgs(),
            ref: this.settings.branch,
            singleBranch: true,
            tags: false,
            depth,
            relative: true,
          }),
        );
        shallow = await this.readShallow();
        log = await this.readLog(head, depth, shallow);
      }
      const commits: MemoryCommit[] = [];
      for (const entry of log) {
        if (commits.length === wanted) break;
        // A commit at the shallow boundary has no parent here: its diff would wrongly show every file as added.
        if (shallow.has(entry.oid)) continue;
        const parents = entry.commit.parent;
        let changes = await this.diffCommits(parents[0], entry.oid);
        if (parents.length > 1) {
          // Only what the merge itself produced (conflict markers, combined edits), as `git log --cc` shows.
          for (const other of parents.slice(1)) {
            const vsOther = new Set((await this.diffCommits(other, entry.oid)).map((c) => c.path));
            changes = changes.filter((c) => vsOther.has(c.path));
          }
          if (changes.length === 0) continue;
        }
        commits.push({
          oid: entry.oid,
          message: entry.commit.message.trim(),
          author: entry.commit.author.name,
          committedAt: new Date(entry.commit.committer.timestamp * 1000).toISOString(),
          merge: parents.length > 1,
          files: await Promise.all(changes.map((c) => this.patchFor(c))),
        });
      }
      return commits;
    });
  }

  private get localRef() {
    return `refs/heads/${this.settings.branch}`;
  }

  private get remoteRef() {
    return `refs/remotes/origin/${this.settings.branch}`;
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private remoteArgs() {
    const token = this.settings.token;
    return {
      fs: nodeFs,
      http,
      dir: this.dir,
      cache: this.cache,
      remote: 'origin',
      // The token travels only in the Authorization header; it is never in the URL or logs. It is sent up front
      // (saving the 401 round trip isomorphic-git would otherwise make on every fetch and push) and onAuth
      // answers a challenge all the same.
      headers: token ? { Authorization: basicAuth(token) } : undefined,
      onAuth: token ? () => ({ username: 'x-access-token', password: token }) : undefined,
      // Without this, a wrong token would be offered again and again.
      onAuthFailure: () => ({ cancel: true }),
    };
  }

  private async cloneFresh(): Promise<void> {
    const existing = await lstatOrNull(this.dir);
    if (existing && (!existing.isDirectory() || (await readdir(this.dir)).length > 0)) {
      throw new ConfigError(
        `Invalid configuration: MEMORY_DIR (${this.dir}) exists and is not a memory workspace; point it at an empty or new folder`,
      );
    }
    // Clone beside the target and rename, so a clone cut short never looks like a usable working copy.
    const staging = `${this.dir}.clone-${randomUUID().slice(0, 8)}`;
    await mkdir(dirname(this.dir), { recursive: true });
    try {
      // The objects the index pass read: the checkout writes the tree from them (read and hashed once).
      let objects: PackObjects | undefined;
      await this.remoteOp('clone', () =>
        git.clone({
          ...this.remoteArgs(),
          // The pack is indexed below with node:zlib (git-pack-index.ts), not by isomorphic-git in pure JS.
          http: capturingHttp(http, (pack, idx, read) => {
            objects = read;
            return writePack(staging, pack, idx);
          }),
          dir: staging,
          url: this.settings.url,
          ref: this.settings.branch,
          singleBranch: true,
          noTags: true,
          depth: this.settings.depth,
          // The working tree is written from the pack below (git-pack-checkout.ts): most of a cold start
          // was isomorphic-git's checkout of every file.
          noCheckout: true,
        }),
      );
      await this.checkoutClone(staging, objects);
      if (existing) await rmdir(this.dir);
      await rename(staging, this.dir);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    this.cache = {};
    // An empty remote leaves HEAD unborn; point it at our branch so the first commit lands there.
    await git.writeRef({
      fs: nodeFs,
      dir: this.dir,
      ref: 'HEAD',
      value: this.localRef,
      symbolic: true,
      force: true,
    });
  }

  /** Writes the cloned branch's files; isomorphic-git's checkout when the pack holds something unusual. */
  private async checkoutClone(dir: string, objects?: PackObjects): Promise<void> {
    const head = await git
      .resolveRef({ fs: nodeFs, dir, ref: this.localRef })
      .catch((e) => (isGitError(e, 'NotFoundError') ? undefined : Promise.reject(e)));
    if (!head) return; // an empty remote: nothing to check out, the seed follows
    if (await checkoutFromPack(dir, head, objects)) return;
    this.logger?.info('memory.checkout_fallback', {});
    await git.checkout({ fs: nodeFs, dir, ref: this.settings.branch, force: true });
  }

  /**
   * First use of an empty remote: write the seed and push it. If another worker seeded at the same moment,
   * its seed wins (ours is the same boilerplate and nothing else is in the commit): start again from its clone.
   */
  private async seed(): Promise<OpenInfo['action']> {
    for (const file of this.seedFiles) {
      await this.writeUnlocked(normalizeWorkspacePath(file.path), file.content);
    }
    await this.commitPending({ conversationId: 'setup', summary: 'seed the memory workspace' });
    try {
      await git.push({ ...this.remoteArgs(), ref: this.settings.branch, remoteRef: this.settings.branch });
      return 'seeded';
    } catch (error) {
      if (!isPushRejection(error)) throw this.upstream('push', error);
      this.logger?.info('memory.seed_lost_race', {});
      this.touched.clear();
      await rm(this.dir, { recursive: true, force: true });
      await this.cloneFresh();
      return 'cloned';
    }
  }

  private async ensureRemoteUrl(): Promise<void> {
    const current = await git.getConfig({ fs: nodeFs, dir: this.dir, path: 'remote.origin.url' });
    if (current === this.settings.url) return;
    // Locally the git emulator's port changes between runs; follow the configured URL.
    await git.setConfig({ fs: nodeFs, dir: this.dir, path: 'remote.origin.url', value: this.settings.url });
    this.logger?.warn('memory.remote_changed', { remote: redactUrl(this.settings.url) });
  }

  /** At cold start on an existing copy, changes on disk that no commit holds yet (a crash mid-turn). */
  private async adoptUncommittedChanges(): Promise<void> {
    const rows = await git.statusMatrix({ fs: nodeFs, dir: this.dir, cache: this.cache });
    for (const [path, head, workdir] of rows) {
      if (!(head === 1 && workdir === 1)) this.touched.add(path);
    }
  }

  private async fetchRemote(): Promise<string | undefined> {
    const fetched = await this.remoteOp('fetch', () =>
      git.fetch({ ...this.remoteArgs(), ref: this.settings.branch, singleBranch: true, tags: false }),
    );
    if (fetched.fetchHead === null && (await this.resolve(this.remoteRef))) {
      // The remote lost the branch (locally: a fresh emulator). Forget our stale view of it so our commits
      // read as unpushed and the next push restores them.
      await git.deleteRef({ fs: nodeFs, dir: this.dir, ref: this.remoteRef });
    }
    return this.resolve(this.remoteRef);
  }

  /** Brings the fetched remote head into the local branch and the files on disk. */
  private async integrate(remote: string | undefined): Promise<Integration> {
    const local = await this.resolve(this.localRef);
    if (!remote) return { outcome: local ? 'ahead' : 'up-to-date', conflicts: [] };
    if (!local || local === remote) {
      if (!local) await this.fastForward(undefined, remote);
      return { outcome: local ? 'up-to-date' : 'fast-forward', conflicts: [] };
    }
    const bases = await git.findMergeBase({
      fs: nodeFs,
      dir: this.dir,
      cache: this.cache,
      oids: [local, remote],
    });
    if (bases.includes(remote)) return { outcome: 'ahead', conflicts: [] };
    if (bases.includes(local)) {
      await this.fastForward(local, remote);
      return { outcome: 'fast-forward', conflicts: [] };
    }
    if (bases.length !== 1) {
      // No base: the remote was rewritten or is another repository; several: criss-cross merges. Either way
      // a three-way merge against one base (or nothing) still keeps every side's content.
      this.logger?.warn('memory.merge_base', { bases: bases.length });
    }
    const conflicts = await this.mergeCommits(local, remote, bases[0] as string | undefined);
    return { outcome: 'merged', conflicts };
  }

  private async fastForward(from: string | undefined, to: string): Promise<void> {
    // Files first, then the ref: a crash in between leaves changes that the next commit re-records, not a
    // working copy that silently disagrees with HEAD.
    await this.applyChanges(await this.diffCommits(from, to));
    await git.writeRef({ fs: nodeFs, dir: this.dir, ref: this.localRef, value: to, force: true });
  }

  private async mergeCommits(ours: string, theirs: string, base: string | undefined): Promise<string[]> {
    const [baseTree, ourTree, theirTree] = await Promise.all([
      base ? this.flatten(base) : Promise.resolve<FlatTree>(new Map()),
      this.flatten(ours),
      this.flatten(theirs),
    ]);
    const merged: FlatTree = new Map();
    const conflicts: string[] = [];
    const labels = {
      ours: `ours (this worker, ${ours.slice(0, 7)})`,
      theirs: `theirs (pushed by another worker, ${theirs.slice(0, 7)})`,
    };
    const paths = new Set([...baseTree.keys(), ...ourTree.keys(), ...theirTree.keys()]);
    for (const path of [...paths].sort()) {
      const b = baseTree.get(path);
      const o = ourTree.get(path);
      const t = theirTree.get(path);
      let result: Entry | undefined;
      if (sameEntry(o, t)) result = o;
      else if (sameEntry(o, b)) result = t;
      else if (sameEntry(t, b)) result = o;
      else if (o && t) {
        const text = mergeText(
          b ? await this.blobText(b.oid) : '',
          await this.blobText(o.oid),
          await this.blobText(t.oid),
          labels,
        );
        if (text.conflict) conflicts.push(path);
        result = { oid: await this.writeBlob(text.text), mode: o.mode };
      } else {
        // One side deleted the file, the other changed it: keep the changed version, never drop a write.
        result = o ?? t;
        this.logger?.warn('memory.merge_kept_changed_file', { path });
      }
      if (result) merged.set(path, result);
    }
    moveFileFolderClashes(merged, conflicts);

    const tree = await this.writeFlatTree(merged);
    await this.applyChanges(diffFlat(ourTree, merged));
    const message = conflicts.length
      ? `memory: merge notes pushed by another worker (conflicts kept with markers)\n\n${conflicts.map((p) => `- ${p}`).join('\n')}\n`
      : 'memory: merge notes pushed by another worker\n';
    await git.commit({
      fs: nodeFs,
      dir: this.dir,
      cache: this.cache,
      message,
      tree,
      parent: [ours, theirs],
      author: this.signature(),
      committer: this.signature(),
    });
    for (const path of conflicts) this.conflicted.add(path);
    return conflicts;
  }

  private async pushWithRetry(made: { commit?: string; changes: WorkspaceChange[] }) {
    let attempts = 0;
    let pushMs = 0;
    let mergeMs = 0;
    const conflicts: string[] = [];
    for (;;) {
      const local = await this.resolve(this.localRef);
      if (!local || local === (await this.resolve(this.remoteRef)))
        return { attempts, pushMs, mergeMs, conflicts };
      attempts++;
      const pushStarted = performance.now();
      try {
        await git.push({ ...this.remoteArgs(), ref: this.settings.branch, remoteRef: this.settings.branch });
        pushMs += performance.now() - pushStarted;
        continue;
      } catch (error) {
        pushMs += performance.now() - pushStarted;
        if (!isPushRejection(error)) throw this.upstream('push', error);
        this.logger?.warn('memory.push_rejected', { attempt: attempts });
        if (attempts >= this.settings.maxPushAttempts) {
          throw new AppError(
            `The memory push was still rejected after ${attempts} attempts (other workers keep pushing); the commit is kept here and pushed by the next turn.`,
            { code: 'memory_push_rejected', status: 503, retryable: true, details: { ...made, conflicts } },
          );
        }
      }
      // Someone pushed first: wait a little (so two workers do not collide again in lockstep), take their work.
      await sleep(10 + Math.random() * 40 * attempts);
      const mergeStarted = performance.now();
      const { conflicts: found } = await this.integrate(await this.fetchRemote());
      mergeMs += performance.now() - mergeStarted;
      conflicts.push(...found);
    }
  }

  /** Stages the touched paths and commits them; no commit when nothing really changed. */
  private async commitPending(turn: TurnSummary): Promise<{ commit?: string; changes: WorkspaceChange[] }> {
    if (this.touched.size === 0) return { changes: [] };
    const head = await this.resolve(this.localRef);
    const classified = await this.classifyTouched(head);
    const adds = classified.filter((c) => c.change !== 'deleted').map((c) => c.path);
    const removes = classified.filter((c) => c.change === 'deleted').map((c) => c.path);
    // The index follows every commit (a cold start's status scan reads file stats from it; files a pack
    // checkout wrote have no entry until touched, and that scan hashes them instead) ...
    if (adds.length) await git.add({ fs: nodeFs, dir: this.dir, cache: this.cache, filepath: adds });
    if (removes.length) await git.remove({ fs: nodeFs, dir: this.dir, cache: this.cache, filepath: removes });
    const changes = classified.map(({ path, change }) => ({ path, change }));
    this.touched.clear();
    if (changes.length === 0) return { changes };
    // ... but the tree is rebuilt only along the changed paths: git.commit would rewrite every folder's tree
    // from the index, a cost that grows with the workspace rather than with the turn.
    const edits = new Map<string, Entry | null>(
      classified.map((c) => [c.path, c.oid ? { oid: c.oid, mode: 0o100644 } : null]),
    );
    const baseTree = head
      ? (await git.readCommit({ fs: nodeFs, dir: this.dir, cache: this.cache, oid: head })).commit.tree
      : undefined;
    const tree = (await this.editTree(baseTree, edits)) ?? (await this.emptyTreeOid());
    const commit = await git.commit({
      fs: nodeFs,
      dir: this.dir,
      cache: this.cache,
      message: formatCommitMessage(turn, changes),
      tree,
      parent: head ? [head] : [],
      // A person's edit (the admin's policy change) is authored by them; the system stays the committer.
      author: turn.author ? { ...this.signature(), ...turn.author } : this.signature(),
      committer: this.signature(),
    });
    return { commit, changes };
  }

  /**
   * Writes a tree equal to `treeOid` with `edits` applied (path relative to this tree → new blob, or null to
   * delete); untouched subtrees keep their oids. Returns undefined when the result is empty.
   */
  private async editTree(
    treeOid: string | undefined,
    edits: Map<string, Entry | null>,
  ): Promise<string | undefined> {
    const entries = new Map<
      string,
      { mode: string; path: string; oid: string; type: 'blob' | 'tree' | 'commit' }
    >();
    if (treeOid) {
      const { tree } = await git.readTree({ fs: nodeFs, dir: this.dir, cache: this.cache, oid: treeOid });
      for (const entry of tree) entries.set(entry.path, entry);
    }
    const nested = new Map<string, Map<string, Entry | null>>();
    for (const [path, entry] of edits) {
      const slash = path.indexOf('/');
      if (slash < 0) {
        if (entry) entries.set(path, { mode: entry.mode.toString(8), path, oid: entry.oid, type: 'blob' });
        else entries.delete(path);
        continue;
      }
      const name = path.slice(0, slash);
      if (!nested.has(name)) nested.set(name, new Map());
      nested.get(name)?.set(path.slice(slash + 1), entry);
    }
    for (const [name, subEdits] of nested) {
      const current = entries.get(name);
      const subTree = await this.editTree(current?.type === 'tree' ? current.oid : undefined, subEdits);
      if (subTree) entries.set(name, { mode: '040000', path: name, oid: subTree, type: 'tree' });
      else entries.delete(name);
    }
    if (entries.size === 0) return undefined;
    return git.writeTree({ fs: nodeFs, dir: this.dir, tree: [...entries.values()] });
  }

  /** What each touched path amounts to against HEAD (writing the same content back is no change). */
  private async classifyTouched(
    head: string | null | undefined,
  ): Promise<Array<WorkspaceChange & { oid?: string }>> {
    const changes: Array<WorkspaceChange & { oid?: string }> = [];
    for (const path of [...this.touched].sort()) {
      const before = head ? await this.blobOidAt(head, path) : undefined;
      const st = await lstatOrNull(this.abs(path));
      if (st?.isFile()) {
        const { oid } = await git.hashBlob({ object: await readFile(this.abs(path)) });
        if (oid !== before) changes.push({ path, change: before ? 'modified' : 'added', oid });
      } else if (before) {
        changes.push({ path, change: 'deleted' });
      }
    }
    return changes;
  }

  /** Changed paths between two commits; identical subtrees are skipped without being read. */
  private async diffCommits(from: string | undefined, to: string): Promise<TreeChange[]> {
    const result: unknown = await git.walk({
      fs: nodeFs,
      dir: this.dir,
      cache: this.cache,
      trees: [git.TREE({ ref: from ?? (await this.emptyTreeOid()) }), git.TREE({ ref: to })],
      map: async (path: string, [a, b]: Array<WalkerEntry | null>) => {
        const [aType, bType] = [await a?.type(), await b?.type()];
        const [aOid, bOid] = [await a?.oid(), await b?.oid()];
        if (aOid === bOid) return aType === 'tree' ? null : undefined;
        if (aType !== 'blob' && bType !== 'blob') return undefined;
        const change: TreeChange = { path };
        if (a && aType === 'blob') change.from = { oid: aOid as string, mode: await a.mode() };
        if (b && bType === 'blob') change.to = { oid: bOid as string, mode: await b.mode() };
        return change;
      },
    });
    return Array.isArray(result) ? (result as TreeChange[]) : [];
  }

  private async flatten(commit: string): Promise<FlatTree> {
    const entries: unknown = await git.walk({
      fs: nodeFs,
      dir: this.dir,
      cache: this.cache,
      trees: [git.TREE({ ref: commit })],
      map: async (path: string, [entry]: Array<WalkerEntry | null>) => {
        if (!entry || (await entry.type()) !== 'blob') return undefined;
        return { path, oid: await entry.oid(), mode: await entry.mode() };
      },
    });
    const flat: FlatTree = new Map();
    for (const e of (entries ?? []) as Array<{ path: string } & Entry>)
      flat.set(e.path, { oid: e.oid, mode: e.mode });
    return flat;
  }

  private async writeFlatTree(flat: FlatTree): Promise<string> {
    interface Folder {
      files: Map<string, Entry>;
      folders: Map<string, Folder>;
    }
    const root: Folder = { files: new Map(), folders: new Map() };
    for (const [path, entry] of flat) {
      const parts = path.split('/');
      const name = parts.pop() as string;
      let folder = root;
      for (const part of parts) {
        let next = folder.folders.get(part);
        if (!next) {
          next = { files: new Map(), folders: new Map() };
          folder.folders.set(part, next);
        }
        folder = next;
      }
      folder.files.set(name, entry);
    }
    const write = async (folder: Folder): Promise<string> => {
      const tree: Array<{ mode: string; path: string; oid: string; type: 'blob' | 'tree' }> = [];
      for (const [name, sub] of folder.folders)
        tree.push({ mode: '040000', path: name, oid: await write(sub), type: 'tree' });
      for (const [name, e] of folder.files)
        tree.push({ mode: e.mode.toString(8), path: name, oid: e.oid, type: 'blob' });
      return git.writeTree({ fs: nodeFs, dir: this.dir, tree });
    };
    return write(root);
  }

  /** Makes the files on disk and the index match a new commit, touching only the paths that differ. */
  private async applyChanges(changes: TreeChange[]): Promise<void> {
    const removed = changes.filter((c) => !c.to).map((c) => c.path);
    for (const path of removed) {
      await rm(this.abs(path), { force: true });
      await this.pruneEmptyFolders(dirname(path));
    }
    if (removed.length) await git.remove({ fs: nodeFs, dir: this.dir, cache: this.cache, filepath: removed });
    const written: string[] = [];
    for (const change of changes) {
      if (!change.to) continue;
      const abs = this.abs(change.path);
      const { blob } = await git.readBlob({
        fs: nodeFs,
        dir: this.dir,
        cache: this.cache,
        oid: change.to.oid,
      });
      await mkdir(dirname(abs), { recursive: true });
      // Not recursive on purpose: a folder here would mean the working copy is not what we think it is.
      await rm(abs, { force: true });
      if (change.to.mode === SYMLINK_MODE) await symlink(Buffer.from(blob).toString('utf8'), abs);
      else await writeFile(abs, blob);
      written.push(change.path);
    }
    if (written.length) await git.add({ fs: nodeFs, dir: this.dir, cache: this.cache, filepath: written });
  }

  private async patchFor(change: TreeChange): Promise<MemoryFileChange> {
    const before = change.from ? await this.blobText(change.from.oid) : '';
    const after = change.to ? await this.blobText(change.to.oid) : '';
    const kind: ChangeKind = !change.from ? 'added' : !change.to ? 'deleted' : 'modified';
    const full = createTwoFilesPatch(
      change.from ? `a/${change.path}` : '/dev/null',
      change.to ? `b/${change.path}` : '/dev/null',
      before,
      after,
      undefined,
      undefined,
      { context: 3, headerOptions: FILE_HEADERS_ONLY },
    );
    const truncated = full.length > PATCH_MAX_CHARS;
    return {
      path: change.path,
      change: kind,
      patch: truncated ? `${full.slice(0, full.lastIndexOf('\n', PATCH_MAX_CHARS) + 1)}…\n` : full,
      patchTruncated: truncated,
    };
  }

  private abs(path: string): string {
    return path ? join(this.dir, path) : this.dir;
  }

  private async writeUnlocked(path: string, content: string): Promise<WriteResult> {
    const bytes = Buffer.byteLength(content, 'utf8');
    assertWorkspaceFileSize(path, bytes);
    await this.assertNoLinks(path);
    const abs = this.abs(path);
    const existing = await lstatOrNull(abs);
    if (existing && !existing.isFile()) throw notAFile(path);
    try {
      await mkdir(dirname(abs), { recursive: true });
    } catch (error) {
      if (errorCode(error) === 'EEXIST' || errorCode(error) === 'ENOTDIR') {
        throw new WorkspacePathError(
          'not_a_file',
          path,
          `A file on the way to "${path}" is in the way; choose another folder.`,
        );
      }
      throw error;
    }
    await writeFile(abs, content, 'utf8');
    this.touched.add(path);
    if (!hasConflictMarkers(content)) this.conflicted.delete(path);
    return { path, bytes, created: !existing };
  }

  private assertNoLinks(path: string): Promise<void> {
    return assertNoSymlinks(
      path,
      async (rel) => (await lstatOrNull(this.abs(rel)))?.isSymbolicLink() ?? false,
    );
  }

  /** Git keeps no empty folders; removing them keeps the tree the agent sees the same as the repository's. */
  private async pruneEmptyFolders(folder: string): Promise<void> {
    let current = folder;
    while (current && current !== '.') {
      try {
        await rmdir(this.abs(current));
      } catch {
        return;
      }
      current = dirname(current);
    }
  }

  private async resolve(ref: string): Promise<string | undefined> {
    try {
      return await git.resolveRef({ fs: nodeFs, dir: this.dir, ref });
    } catch (error) {
      if (isGitError(error, 'NotFoundError')) return undefined;
      throw error;
    }
  }

  private async blobOidAt(commit: string, path: string): Promise<string | undefined> {
    try {
      return (
        await git.readBlob({ fs: nodeFs, dir: this.dir, cache: this.cache, oid: commit, filepath: path })
      ).oid;
    } catch (error) {
      if (isGitError(error, 'NotFoundError') || isGitError(error, 'ObjectTypeError')) return undefined;
      throw error;
    }
  }

  private async blobText(oid: string): Promise<string> {
    const { blob } = await git.readBlob({ fs: nodeFs, dir: this.dir, cache: this.cache, oid });
    return Buffer.from(blob).toString('utf8');
  }

  private writeBlob(text: string): Promise<string> {
    return git.writeBlob({ fs: nodeFs, dir: this.dir, blob: Buffer.from(text, 'utf8') });
  }

  private async emptyTreeOid(): Promise<string> {
    this.emptyTree ??= await git.writeTree({ fs: nodeFs, dir: this.dir, tree: [] });
    return this.emptyTree;
  }

  /**
   * Newest first, each commit once. (git.log can list a commit twice when two branches of a merge reach it,
   * and orders commits of the same second arbitrarily.) Ties go to the commit queued first, so a merge's
   * parents come before their own ancestors.
   */
  private async readLog(head: string, max: number, shallow: Set<string>): Promise<ReadCommitResult[]> {
    const out: ReadCommitResult[] = [];
    const seen = new Set([head]);
    const queue: Array<{ entry: ReadCommitResult; seq: number }> = [];
    let seq = 0;
    const enqueue = async (oid: string) => {
      const entry = await git.readCommit({ fs: nodeFs, dir: this.dir, cache: this.cache, oid });
      queue.push({ entry, seq: seq++ });
    };
    await enqueue(head);
    while (queue.length > 0 && out.length < max) {
      queue.sort(
        (a, b) => b.entry.commit.committer.timestamp - a.entry.commit.committer.timestamp || a.seq - b.seq,
      );
      const { entry } = queue.shift() as { entry: ReadCommitResult };
      out.push(entry);
      if (shallow.has(entry.oid)) continue;
      for (const parent of entry.commit.parent) {
        if (seen.has(parent)) continue;
        seen.add(parent);
        await enqueue(parent);
      }
    }
    return out;
  }

  private async readShallow(): Promise<Set<string>> {
    const text = await readFile(join(this.dir, '.git', 'shallow'), 'utf8').catch(() => '');
    return new Set(text.split('\n').filter(Boolean));
  }

  private signature() {
    return {
      name: this.settings.authorName,
      email: this.settings.authorEmail,
      timestamp: Math.floor(this.now().getTime() / 1000),
      timezoneOffset: 0,
    };
  }

  private async remoteOp<T>(op: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw this.upstream(op, error);
    }
  }

  /** Maps isomorphic-git failures to our errors; messages are scrubbed so a token can never reach a log. */
  private upstream(op: string, error: unknown): AppError {
    if (error instanceof AppError) return error;
    const status = (error as { data?: { statusCode?: number } })?.data?.statusCode;
    const auth = isGitError(error, 'UserCanceledError') || status === 401 || status === 403;
    const raw = error instanceof Error ? error.message : String(error);
    const token = this.settings.token;
    const message = redactUrl(token ? raw.split(token).join('***') : raw);
    const wrapped = new UpstreamError(
      auth
        ? `Memory git ${op} was refused: check MEMORY_GIT_TOKEN (${message})`
        : `Memory git ${op} failed: ${message}`,
      { retryable: !auth, code: auth ? 'memory_git_auth_failed' : 'memory_git_failed', cause: error },
    );
    return wrapped;
  }
}

/** First line: what happened and in which conversation; body: every changed file; trailer for tooling. */
export function formatCommitMessage(turn: TurnSummary, changes: WorkspaceChange[]): string {
  const summary = clip((turn.summary ?? '').replace(/\s+/g, ' ').trim(), 72) || describeChanges(changes);
  const lines = changes.map((c) => `- ${c.change} ${c.path}`);
  const trailer = turn.author
    ? `Edited-by: ${turn.author.name} <${turn.author.email}>`
    : `Conversation: ${turn.conversationId}`;
  return `memory: ${summary}\n\n${lines.join('\n')}\n\n${trailer}\n`;
}

function describeChanges(changes: WorkspaceChange[]): string {
  if (changes.length === 1) {
    const [only] = changes as [WorkspaceChange];
    return `${only.change === 'added' ? 'add' : only.change === 'deleted' ? 'delete' : 'update'} ${only.path}`;
  }
  return `update ${changes.length} notes`;
}

/**
 * Line-based three-way merge. Where both sides changed the same lines the result keeps both versions
 * between git-style markers; identical changes on both sides are not conflicts.
 */
export function mergeText(
  base: string,
  ours: string,
  theirs: string,
  labels: { ours: string; theirs: string },
): { text: string; conflict: boolean } {
  const [b, o, t] = [splitLines(base), splitLines(ours), splitLines(theirs)];
  const out: string[] = [];
  let conflict = false;
  for (const region of diff3Merge(o.lines, b.lines, t.lines, { excludeFalseConflicts: true })) {
    if (region.ok) out.push(...region.ok);
    else if (region.conflict) {
      conflict = true;
      out.push(
        `<<<<<<< ${labels.ours}`,
        ...region.conflict.a,
        '=======',
        ...region.conflict.b,
        `>>>>>>> ${labels.theirs}`,
      );
    }
  }
  const trailingNewline = out.length > 0 && (o.newline || t.newline || conflict);
  return { text: out.join('\n') + (trailingNewline ? '\n' : ''), conflict };
}

function splitLines(text: string): { lines: string[]; newline: boolean } {
  if (text === '') return { lines: [], newline: false };
  const newline = text.endsWith('\n');
  return { lines: (newline ? text.slice(0, -1) : text).split('\n'), newline };
}

export function hasConflictMarkers(text: string): boolean {
  return /^<<<<<<< /m.test(text) && /^>>>>>>> /m.test(text);
}

/** A path that is a file on one side and a folder on the other cannot be one tree: the file moves aside. */
function moveFileFolderClashes(merged: FlatTree, conflicts: string[]): void {
  const folders = new Set<string>();
  for (const path of merged.keys()) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  for (const path of [...merged.keys()]) {
    if (!folders.has(path)) continue;
    const entry = merged.get(path) as Entry;
    merged.delete(path);
    const moved = `${path}.conflict.md`;
    merged.set(moved, entry);
    conflicts.push(moved);
  }
}

function diffFlat(from: FlatTree, to: FlatTree): TreeChange[] {
  const changes: TreeChange[] = [];
  for (const path of new Set([...from.keys(), ...to.keys()])) {
    const a = from.get(path);
    const b = to.get(path);
    if (!sameEntry(a, b)) changes.push({ path, from: a, to: b });
  }
  return changes;
}

function sameEntry(a: Entry | undefined, b: Entry | undefined): boolean {
  return a?.oid === b?.oid && a?.mode === b?.mode;
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

function isToolPath(path: string): boolean {
  try {
    normalizeWorkspacePath(path);
    return true;
  } catch {
    return false;
  }
}

function isPushRejection(error: unknown): boolean {
  // PushRejectedError: isomorphic-git saw the remote moved; GitPushError: the server refused the ref update.
  return isGitError(error, 'PushRejectedError') || isGitError(error, 'GitPushError');
}

function isGitError(error: unknown, code: string): boolean {
  return (error as { code?: unknown })?.code === code;
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException)?.code;
}

function missingFile(path: string): NotFoundError {
  return new NotFoundError(
    `"${path}" does not exist. Use list_files to see what is there, or write_file to create it.`,
  );
}

function notAFile(path: string): WorkspacePathError {
  return new WorkspacePathError(
    'not_a_file',
    path,
    `"${path}" is not a regular file (it is a folder); use list_files on it.`,
  );
}

async function lstatOrNull(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return null;
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  return (await lstatOrNull(path)) !== null;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function redactUrl(text: string): string {
  return text.replace(/(\w+:\/\/)[^/@\s]+@/g, '$1***@');
}

function basicAuth(token: string): string {
  return `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The clone's pack and its index, named as git names them (pack-<SHA-1 of the pack>.pack/.idx). */
async function writePack(dir: string, pack: Buffer, idx: Buffer): Promise<void> {
  const base = join(dir, '.git', 'objects', 'pack', `pack-${pack.subarray(-20).toString('hex')}`);
  await mkdir(dirname(base), { recursive: true });
  await writeFile(`${base}.pack`, pack);
  await writeFile(`${base}.idx`, idx);
}
