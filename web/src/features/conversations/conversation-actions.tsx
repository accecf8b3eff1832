import { useState } from 'react';
import type { ConversationSummary } from '../../../../shared/src/contracts/api';
import { CheckIcon, MoreIcon } from '../../components/icons';
import { describeError } from '../../lib/api';
import { Link, navigate } from '../../lib/router';
import { useApi, useMe } from '../auth/auth-context';
import { LeadMenuItems } from '../followups/lead-menu';
import './conversation-actions.css';

type Status = 'open' | 'done' | 'archived';

/** Saves a blob as a file through a temporary link (the download attribute names it). */
function save(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * The conversation's own actions in its top bar: Done (one tap: it leaves the inbox and comes back when
 * something new arrives), and under "More": archive, the timeline, and for admins export and delete.
 */
export function ConversationActions({
  conversation,
  onError,
  onChanged,
}: {
  conversation: Pick<ConversationSummary, 'id' | 'status' | 'lead'>;
  onError: (message: string) => void;
  /** After a change that stays on this screen (a lead's state): reload the conversation. */
  onChanged?: () => void;
}) {
  const api = useApi();
  const me = useMe();
  const [busy, setBusy] = useState(false);
  const status: Status = conversation.status ?? 'open';
  const set = async (to: Status) => {
    setBusy(true);
    try {
      await api.setStatus(conversation.id, to);
      // Done with it: back to what still needs a person.
      if (to !== 'open') navigate('/');
    } catch (e) {
      onError(describeError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button
        type="button"
        className="icon-btn"
        disabled={busy}
        aria-label={status === 'open' ? 'Mark done' : 'Reopen'}
        aria-pressed={status !== 'open'}
        onClick={() => void set(status === 'open' ? 'done' : 'open')}
      >
        <CheckIcon />
      </button>
      <details className="menu">
        <summary className="icon-btn" aria-label="More actions">
          <MoreIcon />
        </summary>
        <div className="menu-list">
          {conversation.lead && (
            <LeadMenuItems
              conversationId={conversation.id}
              lead={conversation.lead}
              onChanged={() => onChanged?.()}
              onError={onError}
            />
          )}
          <Link href={`/timeline?id=${encodeURIComponent(conversation.id)}`} className="menu-item">
            Timeline
          </Link>
          <button
            type="button"
            className="menu-item"
            disabled={busy}
            onClick={() => void set(status === 'archived' ? 'open' : 'archived')}
          >
            {status === 'archived' ? 'Unarchive' : 'Archive'}
          </button>
          {me.isAdmin && <AdminItems id={conversation.id} onError={onError} />}
        </div>
      </details>
    </>
  );
}

/** Admins only: the conversation as a file, and delete (its own confirm screen). */
function AdminItems({ id, onError }: { id: string; onError: (message: string) => void }) {
  const api = useApi();
  const exportFile = async () => {
    try {
      save(await api.exportConversation(id), `conversation-${id}.json`);
    } catch (e) {
      onError(describeError(e));
    }
  };
  return (
    <>
      <button type="button" className="menu-item" onClick={() => void exportFile()}>
        Export (JSON)
      </button>
      <Link href={`/admin/delete?id=${encodeURIComponent(id)}`} className="menu-item danger">
        Delete…
      </Link>
    </>
  );
}
