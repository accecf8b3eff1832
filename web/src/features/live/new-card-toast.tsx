import { useEffect, useState } from 'react';
import { useLiveUpdates } from '../../lib/live';
import { chatPath, Link, useLocation } from '../../lib/router';
import { useApi } from '../auth/auth-context';
import { contactName } from '../conversations/source-icon';

interface Toast {
  conversationId: string;
  who?: string;
  summary?: string;
}

/** How long a toast stays unless the person acts on it (long enough to read on a phone). */
const TOAST_MS = 10_000;

/**
 * "A new card is waiting": the in-app toast for a card created while the app is open on another screen
 * (the open conversation shows the card itself). It names who it is about and what is proposed when the
 * conversation can be read, and links to it.
 */
export function NewCardToast() {
  const api = useApi();
  const { path, query } = useLocation();
  const openId = path === '/chat' ? query.get('id') : null;
  const [toast, setToast] = useState<Toast | null>(null);

  useLiveUpdates((u) => {
    if (u.type !== 'card.changed' || u.status !== 'PENDING' || u.update || u.conversationId === openId)
      return;
    setToast({ conversationId: u.conversationId });
    void api
      .conversation(u.conversationId)
      .then((d) => {
        const card = d.actions.find((a) => a.id === u.actionId);
        setToast((t) =>
          t?.conversationId === u.conversationId
            ? { ...t, who: contactName(d.conversation), ...(card ? { summary: card.summary } : {}) }
            : t,
        );
      })
      .catch(() => undefined);
  });

  useEffect(() => {
    if (!toast) return;
    const t = window.setTimeout(() => setToast(null), TOAST_MS);
    return () => window.clearTimeout(t);
  }, [toast]);

  return (
    <div className="toast-region" role="status" aria-live="polite">
      {toast && (
        <div className="toast">
          <div className="toast-text">
            <strong>
              {toast.who ? `${toast.who}: waiting for approval` : 'A new card is waiting for approval'}
            </strong>
            {toast.summary && <span>{toast.summary}</span>}
          </div>
          <Link
            href={chatPath(toast.conversationId)}
            className="btn btn-primary"
            onClick={() => setToast(null)}
          >
            Open
          </Link>
          <button
            type="button"
            className="icon-btn toast-close"
            aria-label="Dismiss"
            onClick={() => setToast(null)}
          >
            ×
          </button>
        </div>
      )}
    </div>
  );
}
