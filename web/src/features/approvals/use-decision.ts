import { useState } from 'react';
import type { PendingAction } from '../../../../shared/src/contracts/conversations';
import { ApiError, describeError } from '../../lib/api';
import { useApi } from '../auth/auth-context';

export type Decision =
  | { kind: 'approve'; editedArgs?: Record<string, unknown> }
  | { kind: 'deny'; reason?: string };

/**
 * Sends a decision on a card. A 409 carries the card as it now stands (someone else decided first): that is
 * shown as a notice and handed on, not as an error.
 */
export function useDecision(action: PendingAction, onDecided: (updated?: PendingAction) => void) {
  const api = useApi();
  const [busy, setBusy] = useState<'approve' | 'deny' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  async function decide(d: Decision) {
    setBusy(d.kind);
    setError(null);
    try {
      const res =
        d.kind === 'approve'
          ? await api.approve(action.conversationId, action.id, d.editedArgs)
          : await api.deny(action.conversationId, action.id, d.reason);
      onDecided(res.action);
    } catch (e) {
      const current = e instanceof ApiError ? e.currentAction : undefined;
      if (current) {
        setNotice(
          `${current.decidedBy ?? 'Someone'} already ${current.status === 'DENIED' ? 'denied' : 'approved'} this.`,
        );
        onDecided(current);
      } else {
        setError(describeError(e));
      }
    } finally {
      setBusy(null);
    }
  }

  return { busy, error, notice, decide };
}
