import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';
import { type MutableRefObject, useMemo, useRef, useState } from 'react';
import { type ChatUIMessage, chatDataPartSchemas } from '../../../../shared/src/contracts/api';
import { describeError } from '../../lib/api';
import { chatPath, navigate } from '../../lib/router';
import { signedBodyFetch } from '../../lib/signed-fetch';
import { useAuth } from '../auth/auth-context';
import { newChatBecame } from './new-chat';

/** What the chat turn needs from the screen: the open conversation's id and how to reload it. */
export interface ChatTurnScreen {
  idRef: MutableRefObject<string | undefined>;
  reloadRef: MutableRefObject<() => Promise<unknown>>;
  /**
   * Called when a turn ended (before the reload that follows it) with the live messages it left: they give way
   * to the stored ones once a view asked for after this lands (fold-live-turn.ts).
   */
  endedRef: MutableRefObject<(live: ChatUIMessage[]) => void>;
}

const textOf = (m: ChatUIMessage | undefined) =>
  m?.parts.map((p) => (p.type === 'text' ? p.text : '')).join('') ?? '';

/**
 * The turn a person sends, streamed live through useChat. The server keeps the history, so a request is
 * only the new text and its conversation; a refused turn (4xx) gives the text back to the composer.
 */
export function useChatTurn(screen: ChatTurnScreen) {
  const auth = useAuth();
  const [sendError, setSendError] = useState<string | null>(null);
  const [restoreText, setRestoreText] = useState<{ text: string; n: number } | null>(null);
  const { idRef, reloadRef, endedRef } = screen;

  const transport = useMemo(
    () =>
      new DefaultChatTransport<ChatUIMessage>({
        api: '/api/chat',
        // Behind CloudFront OAC: session beside the signature, and the body's hash for the signature.
        fetch: signedBodyFetch,
        headers: async (): Promise<Record<string, string>> => {
          const token = await auth.getToken();
          return token ? { authorization: `Bearer ${token}` } : {};
        },
        // The server keeps the history; a turn is just the new text and which conversation it belongs to.
        prepareSendMessagesRequest: ({ messages }) => ({
          body: {
            text: textOf(messages.at(-1)),
            ...(idRef.current ? { conversationId: idRef.current } : {}),
          },
        }),
      }),
    [auth, idRef],
  );

  const chat = useChat<ChatUIMessage>({
    transport,
    dataPartSchemas: chatDataPartSchemas,
    onFinish: ({ message, messages, isError, isAbort }) => {
      // useChat stops its turn when the screen unmounts (the person went back to the inbox, or picked another
      // conversation beside the list), and that stop still ends here: the turn carries on on the server and its
      // conversation shows up in the list, but whatever they are reading now is not taken from them.
      if (isError || isAbort) return;
      const run = message.parts.find((p) => p.type === 'data-run');
      const conversationId = run?.type === 'data-run' ? run.data.conversationId : undefined;
      endedRef.current(messages);
      if (conversationId && conversationId !== idRef.current) {
        if (idRef.current === undefined) newChatBecame(conversationId);
        navigate(chatPath(conversationId), { replace: true });
      } else void reloadRef.current();
    },
    onError: (e) => {
      setSendError(describeError(e));
      // A refused turn (4xx: e.g. the conversation got locked meanwhile) was not stored: give the text back.
      const status = (e as { statusCode?: number }).statusCode;
      const last = chat.messages.at(-1);
      if (status && status < 500 && last?.role === 'user') {
        const text = textOf(last);
        setRestoreText((r) => ({ text, n: (r?.n ?? 0) + 1 }));
      }
      if (idRef.current) {
        endedRef.current(chat.messages);
        void reloadRef.current();
      } else {
        chat.setMessages([]);
      }
    },
  });
  const busy = chat.status === 'submitted' || chat.status === 'streaming';
  return { chat, busy, sendError, setSendError, restoreText };
}

/** The refs the screen shares with its chat turn (kept across renders). */
export function useChatTurnRefs(id: string | undefined): ChatTurnScreen {
  const idRef = useRef(id);
  idRef.current = id;
  const reloadRef = useRef<() => Promise<unknown>>(async () => undefined);
  const endedRef = useRef<(live: ChatUIMessage[]) => void>(() => undefined);
  return useMemo(() => ({ idRef, reloadRef, endedRef }), []);
}
