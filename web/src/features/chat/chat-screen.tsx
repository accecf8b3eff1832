import { useEffect, useRef, useState } from 'react';
import { Shell } from '../../components/shell';
import { Banner, EmptyState, ErrorState, Loading } from '../../components/states';
import { ApiError, describeError } from '../../lib/api';
import { formatPhone } from '../../lib/format';
import { loadWithOfflineCopy } from '../../lib/offline-store';
import { usePageVisible } from '../../lib/page-visible';
import { Link } from '../../lib/router';
import { useResource } from '../../lib/use-resource';
import { useApi, useMe } from '../auth/auth-context';
import { ConversationActions } from '../conversations/conversation-actions';
import { noteRead, readHere } from '../conversations/read-marks';
import { contactName } from '../conversations/source-icon';
import { FollowUpList } from '../followups/followup-list';
import { Composer } from './composer';
import { foldLiveTurn, type TurnEnd } from './fold-live-turn';
import { LiveTurn } from './live-turn';
import { threadLabel } from './thread-label';
import { Timeline } from './timeline';
import { type ChatTurnScreen, useChatTurn, useChatTurnRefs } from './use-chat-turn';

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

type Detail = Awaited<ReturnType<ReturnType<typeof useApi>['conversation']>>;
type ChatTurn = ReturnType<typeof useChatTurn>;

/**
 * One conversation (or a new chat when there is no id). The stored conversation is the truth and is polled
 * while visible; a turn the person sends is streamed live through useChat and, once it ends, folded back
 * into the stored view.
 */
export function ChatScreen({ id }: { id?: string }) {
  const me = useMe();
  const refs = useChatTurnRefs(id);
  const turn = useChatTurn(refs);
  const { chat, busy } = turn;
  const detail = useConversationDetail(id, busy, refs);
  const data = detail.data ?? undefined;
  const view = useFoldBack(detail, chat, refs);

  useMarkRead(id, data?.conversation);
  const bottom = useLandingScroll(id, data, view.live.length);
  const onDecided = () => void detail.reload();
  const notFound = detail.error instanceof ApiError && detail.error.status === 404;
  const conversation = data?.conversation;
  const title = conversation ? contactName(conversation) : id ? 'Conversation' : 'New chat';
  // Until the first chunk arrives (behind API Gateway the whole answer arrives at once) and while a run
  // started elsewhere (an inbound text, a decision) is still going.
  const working = chat.status === 'submitted' || (!busy && data?.run?.status === 'running');

  return (
    <Shell
      title={title}
      subtitle={conversation ? conversationSubtitle(conversation) : undefined}
      back="/"
      tabs={false}
      actions={
        conversation && (
          <ConversationActions
            conversation={conversation}
            onError={(m) => turn.setSendError(m)}
            onChanged={onDecided}
          />
        )
      }
      footer={!notFound && <ChatComposer id={id} data={data} turn={turn} />}
    >
      <ChatStates id={id} detail={detail} liveCount={view.live.length} notFound={notFound} />
      {data?.followups?.length ? <FollowUpList followups={data.followups} onChanged={onDecided} /> : null}
      {view.stored && <Timeline detail={view.stored} meId={me.id} onDecided={onDecided} />}
      {view.live.length > 0 && (
        <LiveTurn
          messages={view.live}
          stored={data?.actions}
          contact={conversation?.contact}
          onDecided={onDecided}
        />
      )}
      {working && <WorkingNote />}
      {turn.sendError && <Banner kind="error">{turn.sendError}</Banner>}
      <div ref={bottom} />
    </Shell>
  );
}

/**
 * The conversation on screen is read: marked once per new content that arrives while it is open (its newest
 * message's time changes), and not while the page is hidden (then once it is back). The list learns the mark
 * from read-marks.ts: its page was fetched for the same change, before the mark.
 */
function useMarkRead(id: string | undefined, conversation: Detail['conversation'] | undefined) {
  const api = useApi();
  const visible = usePageVisible();
  const unread = conversation?.unread;
  const lastMessageAt = conversation?.lastMessageAt;
  useEffect(() => {
    if (!id || !unread || !lastMessageAt || !visible || readHere(id, lastMessageAt)) return;
    void api
      .markRead(id, lastMessageAt)
      .then(({ readAt }) => noteRead(id, readAt))
      .catch(() => undefined);
  }, [api, id, unread, lastMessageAt, visible]);
}

/** The stored conversation, polled while visible (not while a turn streams) and on live updates. */
function useConversationDetail(id: string | undefined, busy: boolean, refs: ChatTurnScreen) {
  const api = useApi();
  const { idRef, reloadRef } = refs;
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
  return detail;
}

/**
 * The stored view and the live turn as the screen shows them (fold-live-turn.ts). Once a turn has folded back,
 * its messages are also dropped from useChat, so the next turn starts from an empty live list.
 */
function useFoldBack(
  detail: ReturnType<typeof useConversationDetail>,
  chat: ChatTurn['chat'],
  refs: ChatTurnScreen,
) {
  const [end, setEnd] = useState<TurnEnd | null>(null);
  const { sent } = detail;
  refs.endedRef.current = (live) => setEnd({ sentBefore: sent(), liveIds: live.map((m) => m.id) });
  const view = foldLiveTurn(detail.data ?? undefined, detail.loadedBy, chat.messages, end);
  const { setMessages } = chat;
  useEffect(() => {
    // `end` stays: folding by id is idempotent, so no render in between can show the turn twice.
    if (view.folded && end) setMessages((ms) => ms.filter((m) => !end.liveIds.includes(m.id)));
  }, [view.folded, end, setMessages]);
  return view;
}

/**
 * First load: land on the card that waits for a decision (a notification deep link is about it);
 * afterwards follow new messages to the bottom. Returns the ref of the end marker.
 */
function useLandingScroll(id: string | undefined, data: Detail | null | undefined, liveCount: number) {
  const bottom = useRef<HTMLDivElement>(null);
  const landed = useRef<string | undefined>(undefined);
  const count = (data?.messages.length ?? 0) + (data?.actions.length ?? 0) + liveCount;
  useEffect(() => {
    if (count === 0) return;
    const pendingCard =
      landed.current !== id && data?.lock ? document.getElementById(`card-${data.lock.actionId}`) : null;
    if (data) landed.current = id;
    if (pendingCard) pendingCard.scrollIntoView({ block: 'start' });
    else if (bottom.current) scrollAboveComposer(bottom.current);
  }, [count, id, data]);
  return bottom;
}

function conversationSubtitle(conversation: Detail['conversation']) {
  return [
    threadLabel(conversation),
    // The number, unless it already is the title (an unknown number has no other name).
    conversation.contact?.name &&
    conversation.contact.phone &&
    conversation.contact.name !== conversation.contact.phone
      ? formatPhone(conversation.contact.phone)
      : undefined,
    // Where a lead stands (follow #20): "Lead: waiting on us".
    conversation.lead ? `Lead: ${conversation.lead.state.replace(/_/g, ' ')}` : undefined,
  ]
    .filter(Boolean)
    .join(' · ');
}

function ChatComposer({ id, data, turn }: { id?: string; data: Detail | undefined; turn: ChatTurn }) {
  const { restoreText, chat } = turn;
  return (
    <Composer
      key={restoreText?.n ?? 0}
      initialText={restoreText?.text ?? ''}
      lock={data?.lock ?? null}
      busy={turn.busy || (Boolean(id) && !data)}
      onSend={(text) => {
        turn.setSendError(null);
        void chat.sendMessage({ text });
      }}
      onShowCard={(actionId) =>
        document.getElementById(`card-${actionId}`)?.scrollIntoView({ behavior: 'smooth', block: 'center' })
      }
    />
  );
}

/** Empty, loading, missing and failed states of the conversation pane. */
function ChatStates({
  id,
  detail,
  liveCount,
  notFound,
}: {
  id?: string;
  detail: ReturnType<typeof useConversationDetail>;
  liveCount: number;
  notFound: boolean;
}) {
  const data = detail.data ?? undefined;
  return (
    <>
      {!id && liveCount === 0 && (
        <EmptyState title="Ask Switchboard">
          <p>
            It can text or email someone for you (you approve before anything is sent), put things on the
            calendar, create tasks, or look something up.
          </p>
          <p className="examples">“Text Maria that the plumber comes tomorrow at 9”</p>
        </EmptyState>
      )}
      {/* A new chat that just became its conversation shows its turn while the stored view loads. */}
      {id && detail.loading && !data && liveCount === 0 && <Loading label="Loading the conversation…" />}
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
      {data && data.messages.length === 0 && data.actions.length === 0 && liveCount === 0 && (
        <EmptyState title="Nothing here yet" />
      )}
    </>
  );
}

function WorkingNote() {
  return (
    <p className="progress-note" role="status">
      <span className="typing" aria-hidden="true">
        <i />
        <i />
        <i />
      </span>
      Switchboard is working…
    </p>
  );
}
