import { useSyncExternalStore } from 'react';
import type { ConversationSummary } from '../../../../shared/src/contracts/api';

/**
 * The read marks this tab has made (conversation id → the time the API recorded). The open conversation marks
 * itself read when something new arrives in it, but the list beside it has usually fetched its page for the
 * same change first, and with the live channel up nothing refetches it until the next change: the row would
 * keep its unread dot for a conversation the person is looking at. The list overlays these marks instead of
 * asking the API again.
 */
const marks = new Map<string, string>();
let version = 0;
const listeners = new Set<() => void>();

function subscribe(l: () => void) {
  listeners.add(l);
  return () => void listeners.delete(l);
}

/** Records a read mark the API answered with (never moves one back). */
export function noteRead(conversationId: string, readAt: string) {
  const was = marks.get(conversationId);
  if (was !== undefined && was >= readAt) return;
  marks.set(conversationId, readAt);
  version++;
  for (const l of listeners) l();
}

/** Whether this tab has already marked the conversation read up to `lastMessageAt`. */
export function readHere(conversationId: string, lastMessageAt: string): boolean {
  const at = marks.get(conversationId);
  return at !== undefined && at >= lastMessageAt;
}

/**
 * Unread for the person, as the list shows it: unread by the API's mark, unless it is the conversation open
 * beside the list (on screen: it marks itself read as content arrives) or this tab has marked it read since
 * (up to its newest message; anything later is unread again).
 */
export function shownUnread(
  c: Pick<ConversationSummary, 'id' | 'unread' | 'lastMessageAt'>,
  openId: string | undefined,
  isReadHere: (id: string, lastMessageAt: string) => boolean = readHere,
): boolean {
  return c.unread && c.id !== openId && !isReadHere(c.id, c.lastMessageAt);
}

/** Re-renders the caller when this tab makes a read mark. */
export function useReadMarks(): void {
  useSyncExternalStore(subscribe, () => version);
}
