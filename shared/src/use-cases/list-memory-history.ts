import {
  type MemoryCommit,
  type MemoryHistoryRequest,
  type MemoryHistoryResponse,
  memoryHistoryRequestSchema,
  memoryHistoryResponseSchema,
} from '../contracts/memory';
import { describeZodIssues, ValidationError } from '../errors';
import type { Workspace } from '../ports/workspace';

export interface ListMemoryHistoryDeps {
  workspace: Pick<Workspace, 'sync' | 'history'>;
}

/**
 * "What did the assistant learn this week?" for the PWA.
 * 1. Validate the request (limit, optional since).
 * 2. Pull, so notes other workers pushed are included.
 * 3. Read the newest commits with their diffs and keep those at or after `since`.
 */
export async function listMemoryHistory(
  deps: ListMemoryHistoryDeps,
  input: MemoryHistoryRequest,
): Promise<MemoryHistoryResponse> {
  const parsed = memoryHistoryRequestSchema.safeParse(input);
  if (!parsed.success) throw new ValidationError(describeZodIssues(parsed.error.issues), parsed.error.issues);
  const { limit, since, path } = parsed.data;

  await deps.workspace.sync();
  // One file's history is looked for among the newest FILE_WINDOW commits (the workspace keeps no per-file
  // index, and a git log walk per file would read the whole history on every open).
  const commits = await deps.workspace.history(path ? FILE_WINDOW : limit);
  const from = since ? Date.parse(since) : Number.NEGATIVE_INFINITY;
  const recent = commits.filter((c) => Date.parse(c.committedAt) >= from);
  return memoryHistoryResponseSchema.parse({
    commits: path ? onlyFile(recent, path).slice(0, limit) : recent,
  });
}

/** How far back a file's history looks (the workspace's own cap on one history read). */
export const FILE_WINDOW = 50;

function onlyFile(commits: MemoryCommit[], path: string): MemoryCommit[] {
  return commits.flatMap((c) => {
    const files = c.files.filter((f) => f.path === path);
    return files.length ? [{ ...c, files }] : [];
  });
}
