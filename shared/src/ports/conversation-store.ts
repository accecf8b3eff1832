import type {
  CardFields,
  Conversation,
  InboxFields,
  Message,
  ThreadFields,
} from '../contracts/conversations';

export interface ConversationStore {
  create(c: Conversation): Promise<void>;
  get(id: string): Promise<Conversation | undefined>;
  /** Most recently active first; shared by the whole team. */
  list(opts?: { limit?: number }): Promise<Conversation[]>;
  /** One page of `list` and an opaque cursor for the next (older) page, if any (inbox paging, issue 19). */
  listPage?(opts: { limit: number; cursor?: string }): Promise<{ items: Conversation[]; next?: string }>;
  /**
   * Open urgent conversations, newest first, reading at most `maxPages` index pages (issue 19: urgent first
   * across pages, not only within one). `scannedTo` (the index position `<lastMessageAt>#<id>` it stopped at)
   * is set only when it stopped before the end.
   */
  listOpenUrgent?(opts: { maxPages: number }): Promise<{ items: Conversation[]; scannedTo?: string }>;
  /** The cursor that continues right after this conversation (a filtered page that stops mid-read). */
  cursorAfter?(c: Conversation): string;
  /** Finds the open conversation a trigger key (e.g. `sms:+1415…`) feeds, if any. */
  findByTriggerKey(key: string): Promise<Conversation | undefined>;
  /** Appends a message and moves the conversation's preview/lastMessageAt forward. */
  appendMessage(m: Message): Promise<void>;
  /**
   * Writes a message whose content grows (a call entry as its summary and transcript arrive): the same id
   * and time are overwritten, and the conversation moves forward as with appendMessage.
   */
  replaceMessage(m: Message): Promise<void>;
  /** Points a trigger key (`person:<id>`, `sms:<phone>`, `email:<thread>`) at a conversation (one thread per person). */
  mapTriggerKey(key: string, conversationId: string): Promise<void>;
  /** Sets follow's fields (lead, assignee, channels) and the cards' claim; absent ones are left as they are, null removes. */
  setThreadFields(conversationId: string, patch: ThreadFields & CardFields): Promise<void>;
  /** Sets the inbox's fields (urgent, status); absent ones are left as they are, `status: 'open'` removes it. */
  setInboxFields(conversationId: string, patch: InboxFields): Promise<void>;
  listMessages(conversationId: string, opts?: { limit?: number }): Promise<Message[]>;
  /** Adds `delta` to the pending-approval counter (never below zero). */
  adjustPending(conversationId: string, delta: number): Promise<void>;
  markRead(conversationId: string, userId: string, at: string): Promise<void>;
}
