import { queryAll } from '../../shared/src/adapters/dynamo/base';
import type { AuditEvent, Message, PendingAction } from '../../shared/src/contracts/conversations';
import type { LedgerEntry } from '../../shared/src/ports/event-ledger';
import { type ExportedRun, exportConversation } from '../../shared/src/use-cases/export-conversation';
import type { OpsContext } from './context';
import { OpsUsageError } from './errors';

export interface EventTrace {
  event: LedgerEntry;
  /** Every status the event went through (received → processed, or → deferred → processed, …). */
  history: Array<Pick<LedgerEntry, 'status' | 'reason' | 'at'>>;
  /** Other events of the same delivery or conversation turn (same correlation id, same or next UTC day). */
  related: LedgerEntry[];
  conversation?: { id: string; title: string };
  runs: ExportedRun[];
  messages: Message[];
  cards: PendingAction[];
  audit: AuditEvent[];
  /** What left the building: executed cards and their provider results. */
  sends: Array<{ actionId: string; tool: string; status: string; result?: unknown; error?: string }>;
}

/**
 * The whole story of one event: the ledger (when it arrived, what became of it), the events that travelled
 * with it (same correlation id), the run(s) it started or joined with a summary of their steps, the cards
 * they proposed and who decided them, the audit entries, and what was sent.
 */
export async function traceEvent(ctx: OpsContext, eventId: string): Promise<EventTrace> {
  const id = eventId.trim();
  if (!id) throw new OpsUsageError('event:trace needs an event id (see dlq:list or the webhook log line)');
  const event = await ctx.ledger.get(id);
  if (!event) throw new OpsUsageError(`No event ${id} in the ledger (ids look like evt_… or sms_…)`);
  const [history, related] = await Promise.all([eventHistory(ctx, id), correlated(ctx, event)]);
  const conversationId = await conversationOf(ctx, [event, ...related]);
  const base = { event, history, related };
  if (!conversationId) return { ...base, runs: [], messages: [], cards: [], audit: [], sends: [] };
  const full = await exportConversation(ctx, { conversationId, exportedBy: 'ops:event-trace' });
  const eventIds = new Set([id, ...related.map((r) => r.eventId)]);
  const runIds = new Set([event.runId, ...related.map((r) => r.runId)].filter(Boolean) as string[]);
  const runs = full.runs.filter((r) => runIds.has(r.id) || r.trigger.eventIds.some((e) => eventIds.has(e)));
  for (const r of runs) runIds.add(r.id);
  const cards = full.cards.filter((c) => runIds.has(c.runId));
  const cardIds = new Set(cards.map((c) => c.id));
  const within = storyWindow(event, runs);
  const messages = full.messages.filter((m) =>
    m.runId ? runIds.has(m.runId) : m.role === 'inbound' && within(m.createdAt),
  );
  const messageIds = new Set(messages.map((m) => m.id));
  return {
    ...base,
    conversation: { id: full.conversation.id, title: full.conversation.title },
    runs,
    messages,
    cards,
    audit: full.audit.filter((a) => mentions(a.data, runIds, cardIds, eventIds, messageIds)),
    sends: cards
      .filter((c) => c.status === 'EXECUTED' || c.status === 'FAILED' || c.status === 'EXECUTING')
      .map((c) => ({
        actionId: c.id,
        tool: c.tool,
        status: c.status,
        ...(c.result !== undefined ? { result: c.result } : {}),
        ...(c.error ? { error: c.error } : {}),
      })),
  };
}

/**
 * Inbound messages carry no run id; the ones of this story are those from shortly before the event was
 * recorded (the provider's timestamp precedes ours) until its runs last moved.
 */
function storyWindow(event: LedgerEntry, runs: ExportedRun[]) {
  const slack = 10 * 60_000;
  const from = Date.parse(event.at) - slack;
  const to = Math.max(Date.parse(event.at), ...runs.map((r) => Date.parse(r.updatedAt))) + slack;
  return (at: string) => {
    const t = Date.parse(at);
    return t >= from && t <= to;
  };
}

async function eventHistory(ctx: OpsContext, eventId: string) {
  const rows = await queryAll<LedgerEntry>(ctx.table, {
    KeyConditionExpression: 'pk = :p AND begins_with(sk, :h)',
    ExpressionAttributeValues: { ':p': `EVENT#${eventId}`, ':h': 'HIST#' },
  });
  return rows.map((r) => ({ status: r.status, reason: r.reason, at: r.at }));
}

/** Same correlation id on the event's UTC day and the next (a deferred event may finish after midnight). */
async function correlated(ctx: OpsContext, event: LedgerEntry): Promise<LedgerEntry[]> {
  if (!event.correlationId) return [];
  const day = event.at.slice(0, 10);
  const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const entries = (await Promise.all([ctx.ledger.listDay(day), ctx.ledger.listDay(next)])).flat();
  return entries.filter((e) => e.correlationId === event.correlationId && e.eventId !== event.eventId);
}

/** `conv:<id>` keys name the conversation; `sms:…`/`email:…` keys are the conversation's trigger key. */
async function conversationOf(ctx: OpsContext, entries: LedgerEntry[]): Promise<string | undefined> {
  for (const e of entries) {
    for (const k of [e.key, e.correlationId ?? '']) if (k.startsWith('conv:')) return k.slice(5);
  }
  for (const e of entries) {
    const found = await ctx.conversations.findByTriggerKey(e.key);
    if (found) return found.id;
  }
  return undefined;
}

function mentions(data: unknown, ...sets: Array<Set<string>>): boolean {
  if (!data || typeof data !== 'object') return false;
  for (const v of Object.values(data as Record<string, unknown>)) {
    if (typeof v === 'string' && sets.some((s) => s.has(v))) return true;
    if (Array.isArray(v) && v.some((x) => typeof x === 'string' && sets.some((s) => s.has(x)))) return true;
  }
  return false;
}
