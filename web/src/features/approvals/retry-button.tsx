import { useState } from 'react';
import type { PendingAction } from '../../../../shared/src/contracts/conversations';
import { describeError } from '../../lib/api';
import { useApi } from '../auth/auth-context';

/**
 * On a FAILED card: ask for the same write again. The API makes a new card (its own approval); this one
 * stays as the record of what failed and why.
 */
export function RetryButton({
  action,
  onRetried,
}: {
  action: PendingAction;
  onRetried: (card?: PendingAction) => void;
}) {
  const api = useApi();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (action.status !== 'FAILED') return null;
  if (action.retriedAs) return <p className="muted retry-note">Retried as a new card below.</p>;
  async function retry() {
    setBusy(true);
    setError(null);
    try {
      onRetried((await api.retry(action.conversationId, action.id)).action);
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="approval-buttons">
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void retry()}>
        {busy ? 'Creating a new card…' : 'Retry'}
      </button>
    </div>
  );
}
