import type { ChatUIMessage, ConversationDetail } from '../../../../shared/src/contracts/api';

/** Where a streamed turn ended: the last request sent by then, and the live messages it left (by id). */
export interface TurnEnd {
  sentBefore: number;
  liveIds: string[];
}

/** The assistant's streamed message is `a_<id of the stored message that opened the turn>` (functions/api/chat-stream.ts). */
const TURN_PREFIX = 'a_';

/**
 * What the conversation screen shows while a turn streams and once it has ended: the stored conversation and
 * the live turn (useChat's messages), never the same record twice whichever order the loads land in.
 * - A turn that ended folds back into the stored view as soon as the view comes from a request sent after the
 *   end (`loadedBy > end.sentBefore`): the server stores every record before it streams it and before the
 *   stream closes, so that view holds everything the live turn showed. An earlier request (sent mid-turn,
 *   answered late) does not fold it. The decision is made here, in the render that shows the new view, not
 *   in an effect one render later (that commit showed the answer twice: the e2e streaming test, phone).
 * - Until then the live turn shows the turn: the stored records from the message that opened it on (by id)
 *   are left out of the stored view. Cards are the exception: the stored card is the one to act on, and the
 *   live turn leaves its copy out (LiveTurn, by card id).
 */
export function foldLiveTurn(
  stored: ConversationDetail | undefined,
  loadedBy: number,
  live: ChatUIMessage[],
  end: TurnEnd | null,
): { stored: ConversationDetail | undefined; live: ChatUIMessage[]; folded: boolean } {
  const folded = end !== null && loadedBy > end.sentBefore;
  // By id, not by position: the same answer whether or not the ended messages have been dropped from `live` yet.
  const shownLive = folded ? live.filter((m) => !end.liveIds.includes(m.id)) : live;
  if (!stored) return { stored, live: shownLive, folded };
  const opener = turnOpener(shownLive);
  const from = opener ? stored.messages.findIndex((m) => m.id === opener) : -1;
  const openedAt = stored.messages[from]?.createdAt;
  if (openedAt === undefined) return { stored, live: withoutEcho(shownLive, stored), folded };
  // Before the opener in the list or in time: from before the turn (whichever order the store lists them in).
  const before = stored.messages.filter((m, i) => i < from || m.createdAt < openedAt);
  return { stored: { ...stored, messages: before }, live: shownLive, folded };
}

/**
 * Before the answer's stream starts (a card decided at once, a slow first token), a view loaded after the
 * person's message was stored holds it too: the live copy of that last message is left out, so it shows once.
 * Only the newest live message, only when it is the person's and the stored view's newest message of theirs
 * says the same; once the stream starts, the opener rule above takes over (the stored copy is left out).
 */
function withoutEcho(live: ChatUIMessage[], stored: ConversationDetail): ChatUIMessage[] {
  const last = live.at(-1);
  if (last?.role !== 'user') return live;
  const said = last.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
  const storedLast = stored.messages.findLast((m) => m.role === 'user');
  return storedLast && storedLast.text === said ? live.slice(0, -1) : live;
}

/** The id of the stored message that opened the first live turn, once its stream has started. */
function turnOpener(live: ChatUIMessage[]): string | undefined {
  const first = live.find((m) => m.role === 'assistant' && m.id.startsWith(TURN_PREFIX));
  return first?.id.slice(TURN_PREFIX.length);
}
