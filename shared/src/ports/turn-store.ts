import type {
  ActionStatus,
  AuditEvent,
  Conversation,
  InboxFields,
  Message,
  PendingAction,
  PendingIntent,
  ThreadFields,
} from '../contracts/conversations';
import type { Run, RunStep } from '../contracts/runs';
import type { ActionPatch } from './action-store';
import type { FactValue, StoredFact } from './fact-store';

/**
 * One agent turn's persistence at the physical limit (issue 14): what a turn needs from its conversation is
 * read with a couple of queries of the conversation's partition, run together, and everything it writes is
 * committed together (one transaction), so a turn costs a handful of requests instead of one per record.
 *
 * The read is bounded by what a turn can act on, not by the conversation's age: a conversation that has run
 * hundreds of turns keeps hundreds of closed cards, finished runs, their steps, messages and audit entries in
 * its partition, and none of that is loaded. Anything else is read on demand (the staged stores fall back to
 * the per-record store), so a turn that does need it still gets it, at one request more.
 */
export interface TurnSnapshot {
  conversation?: Conversation;
  /** The run being driven and every active run (running or awaiting approval); finished runs are not read. */
  runs: Run[];
  /** The steps of the run being driven (only that run's). */
  steps: RunStep[];
  /** The stored pending intent, expired or not (the caller checks expiry: TTL deletion is lazy). */
  intent?: PendingIntent;
  /** Every card not yet closed (PENDING, APPROVED, EXECUTING, FAILED) and every card of the run being driven. */
  actions: PendingAction[];
}

/** One record a turn writes; the store folds the writes to one item into one (a transaction allows one each). */
export type TurnWrite =
  | { kind: 'run.create'; run: Run }
  | { kind: 'run.update'; runId: string; patch: Partial<Run> }
  | { kind: 'step'; step: RunStep }
  | { kind: 'conversation.create'; conversation: Conversation }
  /** `touch`: the message moves the conversation's preview and lastMessageAt (never backwards). */
  | { kind: 'message'; message: Message; touch: boolean }
  /** Only increments are staged: a decrement keeps its never-below-zero check as a direct write. */
  | { kind: 'pending'; delta: number }
  /** The inbox's fields (issue 19: `urgent.pagedAt` after a page), folded into the conversation's one write. */
  | { kind: 'inbox'; patch: InboxFields }
  /** follow's thread fields (lead, assignee, channels) set in an inbound turn, folded into the same write. */
  | { kind: 'thread'; patch: ThreadFields }
  /** Another trigger key pointed at this conversation (one thread per person), in the same commit. */
  | { kind: 'trigger'; key: string }
  | { kind: 'audit'; event: AuditEvent }
  | { kind: 'action.create'; action: PendingAction }
  /**
   * A card withdrawn in the turn (cards #18), or an executed card's outcome (EXECUTING → EXECUTED / FAILED,
   * after the effect): conditional on its status still being one of `from`.
   */
  | {
      kind: 'action.transition';
      actionId: string;
      from: ActionStatus[];
      to: ActionStatus;
      patch: ActionPatch;
    }
  | { kind: 'intent.put'; intent: PendingIntent }
  | { kind: 'intent.clear' }
  /** The policy's working memory (its own partition, FACTS#<conversation>), written with the turn. */
  | { kind: 'facts.put'; facts: StoredFact[] }
  | { kind: 'fact.delete'; predicate: string; args: FactValue[] };

export interface TurnStore {
  /** The conversation a trigger key (`sms:+1…`, `email:<thread>`) feeds, without reading the conversation. */
  conversationIdFor(triggerKey: string): Promise<string | undefined>;
  load(conversationId: string, runId?: string): Promise<TurnSnapshot>;
  /** The newest `limit` messages, oldest first (a turn's history window: one query, read when first asked). */
  recentMessages(conversationId: string, limit: number): Promise<Message[]>;
  /**
   * Writes all of it or none of it. A record that another worker created first (the run, a step, the card,
   * the conversation) fails the whole commit with a retryable ConflictError: nothing of this attempt was
   * written, and the redelivered event replays what the winner stored.
   */
  commit(conversationId: string, writes: TurnWrite[]): Promise<void>;
}
