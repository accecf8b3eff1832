import { expect, test } from 'vitest';
import type { ChatUIMessage, ConversationDetail } from '../../../../shared/src/contracts/api';
import type { Message } from '../../../../shared/src/contracts/conversations';
import { foldLiveTurn, type TurnEnd } from './fold-live-turn';

const ANSWER = 'The plumber comes Thursday at 3.';

const stored = (id: string, role: Message['role'], text: string, at: string): Message => ({
  id,
  conversationId: 'c_1',
  role,
  text,
  createdAt: `2026-11-24T20:00:${at}.000Z`,
  author:
    role === 'user' ? { kind: 'user', name: 'Sam', id: 'u_sam' } : { kind: 'assistant', name: 'Switchboard' },
});
const detail = (messages: Message[]) =>
  ({
    conversation: { id: 'c_1' },
    messages,
    actions: [],
    run: null,
    lock: null,
  }) as unknown as ConversationDetail;

const earlier = stored('m_0', 'assistant', 'Earlier answer.', '01');
const question = stored('m_1', 'user', 'How is Oak St?', '10');
const answer = stored('m_2', 'assistant', ANSWER, '12');
/** The turn as useChat holds it: the person's message (a client id) and the streamed answer `a_<opener id>`. */
const live: ChatUIMessage[] = [
  { id: 'local_1', role: 'user', parts: [{ type: 'text', text: 'How is Oak St?' }] },
  { id: 'a_m_1', role: 'assistant', parts: [{ type: 'text', text: ANSWER, state: 'done' }] },
];
const ended: TurnEnd = { sentBefore: 4, liveIds: ['local_1', 'a_m_1'] };

/** How often the screen would show `text`: stored messages plus the live turn's text parts. */
function shown(view: ReturnType<typeof foldLiveTurn>, text: string) {
  const inStored = view.stored?.messages.filter((m) => m.text === text).length ?? 0;
  const inLive = view.live.flatMap((m) => m.parts).filter((p) => p.type === 'text' && p.text === text);
  return inStored + inLive.length;
}

test('a view asked for before the turn ended (answered late) holds the answer: shown once, by the live turn', () => {
  const view = foldLiveTurn(detail([earlier, question, answer]), 4, live, ended);
  expect(view.folded).toBe(false);
  expect(view.stored?.messages.map((m) => m.id)).toEqual(['m_0']);
  expect(view.live).toBe(live);
  expect(shown(view, ANSWER)).toBe(1);
  expect(shown(view, 'How is Oak St?')).toBe(1);
});

test('a reload while the turn still streams shows the turn once: stored records from its opener on wait', () => {
  const view = foldLiveTurn(detail([earlier, question, answer]), 7, live, null);
  expect(view.stored?.messages.map((m) => m.id)).toEqual(['m_0']);
  expect(shown(view, ANSWER)).toBe(1);
});

test('the first view asked for after the end folds the turn back in the same render', () => {
  const view = foldLiveTurn(detail([earlier, question, answer]), 5, live, ended);
  expect(view.folded).toBe(true);
  expect(view.live).toEqual([]);
  expect(view.stored?.messages.map((m) => m.id)).toEqual(['m_0', 'm_1', 'm_2']);
  expect(shown(view, ANSWER)).toBe(1);
  // Once the screen drops the ended messages from useChat, the same view is shown (by id, so idempotent).
  const after = foldLiveTurn(detail([earlier, question, answer]), 5, [], ended);
  expect(after).toEqual(view);
});

test('a turn sent after the last one ended stays live through the fold-back of the one before', () => {
  const next: ChatUIMessage[] = [
    ...live,
    { id: 'local_2', role: 'user', parts: [{ type: 'text', text: 'And Elm St?' }] },
    { id: 'a_m_3', role: 'assistant', parts: [{ type: 'text', text: 'Elm St is', state: 'streaming' }] },
  ];
  const asked = stored('m_3', 'user', 'And Elm St?', '20');
  const view = foldLiveTurn(detail([earlier, question, answer, asked]), 5, next, ended);
  expect(view.live.map((m) => m.id)).toEqual(['local_2', 'a_m_3']);
  expect(view.stored?.messages.map((m) => m.id)).toEqual(['m_0', 'm_1', 'm_2']);
});

test('before its stream starts a turn has no opener yet: the stored view is left whole', () => {
  const sending = live.slice(0, 1);
  const view = foldLiveTurn(detail([earlier]), 2, sending, null);
  expect(view.stored?.messages.map((m) => m.id)).toEqual(['m_0']);
  expect(view.live).toBe(sending);
  expect(foldLiveTurn(undefined, 0, sending, null).stored).toBeUndefined();
});

test('before the answer streams, a view that already holds the person’s message shows it once', () => {
  const asked: ChatUIMessage[] = [
    { id: 'local_2', role: 'user', parts: [{ type: 'text', text: 'How is Oak St?' }] },
  ];
  const view = foldLiveTurn(detail([earlier, question]), 3, asked, null);
  expect(shown(view, 'How is Oak St?')).toBe(1);
  expect(view.stored?.messages.map((m) => m.id)).toEqual(['m_0', 'm_1']);
  // Not yet stored: the live copy is the only one, so it stays.
  expect(shown(foldLiveTurn(detail([earlier]), 3, asked, null), 'How is Oak St?')).toBe(1);
  // Once the answer streams, the stored copy waits and the live turn shows it (the opener rule).
  const streaming = foldLiveTurn(detail([earlier, question]), 3, [...asked, live[1] as ChatUIMessage], null);
  expect(shown(streaming, 'How is Oak St?')).toBe(1);
});
