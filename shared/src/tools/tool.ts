import { z } from 'zod';

/**
 * A tool the agent (model or rules planner) can call. Read tools run directly (through the guard);
 * write tools never run directly: the executor only invokes `run` for an APPROVED pending action whose
 * argument hash matches (SPEC §6.1), or when the policy guard explicitly allows it without approval.
 * `internal` tools change only the assistant's own state (its memory workspace, the conversation focus):
 * they need no approval but every call is audited (SPEC §3.4, memory row).
 */
export type ToolKind = 'read' | 'write' | 'internal';

export interface ToolContext {
  conversationId: string;
  runId: string;
  /** Idempotency key for write tools: the pending action id, so a retried send can be reconciled. */
  actionId?: string;
  /** The person who approved the card being executed (a policy change is committed as them). */
  approvedBy?: { email: string; name?: string };
  now: Date;
  timezone: string;
  signal?: AbortSignal;
  /** How the person asked, when a person's chat turn made the call: in the PWA, or by text (research #21). */
  channel?: 'web' | 'sms';
}

export interface Tool<Schema extends z.ZodType = z.ZodType, Deps = unknown> {
  name: string;
  description: string;
  kind: ToolKind;
  /** Group for docs and the PWA ("openphone", "google", "memory", …). */
  group: string;
  input: Schema;
  run(deps: Deps, input: z.infer<Schema>, ctx: ToolContext): Promise<unknown>;
  /**
   * For writes whose outcome is unknown after a crash (EXECUTING with no result): look the action up at the
   * provider instead of resending. Returns the result if it happened, undefined if it did not.
   */
  reconcile?(deps: Deps, input: z.infer<Schema>, ctx: ToolContext): Promise<unknown | undefined>;
  /**
   * Completes a write's arguments from the system's own state before the call becomes a card, overriding
   * whatever the planner put there (e.g. a policy change records the version of the file it starts from).
   */
  prepare?(deps: Deps, input: z.infer<Schema>, ctx: ToolContext): Promise<z.infer<Schema>>;
  /** One-line human summary of a call, for approval cards and the audit log ("Text Maria Lopez: …"). */
  summarize?(input: z.infer<Schema>): string;
}

/** Output caps keep tool results small enough for the model's context and the DynamoDB item limit. */
export const TOOL_OUTPUT_MAX_CHARS = 12_000;

export function capOutput(value: unknown, max = TOOL_OUTPUT_MAX_CHARS): unknown {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined || text.length <= max) return value;
  return { truncated: true, originalChars: text.length, preview: text.slice(0, max) };
}

/**
 * A tool's input schema, built on its first use (issue 16): the first validation of a call to it, or the
 * first model turn, which converts every tool's schema to JSON Schema once. Most worker events (timers,
 * card decisions, notifications, rules-planned turns) use one tool or none, yet building all the tools'
 * schemas was the largest item of the worker's module init. `z.lazy` validates and converts exactly as the
 * schema it wraps (the JSON Schema is identical, so the prompt's cached prefix does not change).
 */
export function lazyInput<T extends z.ZodType>(build: () => T): z.ZodLazy<T> {
  return z.lazy(build);
}
