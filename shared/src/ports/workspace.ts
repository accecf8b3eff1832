import type { MemoryCommit } from '../contracts/memory';

/**
 * The assistant's long-term memory (SPEC §3.5): a folder of notes that is shared by every worker. Paths are
 * relative to the workspace root and pass the sandbox rules of domain/workspace-paths.ts; a refused path
 * throws WorkspacePathError, a missing file NotFoundError.
 *
 * Life of a turn: `sync()` before the agent reads, file operations during the turn, `commitAndPush()` after
 * every turn (no network when nothing changed and nothing is unpushed; otherwise it also retries a push an
 * earlier turn could not finish). Writes live on disk until then, so one turn's notes become one commit.
 */
export interface Workspace {
  readFile(path: string): Promise<string>;
  /** Creates or replaces the file (folders are created as needed). */
  writeFile(path: string, content: string): Promise<WriteResult>;
  /** Replaces the one occurrence of `oldText`; refuses when it is absent or appears more than once. */
  editFile(path: string, oldText: string, newText: string): Promise<WriteResult>;
  deleteFile(path: string): Promise<void>;
  /** Files under `dir` ('' = everything), sorted by path. */
  listFiles(dir?: string): Promise<WorkspaceFile[]>;
  /** Case-insensitive literal search, line by line. */
  searchFiles(query: string, opts?: SearchOptions): Promise<SearchResult>;
  /** Brings in what other workers pushed (fetch + fast-forward or merge). */
  sync(): Promise<SyncResult>;
  /** Commits this turn's changes (if any) and pushes them, merging concurrent pushes; never drops a write. */
  commitAndPush(turn: TurnSummary): Promise<CommitResult>;
  status(): Promise<WorkspaceStatus>;
  /** Recent commits, newest first, each with per-file diffs. */
  history(limit: number): Promise<MemoryCommit[]>;
}

export interface WriteResult {
  path: string;
  bytes: number;
  created: boolean;
}

export interface WorkspaceFile {
  path: string;
  bytes: number;
}

export interface SearchOptions {
  /** Folder to search in ('' = everything). */
  dir?: string;
  maxResults?: number;
}

export interface SearchHit {
  path: string;
  /** 1-based. */
  line: number;
  text: string;
}

export interface SearchResult {
  hits: SearchHit[];
  /** True when more lines matched than `maxResults`. */
  truncated: boolean;
  filesSearched: number;
}

export type ChangeKind = 'added' | 'modified' | 'deleted';

export interface WorkspaceChange {
  path: string;
  change: ChangeKind;
}

/** What the commit message is made of: the turn that wrote the notes. */
export interface TurnSummary {
  conversationId: string;
  /** One line about the turn ("remembered Maria's new phone number"); the changed files are added to it. */
  summary?: string;
  /** A person who made the change (an admin's edit in the PWA): the commit's author instead of the assistant. */
  author?: { name: string; email: string };
}

export interface SyncResult {
  /** 'fast-forward' and 'merged' changed local files; 'up-to-date' and 'ahead' did not. */
  outcome: 'up-to-date' | 'fast-forward' | 'merged' | 'ahead';
  head: string;
  /** Files that now hold conflict markers (both versions kept); the agent should resolve them. */
  conflicts: string[];
  ms: number;
}

export interface CommitResult {
  /** The commit made for this turn, absent when nothing changed. */
  commit?: string;
  changes: WorkspaceChange[];
  /** Whether the remote now has every local commit. */
  pushed: boolean;
  /** Push attempts made (1 = no concurrent push got in the way). */
  attempts: number;
  /** Files left with conflict markers by merging a concurrent push: tell the agent, alert the team. */
  conflicts: string[];
  timings: { commitMs: number; pushMs: number; mergeMs: number; totalMs: number };
}

export interface WorkspaceStatus {
  head: string | null;
  /** Changes on disk not yet committed. */
  pending: WorkspaceChange[];
  /** Local commits the remote does not have yet (a failed push is retried by the next commitAndPush). */
  hasUnpushedCommits: boolean;
  /** Files known to still hold conflict markers. */
  conflicts: string[];
}
