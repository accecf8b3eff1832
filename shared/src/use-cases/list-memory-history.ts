import {
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
  const { limit, since } = parsed.data;

  await deps.workspace.sync();
  const commits = await deps.workspace.history(limit);
  const from = since ? Date.parse(since) : Number.NEGATIVE_INFINITY;
  return memoryHistoryResponseSchema.parse({
    commits: commits.filter((c) => Date.parse(c.committedAt) >= from),
  });
}
