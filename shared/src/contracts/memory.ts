import { z } from 'zod';

/**
 * What the PWA shows of the assistant's memory: recent commits to the workspace with what each changed
 * ("what did the assistant learn this week?"). Shared by the API (response validation) and the web app.
 */

export const memoryFileChangeSchema = z.object({
  path: z.string(),
  change: z.enum(['added', 'modified', 'deleted']),
  /** Unified diff of the file against the commit's first parent; cut when long (see `patchTruncated`). */
  patch: z.string(),
  patchTruncated: z.boolean(),
});

export const memoryCommitSchema = z.object({
  oid: z.string().regex(/^[0-9a-f]{40}$/),
  message: z.string(),
  author: z.string(),
  /** ISO 8601 time of the commit. */
  committedAt: z.string().datetime({ offset: true }),
  /** True when the commit joined two workers' histories; only the files the merge itself produced are listed. */
  merge: z.boolean(),
  files: z.array(memoryFileChangeSchema),
});

export const memoryHistoryRequestSchema = z.object({
  limit: z.coerce.number().int().min(1).max(50).default(20),
  /** Only commits at or after this instant (ISO 8601), e.g. a week ago. */
  since: z.string().datetime({ offset: true }).optional(),
  /** One file's history (the memory browser): commits that changed it, with only its diff. */
  path: z.string().trim().min(1).max(200).optional(),
});

export const memoryHistoryResponseSchema = z.object({
  commits: z.array(memoryCommitSchema),
});

export type MemoryFileChange = z.infer<typeof memoryFileChangeSchema>;
export type MemoryCommit = z.infer<typeof memoryCommitSchema>;
export type MemoryHistoryRequest = z.input<typeof memoryHistoryRequestSchema>;
export type MemoryHistoryResponse = z.infer<typeof memoryHistoryResponseSchema>;
