import { useRef } from 'react';

/**
 * A new chat's first turn names the conversation it started, and the screen moves to that conversation's URL
 * (use-chat-turn.ts). Beside the list the conversation pane is keyed on the conversation, so that one
 * conversation's live turn never carries over into another; the pane keeps the new chat's screen across this
 * one move, or the streamed answer would blink out until the stored conversation has loaded.
 */
let startedByNewChat: string | undefined;

/** Called by a new chat's turn just before it moves to the conversation it started. */
export function newChatBecame(conversationId: string) {
  startedByNewChat = conversationId;
}

/** The conversation pane's key: the conversation shown, except right after a new chat became it. */
export function useChatPaneKey(id: string | undefined): string {
  const pane = useRef({ id, key: id ?? 'new-0', news: 0 });
  const was = pane.current;
  if (was.id !== id) {
    const became = was.id === undefined && id !== undefined && id === startedByNewChat;
    if (became) startedByNewChat = undefined;
    const news = id === undefined ? was.news + 1 : was.news;
    pane.current = { id, key: became ? was.key : (id ?? `new-${news}`), news };
  }
  return pane.current.key;
}
