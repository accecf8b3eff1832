import type { ConversationSummary } from '../../../../shared/src/contracts/api';
import { RefreshIcon } from '../../components/icons';
import { Shell } from '../../components/shell';
import { Banner, EmptyState, ErrorState, Loading } from '../../components/states';
import { describeError } from '../../lib/api';
import { shortTime } from '../../lib/format';
import { loadWithOfflineCopy } from '../../lib/offline-store';
import { chatPath, Link } from '../../lib/router';
import { useResource } from '../../lib/use-resource';
import { useApi } from '../auth/auth-context';
import { contactName, SourceIcon } from './source-icon';

/** The team's shared inbox: every conversation the assistant or a teammate started, newest first. */
export function ConversationList() {
  const api = useApi();
  const list = useResource(() => loadWithOfflineCopy('inbox', () => api.conversations()), 'conversations', {
    intervalMs: 10_000,
    refreshOn: (u) => 'conversationId' in u && u.type !== 'presence',
  });
  const items = list.data?.conversations;
  const waiting = items?.reduce((n, c) => n + c.pendingCount, 0) ?? 0;

  return (
    <Shell
      title="Inbox"
      subtitle={waiting > 0 ? `${waiting} waiting for approval` : undefined}
      actions={
        <button type="button" className="icon-btn" aria-label="Refresh" onClick={() => void list.reload()}>
          <RefreshIcon />
        </button>
      }
    >
      {list.loading && !items && <Loading label="Loading conversations…" />}
      {list.error !== undefined && !items && (
        <ErrorState message={describeError(list.error)} onRetry={() => void list.reload()} />
      )}
      {list.error !== undefined && items && (
        <Banner kind="error">Could not refresh: {describeError(list.error)}</Banner>
      )}
      {items && items.length === 0 && (
        <EmptyState title="No conversations yet">
          Texts and emails the assistant handles show up here, and so do your chats.{' '}
          <Link href="/chat">Start a chat</Link>.
        </EmptyState>
      )}
      {items && items.length > 0 && (
        <ul className="conv-list">
          {items.map((c) => (
            <ConversationRow key={c.id} c={c} />
          ))}
        </ul>
      )}
    </Shell>
  );
}

function ConversationRow({ c }: { c: ConversationSummary }) {
  return (
    <li>
      <Link
        href={chatPath(c.id)}
        className={`conv-row${c.unread ? ' unread' : ''}`}
        data-conversation-id={c.id}
      >
        <SourceIcon source={c.source} />
        <span className="conv-main">
          <span className="conv-top">
            <span className="conv-name">{contactName(c)}</span>
            <time dateTime={c.lastMessageAt}>{shortTime(c.lastMessageAt)}</time>
          </span>
          <span className="conv-bottom">
            <span className="conv-preview">{c.preview || c.title}</span>
            {c.pendingCount > 0 && (
              <span className="badge badge-pending" title="Waiting for approval">
                {c.pendingCount} to approve
              </span>
            )}
            {c.unread && <span className="dot-unread" role="img" aria-label="Unread" />}
          </span>
        </span>
      </Link>
    </li>
  );
}
