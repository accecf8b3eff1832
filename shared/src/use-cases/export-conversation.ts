import { z } from 'zod';
import { auditEvent, conversation, message, pendingAction } from '../contracts/conversations';
import { type Run, type RunStep, run as runSchema, stepKind } from '../contracts/runs';
import { NotFoundError, ValidationError } from '../errors';
import type { ActionStore } from '../ports/action-store';
import type { AuditLog } from '../ports/audit-log';
import type { ConversationStore } from '../ports/conversation-store';
import { type FactStore, storedFactSchema } from '../ports/fact-store';
import type { RunStore } from '../ports/run-store';

/**
 * One conversation as a single self-describing file: what was said, every card and its decision, what each
 * run did (a summary of its steps, not the raw model transcripts), the audit trail, the facts the policy
 * engine holds, and references to media (ids only — the bytes stay behind the API's media proxy, which needs
 * a session). Used by `npm run ops -- conversation:export` and the PWA's export (inbox), so both give the
 * same file.
 */

export const EXPORT_FORMAT = 'switchboard.conversation-export';
export const EXPORT_VERSION = 1;

export const runStepsSummary = z.object({
  total: z.number().int().nonnegative(),
  byKind: z.partialRecord(stepKind, z.number().int().positive()),
  /** Tool calls in the order the run made them (repeats kept: they are the run's story). */
  toolCalls: z.array(
    z.object({ name: z.string(), status: z.string().optional(), error: z.string().optional() }),
  ),
  /** Error steps' messages, so a failed run says why without opening the steps. */
  errors: z.array(z.string()),
  firstAt: z.string().optional(),
  lastAt: z.string().optional(),
});

export const exportedRun = runSchema
  .pick({
    id: true,
    status: true,
    mode: true,
    trigger: true,
    iteration: true,
    outcome: true,
    usage: true,
    createdAt: true,
    updatedAt: true,
    awaitingActionId: true,
  })
  .extend({ steps: runStepsSummary });
export type ExportedRun = z.infer<typeof exportedRun>;

export const mediaReference = z.object({
  messageId: z.string(),
  /** The media id the API proxies (`/api/media/<id>`); never the provider URL. */
  id: z.string(),
  type: z.string().nullable(),
  at: z.string(),
});

export const conversationExport = z.object({
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION),
  exportedAt: z.string(),
  exportedBy: z.string(),
  conversation,
  messages: z.array(message),
  cards: z.array(pendingAction),
  runs: z.array(exportedRun),
  audit: z.array(auditEvent),
  facts: z.array(storedFactSchema),
  media: z.array(mediaReference),
  counts: z.object({
    messages: z.number().int().nonnegative(),
    cards: z.number().int().nonnegative(),
    runs: z.number().int().nonnegative(),
    audit: z.number().int().nonnegative(),
    facts: z.number().int().nonnegative(),
    media: z.number().int().nonnegative(),
  }),
});
export type ConversationExport = z.infer<typeof conversationExport>;

export interface ExportConversationDeps {
  conversations: ConversationStore;
  actions: ActionStore;
  runs: RunStore;
  audit: AuditLog;
  facts: FactStore;
  clock: () => Date;
}

export const exportConversationInput = z.object({
  conversationId: z.string().trim().min(1, 'a conversation id is required').max(200),
  /** Who asked (a user id, or `ops:<os user>` from the CLI) — written into the file. */
  exportedBy: z.string().min(1).max(200),
});

export async function exportConversation(
  deps: ExportConversationDeps,
  raw: z.input<typeof exportConversationInput>,
): Promise<ConversationExport> {
  const parsed = exportConversationInput.safeParse(raw);
  if (!parsed.success) throw new ValidationError(parsed.error.issues.map((i) => i.message).join('; '));
  const { conversationId, exportedBy } = parsed.data;
  const convo = await deps.conversations.get(conversationId);
  if (!convo) throw new NotFoundError(`No conversation ${conversationId}`);
  const now = deps.clock();
  const [messages, cards, audit, facts, active] = await Promise.all([
    deps.conversations.listMessages(conversationId),
    deps.actions.listByConversation(conversationId),
    deps.audit.list(conversationId),
    deps.facts.list(conversationId, { now }),
    deps.runs.findActive(conversationId),
  ]);
  messages.sort(byCreatedAt);
  cards.sort(byCreatedAt);
  const runs = await loadRuns(deps.runs, conversationId, runIdsOf(messages, cards, active));
  const media = mediaOf(messages);
  return conversationExport.parse({
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: now.toISOString(),
    exportedBy,
    conversation: convo,
    messages,
    cards,
    runs,
    audit,
    facts,
    media,
    counts: {
      messages: messages.length,
      cards: cards.length,
      runs: runs.length,
      audit: audit.length,
      facts: facts.length,
      media: media.length,
    },
  });
}

const byCreatedAt = (a: { createdAt: string }, b: { createdAt: string }) =>
  a.createdAt.localeCompare(b.createdAt);

/**
 * The run store has no "list runs of a conversation" read, and one is not worth a new query shape: every
 * run that did anything visible left its id on a message or a card, and the paused one is `findActive`.
 */
function runIdsOf(
  messages: Array<{ runId?: string }>,
  cards: Array<{ runId: string }>,
  active: Run | undefined,
): string[] {
  const ids = new Set<string>();
  for (const m of messages) if (m.runId) ids.add(m.runId);
  for (const c of cards) ids.add(c.runId);
  if (active) ids.add(active.id);
  return [...ids];
}

async function loadRuns(store: RunStore, conversationId: string, ids: string[]): Promise<ExportedRun[]> {
  const loaded = await Promise.all(
    ids.map(async (id) => {
      const r = await store.get(conversationId, id);
      if (!r) return undefined;
      return toExportedRun(r, await store.listSteps(conversationId, id));
    }),
  );
  return loaded.filter((r): r is ExportedRun => r !== undefined).sort(byCreatedAt);
}

export function toExportedRun(r: Run, steps: RunStep[]): ExportedRun {
  return {
    id: r.id,
    status: r.status,
    mode: r.mode,
    trigger: r.trigger,
    iteration: r.iteration,
    usage: r.usage,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    ...(r.outcome ? { outcome: r.outcome } : {}),
    ...(r.awaitingActionId ? { awaitingActionId: r.awaitingActionId } : {}),
    steps: summariseSteps(steps),
  };
}

export function summariseSteps(steps: RunStep[]): z.infer<typeof runStepsSummary> {
  const ordered = [...steps].sort((a, b) => a.seq - b.seq);
  const byKind: Partial<Record<RunStep['kind'], number>> = {};
  const toolCalls: z.infer<typeof runStepsSummary>['toolCalls'] = [];
  const errors: string[] = [];
  for (const s of ordered) {
    byKind[s.kind] = (byKind[s.kind] ?? 0) + 1;
    // Tool outcomes are stored as `tool_result` steps ({name, args, status, error?}); `tool_call` is kept
    // for runs recorded by older code.
    const name = stringField(s.data, 'name');
    if ((s.kind === 'tool_result' || s.kind === 'tool_call') && name) {
      const status = stringField(s.data, 'status');
      const error = stringField(s.data, 'error');
      toolCalls.push({ name, ...(status ? { status } : {}), ...(error ? { error } : {}) });
    }
    if (s.kind === 'error')
      errors.push(stringField(s.data, 'message') ?? stringField(s.data, 'error') ?? 'error');
  }
  return {
    total: ordered.length,
    byKind,
    toolCalls,
    errors,
    ...(ordered[0] ? { firstAt: ordered[0].at } : {}),
    ...(ordered.length ? { lastAt: ordered[ordered.length - 1]?.at } : {}),
  };
}

function stringField(data: unknown, key: string): string | undefined {
  if (!data || typeof data !== 'object') return undefined;
  const v = (data as Record<string, unknown>)[key];
  return typeof v === 'string' ? v : undefined;
}

/**
 * Media the messages refer to. The message schema gains `media?: {id, type}[]` with the follow-through work;
 * it is read loosely here so records written before (or after) that field exists export the same way.
 */
const messageMedia = z.object({
  media: z.array(z.object({ id: z.string(), type: z.string().nullable().optional() })).optional(),
});

function mediaOf(messages: Array<{ id: string; createdAt: string }>): z.infer<typeof mediaReference>[] {
  const out: z.infer<typeof mediaReference>[] = [];
  for (const m of messages) {
    const parsed = messageMedia.safeParse(m);
    for (const item of parsed.success ? (parsed.data.media ?? []) : []) {
      out.push({ messageId: m.id, id: item.id, type: item.type ?? null, at: m.createdAt });
    }
  }
  return out;
}
