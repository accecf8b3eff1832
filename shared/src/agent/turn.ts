import type { Conversation, Message, PendingAction, PendingIntent } from '../contracts/conversations';
import type { LiveUpdate } from '../contracts/live';
import type { Run, RunStep } from '../contracts/runs';
import { peoplePreview } from '../domain/preview';
import { ConflictError } from '../errors';
import { newId } from '../ids';
import { type ActionStore, applyActionPatch } from '../ports/action-store';
import type { AuditLog } from '../ports/audit-log';
import type { ConversationStore } from '../ports/conversation-store';
import type { EventQueue } from '../ports/event-queue';
import type { IntentStore } from '../ports/intent-store';
import type { LiveUpdates } from '../ports/live-updates';
import type { RunStore } from '../ports/run-store';
import type { TurnSnapshot, TurnStore, TurnWrite } from '../ports/turn-store';
import type { CardTimerSettings } from './card-timers';
import type { StagedFactWrites } from './turn-fact-cache';

/** The stores a turn reads and writes (the open turn stands in for them), and the effects it orders. */
export interface TurnPorts {
  conversations: ConversationStore;
  actions: ActionStore;
  intents: IntentStore;
  runs: RunStore;
  audit: AuditLog;
  queue: EventQueue;
  cardTimers?: CardTimerSettings;
  /** Open apps are told what a commit changed, as the live-publishing stores do for direct writes. */
  live?: LiveUpdates;
  clock: () => Date;
  turns?: TurnStore;
  turn?: OpenTurn;
}

/** A turn in progress: its conversation's records as read once, and the writes not yet committed. */
export interface OpenTurn {
  conversationId: string;
  runId: string | undefined;
  /** Commits the staged writes (one transaction); nothing to write costs nothing. */
  flush(): Promise<void>;
  /** Where the policy's fact writes for this conversation go while the turn holds them (turn-fact-cache.ts). */
  facts: StagedFactWrites;
}

const ACTIVE = new Set<Run['status']>(['awaiting_approval', 'running']);

/**
 * Opens a turn on one conversation (issue 14: ≤ 6 DynamoDB requests a turn): one query reads what the turn
 * needs from the conversation's partition, and the returned deps' stores answer from it and stage their
 * writes, which `flush()` commits in one transaction. Durability is the per-step contract, moved to the
 * edges: every effect outside the table — a queued event, a schedule, a tool that writes (its card's
 * transition), the assistant's notes — is preceded by a flush, so nothing leaves the process before the
 * steps that led to it are stored, and a crash before a commit loses only work without effects (plans,
 * reads), which the redelivered event redoes. Calls the turn cannot stage (`actions.transition`, another
 * conversation, a store method it does not know) also commit first, then go to the store.
 * `isNew`: the caller looked the conversation up by its keys and found none, so the read is skipped.
 * Without a TurnStore (unit tests with in-memory stores) the deps are returned as they are.
 */
export async function openTurn<D extends TurnPorts>(
  deps: D,
  conversationId: string,
  runId?: string,
  opts?: { isNew?: boolean; history?: number },
): Promise<D> {
  if (!deps.turns) return deps;
  if (
    deps.turn &&
    deps.turn.conversationId === conversationId &&
    (runId === undefined || deps.turn.runId === runId)
  )
    return deps;
  await deps.turn?.flush();
  const store = deps.turns;
  // A conversation named after this event and found under none of its keys cannot exist yet (its first commit
  // writes it and its trigger key together): nothing to read. Were it there, its create's condition fails.
  // `history`: the caller will want the newest messages (a prompt's history window), so they are read
  // alongside the partition query — one round trip instead of two in a row.
  const recent =
    opts?.history && !opts.isNew
      ? { limit: opts.history, messages: store.recentMessages(conversationId, opts.history) }
      : undefined;
  // Were the partition read to fail first, the window's failure must not surface as an unhandled rejection.
  recent?.messages.catch(() => {});
  const snap = opts?.isNew ? { runs: [], steps: [], actions: [] } : await store.load(conversationId, runId);
  const state = new TurnState(conversationId, runId, snap, store);
  if (recent) keepRecent(state, recent);
  let staged: TurnWrite[] = [];
  const turn: OpenTurn = {
    conversationId,
    runId,
    facts: { put() {}, delete() {} },
    async flush() {
      if (!staged.length) return;
      const writes = staged;
      staged = [];
      await store.commit(conversationId, writes);
      if (deps.live) await publishCommitted(deps.live, conversationId, writes);
    },
  };
  const stage = (w: TurnWrite) => {
    staged.push(w);
  };
  turn.facts = {
    put: (facts) => stage({ kind: 'facts.put', facts }),
    delete: (predicate, args) => stage({ kind: 'fact.delete', predicate, args }),
  };
  const ctx = { state, stage, flush: turn.flush, clock: deps.clock };
  return {
    ...deps,
    turn,
    runs: through(deps.runs, turn.flush, stagedRuns(ctx, deps.runs)),
    conversations: through(deps.conversations, turn.flush, stagedConversations(ctx, deps.conversations)),
    actions: through(deps.actions, turn.flush, stagedActions(ctx, deps.actions)),
    intents: through(deps.intents, turn.flush, stagedIntents(ctx, deps.intents)),
    audit: through(deps.audit, turn.flush, stagedAudit(ctx, deps.audit)),
    queue: through(deps.queue, turn.flush, {}),
    ...(deps.cardTimers?.timers
      ? { cardTimers: { ...deps.cardTimers, timers: through(deps.cardTimers.timers, turn.flush, {}) } }
      : {}),
  };
}

/** The same hints the live-publishing stores send after a direct write, once the commit holds. */
async function publishCommitted(live: LiveUpdates, conversationId: string, writes: TurnWrite[]) {
  const updates: LiveUpdate[] = [];
  let changed = false;
  for (const w of writes) {
    if (w.kind === 'conversation.create' || w.kind === 'pending' || w.kind === 'inbox') changed = true;
    else if (w.kind === 'message')
      updates.push({ type: 'message.created', conversationId, messageId: w.message.id });
    else if (w.kind === 'action.create')
      updates.push({ type: 'card.changed', conversationId, actionId: w.action.id, status: w.action.status });
    else if (w.kind === 'action.transition')
      updates.push({ type: 'card.changed', conversationId, actionId: w.actionId, status: w.to });
  }
  if (changed) updates.unshift({ type: 'conversation.changed', conversationId });
  for (const u of updates) await live.publish(u);
}

/** The conversation's records as this turn sees them: the snapshot plus its own staged writes. */
class TurnState {
  conversation?: Conversation;
  runs: Map<string, Run>;
  steps: Map<number, RunStep>;
  intent?: PendingIntent;
  /** Messages this turn appended (committed or not), oldest first: the history window is read on demand. */
  appended: Message[] = [];
  /** The newest messages as read when the turn first asked for history (and how many were asked for). */
  recent?: { limit: number; messages: Promise<Message[]> };
  /** Whether the conversation existed when the turn opened (a new one has no history to read). */
  readonly existed: boolean;
  actions: Map<string, PendingAction>;
  /** Cards this turn withdrew (staged, conditional on PENDING): each justifies one staged pending decrement. */
  withdrawn = 0;

  constructor(
    readonly conversationId: string,
    readonly runId: string | undefined,
    snap: TurnSnapshot,
    readonly store: TurnStore,
  ) {
    if (snap.conversation) this.conversation = snap.conversation;
    this.runs = new Map(snap.runs.map((r) => [r.id, r]));
    this.steps = new Map(snap.steps.map((s) => [s.seq, s]));
    if (snap.intent) this.intent = snap.intent;
    this.existed = snap.conversation !== undefined;
    this.actions = new Map(snap.actions.map((a) => [a.id, a]));
  }
}

const messageKey = (m: Message) => `${m.createdAt}#${m.id}`;
const byMessageKey = (a: Message, b: Message) => (messageKey(a) < messageKey(b) ? -1 : 1);

/** The stored window as read (or being read); a failed read is not kept: the next ask reads again. */
function keepRecent(state: TurnState, recent: NonNullable<TurnState['recent']>) {
  state.recent = recent;
  recent.messages.catch(() => {
    if (state.recent === recent) delete state.recent;
  });
}

/** The newest `limit` messages: the stored window (one query, the first time) merged with this turn's own. */
async function history(state: TurnState, limit: number): Promise<Message[]> {
  if (state.existed && (!state.recent || state.recent.limit < limit))
    keepRecent(state, { limit, messages: state.store.recentMessages(state.conversationId, limit) });
  const read = await (state.recent?.messages ?? []);
  const seen = new Set(state.appended.map(messageKey));
  const stored = read.filter((m) => !seen.has(messageKey(m)));
  return [...stored, ...state.appended].sort(byMessageKey).slice(-limit);
}

interface StageCtx {
  state: TurnState;
  stage(w: TurnWrite): void;
  flush(): Promise<void>;
  clock: () => Date;
}

/**
 * The store with `own` methods answering for this turn's conversation; every other call (another
 * conversation, a method the turn does not stage — including ones added to the port later) commits the
 * staged writes first and then goes to the store, so nothing is ever written out of order.
 */
function through<T extends object>(real: T, flush: () => Promise<void>, own: Partial<T>): T {
  return new Proxy(real, {
    get(target, prop, receiver) {
      const mine = (own as Record<PropertyKey, unknown>)[prop];
      if (typeof mine === 'function') return mine;
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await flush();
        return value.apply(target, args);
      };
    },
  });
}

function stagedRuns({ state, stage, flush }: StageCtx, real: RunStore): Partial<RunStore> {
  const mine = (c: string) => c === state.conversationId;
  return {
    async create(run) {
      if (!mine(run.conversationId)) return flush().then(() => real.create(run));
      if (state.runs.has(run.id)) return;
      state.runs.set(run.id, run);
      stage({ kind: 'run.create', run });
    },
    async get(c, r) {
      // The snapshot holds the driven run and the active ones; a finished run of the past is read on demand.
      if (mine(c) && (state.runs.has(r) || r === state.runId)) return state.runs.get(r);
      return flush().then(() => real.get(c, r));
    },
    async update(c, r, patch) {
      const current = mine(c) ? state.runs.get(r) : undefined;
      if (!current) return flush().then(() => real.update(c, r, patch));
      const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      state.runs.set(r, { ...current, ...defined });
      stage({ kind: 'run.update', runId: r, patch: defined });
    },
    async appendStep(c, step) {
      if (!mine(c) || step.runId !== state.runId) return flush().then(() => real.appendStep(c, step));
      if (state.steps.has(step.seq)) return false;
      state.steps.set(step.seq, step);
      stage({ kind: 'step', step });
      return true;
    },
    async listSteps(c, r) {
      if (!mine(c) || r !== state.runId) return flush().then(() => real.listSteps(c, r));
      return [...state.steps.values()].sort((a, b) => a.seq - b.seq);
    },
    async findActive(c) {
      if (!mine(c)) return flush().then(() => real.findActive(c));
      return [...state.runs.values()]
        .filter((r) => ACTIVE.has(r.status))
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
    },
  };
}

function stagedConversations(
  { state, stage, flush }: StageCtx,
  real: ConversationStore,
): Partial<ConversationStore> {
  const mine = (c: string) => c === state.conversationId;
  return {
    async create(c) {
      if (!mine(c.id)) return flush().then(() => real.create(c));
      if (state.conversation) throw new ConflictError(`Conversation ${c.id} exists`);
      state.conversation = { ...c };
      stage({ kind: 'conversation.create', conversation: c });
    },
    async get(id) {
      return mine(id) ? state.conversation : flush().then(() => real.get(id));
    },
    async appendMessage(m) {
      if (!mine(m.conversationId)) return flush().then(() => real.appendMessage(m));
      // A replayed append (same id and time) writes the same item again: the put is idempotent.
      if (state.appended.some((x) => messageKey(x) === messageKey(m))) return;
      state.appended.push(m);
      state.appended.sort(byMessageKey);
      const c = state.conversation;
      const touch = m.role !== 'tool' && c !== undefined && c.lastMessageAt <= m.createdAt;
      if (m.role === 'inbound' && c) delete c.status;
      if (touch && c) {
        c.preview = peoplePreview(m) ?? c.preview;
        c.lastMessageAt = m.createdAt;
        c.updatedAt = m.createdAt;
      }
      stage({ kind: 'message', message: m, touch });
    },
    async listMessages(id, opts) {
      // The whole conversation is not a turn's to read: the store answers, after this turn's writes commit.
      if (!mine(id) || !opts?.limit) return flush().then(() => real.listMessages(id, opts));
      return history(state, opts.limit);
    },
    async setInboxFields(id, patch) {
      // Staged only on a conversation the turn holds: folded into its one write (no extra request).
      if (!mine(id) || !state.conversation) return flush().then(() => real.setInboxFields(id, patch));
      const { status, ...rest } = { ...state.conversation, ...patch };
      state.conversation = status && status !== 'open' ? { ...rest, status } : rest;
      stage({ kind: 'inbox', patch });
    },
    async setThreadFields(id, patch) {
      // follow's lead / assignee / channels after an inbound run: folded into the turn's one write too.
      // A claim is the API's write (cards #18), never a turn's: it goes straight to the store.
      const { claimedBy, ...fields } = patch;
      if (!mine(id) || !state.conversation || claimedBy !== undefined)
        return flush().then(() => real.setThreadFields(id, patch));
      const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
      state.conversation = { ...state.conversation, ...defined };
      stage({ kind: 'thread', patch: defined });
    },
    async mapTriggerKey(key, conversationId) {
      // One thread per person: a key pointed at the turn's conversation is written with it.
      if (!mine(conversationId)) return flush().then(() => real.mapTriggerKey(key, conversationId));
      stage({ kind: 'trigger', key });
    },
    async adjustPending(id, delta) {
      // A decrement keeps the store's never-below-zero check; a missing conversation is a no-op there too.
      // A decrement for a card this turn withdrew is staged: the card's PENDING condition in the same
      // transaction is what makes it safe (cards #18).
      const owed = mine(id) && delta === -1 && state.withdrawn > 0;
      if (owed) state.withdrawn -= 1;
      if (!mine(id) || (delta < 0 && !owed)) return flush().then(() => real.adjustPending(id, delta));
      if (!state.conversation) return;
      state.conversation.pendingCount += delta;
      stage({ kind: 'pending', delta });
    },
  };
}

/** Card ids are made from their run's (`act_<run>_<seq>`, propose-action.ts), so the driven run's are known. */
function ownCard(state: TurnState, actionId: string): boolean {
  return state.runId !== undefined && actionId.startsWith(`act_${state.runId.replace(/^run_/, '')}_`);
}

function stagedActions({ state, stage, flush }: StageCtx, real: ActionStore): Partial<ActionStore> {
  const mine = (c: string) => c === state.conversationId;
  return {
    async create(a) {
      if (!mine(a.conversationId)) return flush().then(() => real.create(a));
      if (state.actions.has(a.id)) throw new ConflictError(`Action ${a.id} exists`);
      // A card of another run may exist closed (not read with the turn): ask the store before staging it.
      if (a.runId !== state.runId && (await flush().then(() => real.get(a.conversationId, a.id))))
        throw new ConflictError(`Action ${a.id} exists`);
      state.actions.set(a.id, a);
      stage({ kind: 'action.create', action: a });
    },
    async get(c, a) {
      // Live cards and the driven run's are in the snapshot; a closed card of an earlier run is read on demand.
      if (mine(c) && (state.actions.has(a) || ownCard(state, a))) return state.actions.get(a);
      return flush().then(() => real.get(c, a));
    },
    /** In a turn: the live cards (and the driven run's), which is what every caller filters down to. */
    async listByConversation(c) {
      return mine(c) ? [...state.actions.values()] : flush().then(() => real.listByConversation(c));
    },
    async transition(c, a, from, to, patch) {
      // Withdrawing a stale draft inside a triage turn (cards #18) costs no request of its own: its
      // condition (still one of `from`) travels in the turn's one transaction, and a person who decided
      // first makes that commit fail and the event retry, which then finds the card decided.
      const current = mine(c) ? state.actions.get(a) : undefined;
      // So is an executed card's outcome (EXECUTING → EXECUTED / FAILED): the effect has happened, and a crash
      // before the commit leaves the card EXECUTING, which the redelivery reconciles with the provider —
      // the same as a crash before a direct write. Moving INTO EXECUTING stays direct: it must be stored
      // before the effect.
      const outcome = from.length === 1 && from[0] === 'EXECUTING' && to !== 'EXECUTING';
      if (current && (to === 'SUPERSEDED' || outcome)) {
        if (!from.includes(current.status)) return undefined;
        const next = { ...applyActionPatch(current, patch ?? {}), status: to, version: current.version + 1 };
        state.actions.set(a, next);
        if (to === 'SUPERSEDED') state.withdrawn += 1;
        stage({ kind: 'action.transition', actionId: a, from, to, patch: patch ?? {} });
        return next;
      }
      await flush();
      const out = await real.transition(c, a, from, to, patch);
      if (!mine(c)) return out;
      // Lost the race: what this turn read is stale, so the card is read again for whoever follows its state.
      const now = out ?? (await real.get(c, a));
      if (now) state.actions.set(now.id, now);
      else state.actions.delete(a);
      return out;
    },
  };
}

function stagedIntents({ state, stage, flush }: StageCtx, real: IntentStore): Partial<IntentStore> {
  const mine = (c: string) => c === state.conversationId;
  return {
    async get(c, now) {
      if (!mine(c)) return flush().then(() => real.get(c, now));
      return state.intent && new Date(state.intent.expiresAt) > now ? state.intent : undefined;
    },
    async put(i) {
      if (!mine(i.conversationId)) return flush().then(() => real.put(i));
      state.intent = i;
      stage({ kind: 'intent.put', intent: i });
    },
    async clear(c) {
      if (!mine(c)) return flush().then(() => real.clear(c));
      delete state.intent;
      stage({ kind: 'intent.clear' });
    },
  };
}

function stagedAudit({ state, stage, flush, clock }: StageCtx, real: AuditLog): Partial<AuditLog> {
  return {
    async append(e) {
      if (e.conversationId !== state.conversationId) return flush().then(() => real.append(e));
      stage({ kind: 'audit', event: { ...e, id: newId('au_'), at: e.at ?? clock().toISOString() } });
    },
  };
}
