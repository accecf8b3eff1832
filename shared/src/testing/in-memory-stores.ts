import type {
  AuditEvent,
  CardFields,
  Conversation,
  InboxFields,
  Message,
  PendingAction,
  PendingIntent,
  ThreadFields,
} from '../contracts/conversations';

import type { EventEnvelope } from '../contracts/events';
import type { Run, RunStep } from '../contracts/runs';
import { peoplePreview } from '../domain/preview';
import { ConflictError } from '../errors';
import { type ActionPatch, type ActionStore, applyActionPatch } from '../ports/action-store';
import type { AuditLog } from '../ports/audit-log';
import type { ConversationStore } from '../ports/conversation-store';
import type { EventQueue } from '../ports/event-queue';
import type { IntentStore } from '../ports/intent-store';
import type { RunStore } from '../ports/run-store';

/**
 * Small in-memory implementations of our own ports, for unit tests of use cases. They keep the semantics the
 * DynamoDB adapters promise — conditional creates and transitions, idempotent message and step writes, lazy
 * expiry — and hand out copies, so a caller cannot change stored state by mutating what it read (as with a
 * real store). test/agent/store-contract.test.ts runs the same checks against these and the DynamoDB adapters.
 */

/** What the DynamoDB adapters throw on a failed conditional create: our typed ConflictError. */
export function conditionFailed(message = 'The conditional request failed'): Error {
  return new ConflictError(message);
}

const copy = <T>(v: T): T => structuredClone(v);
/** Like the document client's removeUndefinedValues: an undefined field is not stored. */
const defined = <T extends object>(v: T): T =>
  Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined)) as T;

export class InMemoryConversationStore implements ConversationStore {
  readonly conversations = new Map<string, Conversation>();
  /** Per conversation, keyed like the adapter's sort key (`createdAt#id`): a message is written once. */
  readonly messages = new Map<string, Map<string, Message>>();
  private readonly triggers = new Map<string, string>();

  async create(c: Conversation) {
    if (this.conversations.has(c.id)) throw conditionFailed(`Conversation ${c.id} exists`);
    this.conversations.set(c.id, copy(defined(c)));
    if (c.triggerKey) this.triggers.set(c.triggerKey, c.id);
  }

  async get(id: string) {
    const c = this.conversations.get(id);
    return c && copy(c);
  }

  async list(opts?: { limit?: number }) {
    return [...this.conversations.values()]
      .sort((a, b) => `${b.lastMessageAt}#${b.id}`.localeCompare(`${a.lastMessageAt}#${a.id}`))
      .slice(0, opts?.limit ?? 50)
      .map(copy);
  }

  async findByTriggerKey(key: string) {
    const id = this.triggers.get(key);
    return id ? this.get(id) : undefined;
  }

  async appendMessage(m: Message) {
    let msgs = this.messages.get(m.conversationId);
    if (!msgs) {
      msgs = new Map();
      this.messages.set(m.conversationId, msgs);
    }
    const sk = `${m.createdAt}#${m.id}`;
    if (!msgs.has(sk)) msgs.set(sk, copy(defined(m)));
    if (m.role === 'tool') return;
    const c = this.conversations.get(m.conversationId);
    // Something new from outside brings a done or archived conversation back (issue 19).
    if (c && m.role === 'inbound') delete c.status;
    if (c && c.lastMessageAt <= m.createdAt) {
      c.preview = peoplePreview(m) ?? c.preview;
      c.lastMessageAt = m.createdAt;
      c.updatedAt = m.createdAt;
    }
  }

  async mapTriggerKey(key: string, conversationId: string) {
    this.triggers.set(key, conversationId);
  }

  async replaceMessage(m: Message) {
    const sk = `${m.createdAt}#${m.id}`;
    this.messages.get(m.conversationId)?.delete(sk);
    await this.appendMessage(m);
  }

  async setInboxFields(conversationId: string, patch: InboxFields) {
    const c = this.conversations.get(conversationId);
    if (!c) return;
    Object.assign(c, defined({ ...patch, status: undefined }));
    if (patch.status === 'open') delete c.status;
    else if (patch.status) c.status = patch.status;
  }

  async setThreadFields(conversationId: string, patch: ThreadFields & CardFields) {
    const c = this.conversations.get(conversationId);
    if (!c) return;
    const { claimedBy, ...rest } = patch;
    Object.assign(c, defined(rest));
    if (claimedBy === null) delete c.claimedBy;
    else if (claimedBy) c.claimedBy = claimedBy;
  }

  async listMessages(conversationId: string, opts?: { limit?: number }) {
    const all = [...(this.messages.get(conversationId)?.entries() ?? [])]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, m]) => copy(m));
    return opts?.limit ? all.slice(-opts.limit) : all;
  }

  async adjustPending(conversationId: string, delta: number) {
    const c = this.conversations.get(conversationId);
    // Same condition as the adapter: the counter never goes below zero, a missing conversation is a no-op.
    if (!c || c.pendingCount < (delta < 0 ? -delta : 0)) return;
    c.pendingCount += delta;
  }

  async markRead(conversationId: string, userId: string, at: string) {
    const c = this.conversations.get(conversationId);
    if (c) c.readBy = { ...c.readBy, [userId]: at };
  }
}

export class InMemoryActionStore implements ActionStore {
  readonly actions = new Map<string, PendingAction>();
  private key = (c: string, a: string) => `${c}#${a}`;

  async create(a: PendingAction) {
    const k = this.key(a.conversationId, a.id);
    if (this.actions.has(k)) throw conditionFailed(`Action ${a.id} exists`);
    this.actions.set(k, copy(defined(a)));
  }

  async get(conversationId: string, actionId: string) {
    const a = this.actions.get(this.key(conversationId, actionId));
    return a && copy(a);
  }

  async listByConversation(conversationId: string) {
    return [...this.actions.values()]
      .filter((a) => a.conversationId === conversationId)
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .map(copy);
  }

  async transition(
    conversationId: string,
    actionId: string,
    from: PendingAction['status'][],
    to: PendingAction['status'],
    patch: ActionPatch = {},
  ) {
    const k = this.key(conversationId, actionId);
    const current = this.actions.get(k);
    if (!current || !from.includes(current.status)) return undefined;
    const { id: _i, conversationId: _c, status: _s, version: _v, ...rest } = patch;
    const next: PendingAction = {
      ...applyActionPatch(current, copy(rest)),
      status: to,
      version: current.version + 1,
    };
    this.actions.set(k, next);
    return copy(next);
  }
}

export class InMemoryRunStore implements RunStore {
  readonly runs = new Map<string, Run>();
  readonly steps = new Map<string, RunStep>();
  private key = (c: string, r: string) => `${c}#${r}`;

  async create(run: Run) {
    const k = this.key(run.conversationId, run.id);
    // The adapter swallows the failed condition: creating an existing run is a no-op.
    if (!this.runs.has(k)) this.runs.set(k, copy(defined(run)));
  }

  async get(conversationId: string, runId: string) {
    const r = this.runs.get(this.key(conversationId, runId));
    return r && copy(r);
  }

  async update(conversationId: string, runId: string, patch: Partial<Run>) {
    const k = this.key(conversationId, runId);
    const current = this.runs.get(k);
    const { id: _i, conversationId: _c, ...rest } = patch;
    const fields = defined(copy(rest));
    if (Object.keys(fields).length === 0) return;
    if (!current) throw conditionFailed(`Run ${runId} does not exist`);
    this.runs.set(k, { ...current, ...fields });
  }

  async appendStep(conversationId: string, step: RunStep) {
    const k = `${this.key(conversationId, step.runId)}#${String(step.seq).padStart(6, '0')}`;
    if (this.steps.has(k)) return false;
    this.steps.set(k, copy(step));
    return true;
  }

  async listSteps(conversationId: string, runId: string) {
    const prefix = `${this.key(conversationId, runId)}#`;
    return [...this.steps.entries()]
      .filter(([k]) => k.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, s]) => copy(s));
  }

  async findActive(conversationId: string) {
    const active = [...this.runs.values()]
      .filter(
        (r) => r.conversationId === conversationId && ['awaiting_approval', 'running'].includes(r.status),
      )
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    return active[0] && copy(active[0]);
  }
}

export class InMemoryIntentStore implements IntentStore {
  readonly intents = new Map<string, PendingIntent>();

  async get(conversationId: string, now: Date) {
    const i = this.intents.get(conversationId);
    return i && new Date(i.expiresAt) > now ? copy(i) : undefined;
  }

  async put(intent: PendingIntent) {
    this.intents.set(intent.conversationId, copy(intent));
  }

  async clear(conversationId: string) {
    this.intents.delete(conversationId);
  }
}

export class InMemoryAuditLog implements AuditLog {
  readonly events: AuditEvent[] = [];
  private seq = 0;

  constructor(private readonly clock: () => Date = () => new Date()) {}

  async append(e: Omit<AuditEvent, 'id' | 'at'> & { at?: string }) {
    const at = e.at ?? this.clock().toISOString();
    this.events.push(copy(defined({ ...e, at, id: `au_${String(++this.seq).padStart(8, '0')}` })));
  }

  async list(conversationId: string, opts?: { limit?: number }) {
    const all = this.events
      .filter((e) => e.conversationId === conversationId)
      .sort((a, b) => `${a.at}#${a.id}`.localeCompare(`${b.at}#${b.id}`))
      .map(copy);
    return opts?.limit ? all.slice(-opts.limit) : all;
  }
}

/** Records what was sent; tests read `sent` (or `ofType`) instead of polling a queue. */
export class InMemoryEventQueue implements EventQueue {
  readonly sent: Array<{ event: EventEnvelope; delaySeconds: number }> = [];

  async send(event: EventEnvelope, opts?: { delaySeconds?: number }) {
    this.sent.push({ event: copy(event), delaySeconds: opts?.delaySeconds ?? 0 });
  }

  ofType<T extends EventEnvelope['type']>(type: T): Array<Extract<EventEnvelope, { type: T }>> {
    return this.sent
      .map((s) => s.event)
      .filter((e): e is Extract<EventEnvelope, { type: T }> => e.type === type);
  }
}

/** The whole set, as a use case's deps usually want them. */
export function inMemoryStores(clock: () => Date = () => new Date()) {
  return {
    conversations: new InMemoryConversationStore(),
    actions: new InMemoryActionStore(),
    runs: new InMemoryRunStore(),
    intents: new InMemoryIntentStore(),
    audit: new InMemoryAuditLog(clock),
    queue: new InMemoryEventQueue(),
  };
}
