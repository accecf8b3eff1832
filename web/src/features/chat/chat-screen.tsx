import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';
import { useEffect, useMemo, useRef, useState } from 'react';
import { type ChatUIMessage, chatDataPartSchemas } from '../../../../shared/src/contracts/api';
import { Shell } from '../../components/shell';
import { Banner, EmptyState, ErrorState, Loading } from '../../components/states';
import { ApiError, describeError } from '../../lib/api';
import { formatPhone } from '../../lib/format';
import { loadWithOfflineCopy } from '../../lib/offline-store';
import { chatPath, Link, navigate } from '../../lib/router';
import { signedBodyFetch } from '../../lib/signed-fetch';
import { useResource } from '../../lib/use-resource';
import { useApi, useAuth, useMe } from '../auth/auth-context';
import { ConversationActions } from '../conversations/conversation-actions';
import { contactName } from '../conversations/source-icon';
import { FollowUpList } from '../followups/followup-list';
import { Composer } from './composer';
import { LiveTurn } from './live-turn';
import { Timeline } from './timeline';

/** The open conversation is kept for offline use; only the last one opened (a phone holds little else). */
async function lastConversation<T extends { conversation: { id: string } }>(
  id: string,
  load: () => Promise<T>,
) {
  const detail = await loadWithOfflineCopy('conversation', load);
  if (detail.conversation.id !== id) throw new TypeError('offline, and this conversation was not kept');
  return detail;
}

/**
 * The end of the conversation, scrolled to just above the composer: the composer is sticky and grows (a lock
 * notice, several lines), so "the end at the bottom of the viewport" would put the last reply under it.
 */
function scrollAboveComposer(end: HTMLElement) {
  const composer = end.closest('.shell')?.querySelector('.composer');
  end.style.scrollMarginBottom = `${Math.ceil(composer?.getBoundingClientRect().height ?? 0) + 8}px`;
  end.scrollIntoView({ block: 'end' });
}

const SOURCE_LABEL = { sms: 'Text messages', email: 'Email', chat: 'Team chat' } as const;

/**
 * One conversation (or a new chat when there is no id). The stored conversation is the truth and is polled
 * while visible; a turn the person sends is streamed live through useChat and, once it ends, folded back
 * into the stored view.
 */
export function ChatScreen({ id }: { id?: string }) {
  const api = useApi();
  const auth = useAuth();
  const me = useMe();
  const idRef = useRef(id);
  idRef.current = id;
  const reloadRef = useRef<() => Promise<unknown>>(async () => undefined);
  const clearLiveOnLoad = useRef(false);
  const [sendError, setSendError] = useState<string | null>(null);
  const [restoreText, setRestoreText] = useState<{ text: string; n: number } | null>(null);

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
        prepareSendMessagesRequest: ({ messages }) => {
          const last = messages.at(-1);
          const text = last?.parts.map((p) => (p.type === 'text' ? p.text : '')).join('') ?? '';
          return { body: { text, ...(idRef.current ? { conversationId: idRef.current } : {}) } };
        },
      }),
    [auth],
  );

  const chat = useChat<ChatUIMessage>({
    transport,
    dataPartSchemas: chatDataPartSchemas,
    onFinish: ({ message, isError }) => {
      if (isError) return;
      const run = message.parts.find((p) => p.type === 'data-run');
      const conversationId = run?.type === 'data-run' ? run.data.conversationId : undefined;
      clearLiveOnLoad.current = true;
      if (conversationId && conversationId !== idRef.current)
        navigate(chatPath(conversationId), { replace: true });
      else void reloadRef.current();
    },
    onError: (e) => {
      setSendError(describeError(e));
      // A refused turn (4xx: e.g. the conversation got locked meanwhile) was not stored: give the text back.
      const status = (e as { statusCode?: number }).statusCode;
      const last = chat.messages.at(-1);
      if (status && status < 500 && last?.role === 'user') {
        const text = last.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
        setRestoreText((r) => ({ text, n: (r?.n ?? 0) + 1 }));
      }
      if (idRef.current) {
        clearLiveOnLoad.current = true;
        void reloadRef.current();
      } else {
        chat.setMessages([]);
      }
    },
  });
  const busy = chat.status === 'submitted' || chat.status === 'streaming';

  const detail = useResource(
    () => (id ? lastConversation(id, () => api.conversation(id)) : Promise.resolve(null)),
    `conversation:${id ?? 'new'}`,
    {
      intervalMs: 3000,
      paused: busy,
      refreshOn: (u) => u.type !== 'presence' && 'conversationId' in u && u.conversationId === idRef.current,
    },
  );
  reloadRef.current = detail.reload;
  const data = detail.data ?? undefined;

  // A finished turn is replaced by the stored records as soon as they have been reloaded.
  const setLive = chat.setMessages;
  useEffect(() => {
    if (!data || !clearLiveOnLoad.current) return;
    clearLiveOnLoad.current = false;
    setLive([]);
  }, [data, setLive]);

  const unread = data?.conversation.unread;
  const lastMessageAt = data?.conversation.lastMessageAt;
  useEffect(() => {
    if (id && unread && lastMessageAt) void api.markRead(id).catch(() => undefined);
  }, [api, id, unread, lastMessageAt]);

  // First load: land on the card that waits for a decision (a notification deep link is about it);
  // afterwards follow new messages to the bottom.
  const bottom = useRef<HTMLDivElement>(null);
  const landed = useRef<string | undefined>(undefined);
  const count = (data?.messages.length ?? 0) + (data?.actions.length ?? 0) + chat.messages.length;
  useEffect(() => {
    if (count === 0) return;
    const pendingCard =
      landed.current !== id && data?.lock ? document.getElementById(`card-${data.lock.actionId}`) : null;
    if (data) landed.current = id;
    if (pendingCard) pendingCard.scrollIntoView({ block: 'start' });
    else if (bottom.current) scrollAboveComposer(bottom.current);
  }, [count, id, data]);

  const onDecided = () => void detail.reload();
  const notFound = detail.error instanceof ApiError && detail.error.status === 404;
  const conversation = data?.conversation;
  const title = conversation ? contactName(conversation) : id ? 'Conversation' : 'New chat';
  const subtitle = conversation
    ? [
        SOURCE_LABEL[conversation.source],
        conversation.contact?.name && conversation.contact.phone
          ? formatPhone(conversation.contact.phone)
          : undefined,
        // Where a lead stands (follow #20): "Lead: waiting on us".
        conversation.lead ? `Lead: ${conversation.lead.state.replace(/_/g, ' ')}` : undefined,
      ]
        .filter(Boolean)
        .join(' · ')
    : undefined;
  // Until the first chunk arrives (behind API Gateway the whole answer arrives at once) and while a run
  // started elsewhere (an inbound text, a decision) is still going.
  const working = chat.status === 'submitted' || (!busy && data?.run?.status === 'running');

  return (
    <Shell
      title={title}
      subtitle={subtitle}
      back="/"
      tabs={false}
      actions={
        conversation && <ConversationActions conversation={conversation} onError={(m) => setSendError(m)} />
      }
      footer={
        !notFound && (
          <Composer
            key={restoreText?.n ?? 0}
            initialText={restoreText?.text ?? ''}
            lock={data?.lock ?? null}
            busy={busy || (Boolean(id) && !data)}
            onSend={(text) => {
              setSendError(null);
              void chat.sendMessage({ text });
            }}
            onShowCard={(actionId) =>
              document
                .getElementById(`card-${actionId}`)
                ?.scrollIntoView({ behavior: 'smooth', block: 'center' })
            }
          />
        )
      }
    >
      {!id && chat.messages.length === 0 && (
        <EmptyState title="Ask Switchboard">
          <p>
            It can text or email someone for you (you approve before anything is sent), put things on the
            calendar, create tasks, or look something up.
          </p>
          <p className="examples">“Text Maria that the plumber comes tomorrow at 9”</p>
        </EmptyState>
      )}
      {id && detail.loading && !data && <Loading label="Loading the conversation…" />}
      {notFound && (
        <EmptyState title="This conversation does not exist">
          It may have been removed, or the link is incomplete. <Link href="/">Back to the inbox</Link>
        </EmptyState>
      )}
      {id && !notFound && detail.error !== undefined && !data && (
        <ErrorState message={describeError(detail.error)} onRetry={() => void detail.reload()} />
      )}
      {data && detail.error !== undefined && (
        <Banner kind="error">Could not refresh: {describeError(detail.error)}</Banner>
      )}
      {data && data.messages.length === 0 && data.actions.length === 0 && chat.messages.length === 0 && (
        <EmptyState title="Nothing here yet" />
      )}
      {data?.followups?.length ? <FollowUpList followups={data.followups} onChanged={onDecided} /> : null}
      {data && <Timeline detail={data} meId={me.id} onDecided={onDecided} />}
      {chat.messages.length > 0 && (
        <LiveTurn messages={chat.messages} contact={conversation?.contact} onDecided={onDecided} />
      )}
      {working && (
        <p className="progress-note" role="status">
          <span className="typing" aria-hidden="true">
            <i />
            <i />
            <i />
          </span>
          Switchboard is working…
        </p>
      )}
      {sendError && <Banner kind="error">{sendError}</Banner>}
      <div ref={bottom} />
    </Shell>
  );
}
