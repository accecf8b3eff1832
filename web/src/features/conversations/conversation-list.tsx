import { useLayoutEffect, useRef, useState } from 'react';
import type { ConversationSummary, InboxFilter } from '../../../../shared/src/contracts/api';
import { RefreshIcon } from '../../components/icons';
import { Shell } from '../../components/shell';
import { Banner, EmptyState, ErrorState, Loading } from '../../components/states';
import { describeError } from '../../lib/api';
import { clockTime, shortTime } from '../../lib/format';
import { loadWithOfflineCopy } from '../../lib/offline-store';
import { chatPath, Link } from '../../lib/router';
import { useResource } from '../../lib/use-resource';
import { useApi, useMe } from '../auth/auth-context';
import { NotificationPrompt } from '../push/notification-prompt';
import { InboxSearch } from './inbox-search';
import { shownUnread, useReadMarks } from './read-marks';
import { contactName, previewText, SourceIcon } from './source-icon';

const FILTERS: Array<{ id: InboxFilter; label: string }> = [
  { id: 'all', label: 'All' },
  { id: 'needs_approval', label: 'Needs approval' },
  { id: 'urgent', label: 'Urgent' },
  { id: 'leads', label: 'Leads' },
  { id: 'mine', label: 'Mine' },
  { id: 'done', label: 'Done' },
];

/**
 * The team's shared inbox, ordered by what needs a person (the API's order): urgent first, then cards
 * waiting, then the rest by time; filters, search, and older pages on demand.
 */
export function ConversationList({ selectedId }: { selectedId?: string | undefined } = {}) {
  const [filter, setFilter] = useState<InboxFilter>('all');
  const inbox = useInboxPages(filter);
  const { list, items, nextCursor } = inbox;
  useKeepPlace(items);
  useReadMarks();

  return (
    <Shell
      title="Inbox"
      subtitle={inbox.waiting > 0 ? `${inbox.waiting} waiting for approval` : undefined}
      actions={
        <button type="button" className="icon-btn" aria-label="Refresh" onClick={() => void list.reload()}>
          <RefreshIcon />
        </button>
      }
    >
      <NotificationPrompt />
      <InboxSearch />
      <FilterChips
        filter={filter}
        onFilter={(f) => {
          setFilter(f);
          inbox.resetOlder();
        }}
      />
      {list.loading && !items && <Loading label="Loading conversations…" />}
      {list.error !== undefined && !items && (
        <ErrorState message={describeError(list.error)} onRetry={() => void list.reload()} />
      )}
      {list.error !== undefined && items && (
        <Banner kind="error">Could not refresh: {describeError(list.error)}</Banner>
      )}
      {items && items.length === 0 && <EmptyInbox filter={filter} />}
      {items && items.length > 0 && (
        <ul className="conv-list">
          {items.map((c) => (
            <ConversationRow
              key={c.id}
              c={c}
              selected={c.id === selectedId}
              unread={shownUnread(c, selectedId)}
            />
          ))}
        </ul>
      )}
      {nextCursor && (
        <button type="button" className="btn load-more" onClick={() => void inbox.loadOlder()}>
          Show older conversations
        </button>
      )}
    </Shell>
  );
}

/** The first page (polled, and refreshed on live updates) plus the older pages the person asked for. */
function useInboxPages(filter: InboxFilter) {
  const api = useApi();
  const [older, setOlder] = useState<{ items: ConversationSummary[]; cursor?: string } | null>(null);
  const list = useResource(
    // Only the default view is kept for offline use.
    () =>
      filter === 'all'
        ? loadWithOfflineCopy('inbox', () => api.conversations())
        : api.conversations({ filter }),
    `conversations:${filter}`,
    { intervalMs: 10_000, refreshOn: (u) => 'conversationId' in u && u.type !== 'presence' },
  );
  const first = list.data?.conversations;
  const items = first ? [...first, ...(older?.items ?? [])] : undefined;
  const nextCursor = older ? older.cursor : list.data?.nextCursor;
  const loadOlder = async () => {
    if (!nextCursor) return;
    const page = await api.conversations({ filter, cursor: nextCursor });
    setOlder((o) => ({
      items: [...(o?.items ?? []), ...page.conversations],
      ...(page.nextCursor ? { cursor: page.nextCursor } : {}),
    }));
  };
  return {
    list,
    items,
    nextCursor,
    waiting: first?.reduce((n, c) => n + c.pendingCount, 0) ?? 0,
    loadOlder,
    resetOlder: () => setOlder(null),
  };
}

function FilterChips({ filter, onFilter }: { filter: InboxFilter; onFilter: (f: InboxFilter) => void }) {
  return (
    <fieldset className="filters">
      <legend className="visually-hidden">Show</legend>
      {FILTERS.map((f) => (
        <button
          key={f.id}
          type="button"
          className={`filter-chip${filter === f.id ? ' active' : ''}`}
          aria-pressed={filter === f.id}
          onClick={() => onFilter(f.id)}
        >
          {f.label}
        </button>
      ))}
    </fieldset>
  );
}

function EmptyInbox({ filter }: { filter: InboxFilter }) {
  return (
    <EmptyState title={filter === 'all' ? 'No conversations yet' : 'Nothing here'}>
      {filter === 'all' ? (
        <>
          Texts and emails the assistant handles show up here, and so do your chats.{' '}
          <Link href="/chat">Start a chat</Link>
        </>
      ) : (
        'No conversation matches this filter.'
      )}
    </EmptyState>
  );
}

/**
 * A refresh that adds a row above the one being read must not push it down the screen (browsers without
 * scroll anchoring, Safari among them, would): the row at the top of the viewport stays where it was.
 */
function useKeepPlace(items: ConversationSummary[] | undefined) {
  const anchor = useRef<{ id: string; top: number } | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs after each change of the rows on purpose
  useLayoutEffect(() => {
    const a = anchor.current;
    if (a && window.scrollY > 0) {
      const el = document.querySelector(`[data-conversation-id="${CSS.escape(a.id)}"]`);
      if (el) window.scrollBy(0, el.getBoundingClientRect().top - a.top);
    }
    const onScroll = () => {
      const rows = document.querySelectorAll<HTMLElement>('.conv-list [data-conversation-id]');
      const visible = [...rows].find((r) => r.getBoundingClientRect().bottom > 80);
      anchor.current = visible
        ? { id: visible.dataset.conversationId ?? '', top: visible.getBoundingClientRect().top }
        : null;
    };
    onScroll();
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, [items]);
}

function ConversationRow({
  c,
  selected,
  unread,
}: {
  c: ConversationSummary;
  selected: boolean;
  /** Unread for this person as the list shows it (read-marks.ts), not only the page's own mark. */
  unread: boolean;
}) {
  const me = useMe();
  const urgent = c.urgent && (c.status ?? 'open') === 'open';
  return (
    <li>
      <Link
        href={chatPath(c.id)}
        className={`conv-row${unread ? ' unread' : ''}${urgent ? ' urgent' : ''}${selected ? ' selected' : ''}`}
        aria-current={selected ? 'true' : undefined}
        data-conversation-id={c.id}
      >
        <SourceIcon source={c.source} />
        <span className="conv-main">
          {urgent && c.urgent && (
            <span className="marker marker-urgent">
              Urgent
              {c.urgent.pagedAt
                ? ` · on-call paged at ${clockTime(c.urgent.pagedAt)}`
                : ` · ${clockTime(c.urgent.at)}`}
            </span>
          )}
          <span className="conv-top">
            <span className="conv-name">{contactName(c)}</span>
            <time dateTime={c.lastMessageAt}>{shortTime(c.lastMessageAt)}</time>
          </span>
          <span className="conv-bottom">
            <span className="conv-preview">{previewText(c)}</span>
            {c.pendingCount > 0 && (
              <span className="badge badge-pending" title="Waiting for approval">
                {c.pendingCount} to approve
              </span>
            )}
            {unread && <span className="dot-unread" role="img" aria-label="Unread" />}
          </span>
          {(c.lead || c.claimedBy || c.assignee === me.id) && (
            <span className="conv-markers">
              {c.lead && (
                <span className="marker marker-lead">Lead · {c.lead.state.replaceAll('_', ' ')}</span>
              )}
              {c.claimedBy && (
                <span className="marker marker-claimed">
                  {c.claimedBy === me.id ? 'Claimed by you' : 'Claimed'}
                </span>
              )}
              {!c.claimedBy && c.assignee === me.id && <span className="marker marker-claimed">Yours</span>}
            </span>
          )}
        </span>
      </Link>
    </li>
  );
}
