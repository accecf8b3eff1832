import { z } from 'zod';

/**
 * The shared workspace-files component's API (DESIGN.md §5): every file of the memory workspace with what the
 * signed-in person may do with it, one file's text with a version for safe concurrent edits, writes and
 * deletes committed with the person's name, and the policy editor's "try it". Shared by the API (request and
 * response validation) and the PWA.
 */

export const workspaceFileKind = z.enum([
  'policy',
  'skill',
  'lesson',
  'memory',
  'report',
  'team',
  'instructions',
]);

export const workspaceFileEntry = z.object({
  path: z.string(),
  bytes: z.number().int().nonnegative(),
  kind: workspaceFileKind,
  canRead: z.boolean(),
  canWrite: z.boolean(),
  canDelete: z.boolean(),
});

export const workspaceFilesResponse = z.object({ files: z.array(workspaceFileEntry) });

/** Paths are checked again by the workspace's sandbox rules; this only bounds them. */
const pathField = z.string().trim().min(1).max(200);

export const workspaceFileQuery = z.object({ path: pathField });

export const workspaceFileResponse = workspaceFileEntry.extend({
  text: z.string(),
  /** Hash of the text as read; sent back with a write so an edit never silently overwrites someone else's. */
  version: z.string(),
});

/** A file's text is capped like the agent's notes (WORKSPACE_LIMITS.maxFileBytes is checked on bytes). */
const fileText = z.string().max(100_000);

export const writeWorkspaceFileRequest = z.object({
  path: pathField,
  text: fileText,
  /** The version the edit started from; absent for a new file. A mismatch is a 409 with the current text. */
  baseVersion: z.string().max(100).optional(),
  /** One line for the commit ("allow texts to vendors after 8pm"). */
  message: z.string().trim().max(200).optional(),
});

export const writeWorkspaceFileResponse = z.object({
  path: z.string(),
  version: z.string(),
  /** The memory commit holding the change; absent when the text was unchanged. */
  commit: z.string().optional(),
  pushed: z.boolean(),
});

/** A proposed text compared with the saved file (the policy-change card's diff; an editor's "review"). */
export const diffWorkspaceFileRequest = z.object({ path: pathField, text: fileText });

export const diffWorkspaceFileResponse = z.object({
  path: z.string(),
  /** Unified diff, saved → proposed; empty when they are the same. */
  diff: z.string(),
  /** False when the file does not exist yet (the diff adds every line). */
  exists: z.boolean(),
  version: z.string().optional(),
});

export const deleteWorkspaceFileResponse = z.object({
  path: z.string(),
  commit: z.string().optional(),
  pushed: z.boolean(),
});

/** One rulebase problem, by file, line and column (1-based), shown inline in the editor. */
export const rulebaseIssue = z.object({
  file: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  message: z.string(),
});

/** A sample tool call for "may I …?": the tool and its arguments. */
const sampleCall = z.object({
  tool: z.string().trim().min(1).max(100),
  args: z.record(z.string(), z.unknown()).default({}),
});

/**
 * "Try it" in the policy editor: evaluates a query or a sample tool call against the edited, unsaved text
 * of one policy file (the other files as saved), with optional sample facts. Nothing is stored.
 */
export const tryPolicyRequest = z
  .object({
    path: pathField,
    text: fileText,
    /** e.g. `qualified_lead(X)` — capitalised names are variables to solve for. */
    query: z.string().trim().min(1).max(500).optional(),
    call: sampleCall.optional(),
    /** Facts to assume, one atom each, e.g. `contact("+14155550111", "Maria Lopez")`. */
    facts: z.array(z.string().trim().min(1).max(300)).max(50).default([]),
  })
  .refine((r) => !(r.query && r.call), { message: 'Give a query or a call, not both.' });

const tryQueryOutcome = z.object({
  type: z.literal('query'),
  status: z.string(),
  summary: z.string(),
  answers: z.array(z.object({ bindings: z.record(z.string(), z.unknown()), why: z.array(z.string()) })),
  missing: z.object({
    tools: z.array(z.string()),
    questions: z.array(z.string()),
    focus: z.array(z.string()),
  }),
});

const tryCallOutcome = z.object({
  type: z.literal('call'),
  decision: z.enum(['allow', 'require_approval', 'deny']),
  reason: z.string(),
  why: z.array(z.string()),
  missing: z.object({ tools: z.array(z.string()), questions: z.array(z.string()) }),
});

export const tryPolicyResponse = z.object({
  /** Empty when the edited rulebase parses and compiles; otherwise nothing was evaluated. */
  issues: z.array(rulebaseIssue),
  outcome: z.discriminatedUnion('type', [tryQueryOutcome, tryCallOutcome]).optional(),
});

export type WorkspaceFileEntry = z.infer<typeof workspaceFileEntry>;
export type WorkspaceFileResponse = z.infer<typeof workspaceFileResponse>;
export type WriteWorkspaceFileRequest = z.input<typeof writeWorkspaceFileRequest>;
export type TryPolicyRequest = z.input<typeof tryPolicyRequest>;
export type TryPolicyResponse = z.infer<typeof tryPolicyResponse>;
export type RulebaseIssueBody = z.infer<typeof rulebaseIssue>;
