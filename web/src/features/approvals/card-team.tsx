import { useState } from 'react';
import type { PendingAction } from '../../../../shared/src/contracts/conversations';
import { ApiError, describeError } from '../../lib/api';
import { clockTime } from '../../lib/format';
import { useApi, useMe } from '../auth/auth-context';
import { usePresence, type Viewer } from './use-presence';

/**
 * The team around a waiting card (cards #18): who else has it open ("Sam Chen is viewing"), who took it
 * ("Jo Patel is on it · 10:02"), "I'm on it" to take it and "Release" to give it back. A claim is a note,
 * not a lock: everyone keeps Approve / Redraft / Deny.
 */
export function CardTeam({
  action,
  onChanged,
}: {
  action: PendingAction;
  onChanged: (updated?: PendingAction) => void;
}) {
  const pending = action.status === 'PENDING';
  const viewers = usePresence(action.conversationId, pending);
  const me = useMe();
  const api = useApi();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!pending) return null;
  const mine = action.claim?.by === me.id;

  async function change(how: 'claim' | 'release') {
    setBusy(true);
    setError(null);
    try {
      onChanged((await api[how](action.conversationId, action.id)).action);
    } catch (e) {
      if (e instanceof ApiError && e.currentAction) onChanged(e.currentAction);
      else setError(describeError(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="card-team">
      {viewers.length > 0 && (
        <p className="presence" role="status">
          <span className="presence-dot" aria-hidden="true" /> {viewingText(viewers)}
        </p>
      )}
      <div className="claim-row">
        {action.claim && (
          <p className="claim-line">
            {mine ? 'You are on it' : `${action.claim.name} is on it`}
            <span className="muted"> · {clockTime(action.claim.at)}</span>
          </p>
        )}
        {mine ? (
          <button
            type="button"
            className="btn btn-small btn-ghost"
            disabled={busy}
            onClick={() => void change('release')}
          >
            {busy ? 'Releasing…' : 'Release'}
          </button>
        ) : (
          <button
            type="button"
            className="btn btn-small btn-ghost"
            disabled={busy}
            onClick={() => void change('claim')}
          >
            {busy ? 'Claiming…' : 'I’m on it'}
          </button>
        )}
      </div>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function viewingText(viewers: Viewer[]): string {
  const names = viewers.map((v) => v.name);
  if (names.length === 1) return `${names[0]} is viewing`;
  if (names.length === 2) return `${names[0]} and ${names[1]} are viewing`;
  return `${names[0]}, ${names[1]} and ${names.length - 2} more are viewing`;
}
