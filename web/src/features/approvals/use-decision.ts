import { useState } from 'react';
import type { PendingAction } from '../../../../shared/src/contracts/conversations';
import { ApiError, describeError } from '../../lib/api';
import { useApi } from '../auth/auth-context';

export type Decision =
  | { kind: 'approve'; editedArgs?: Record<string, unknown> }
  | { kind: 'deny'; reason?: string; redraft?: boolean }
  | { kind: 'redraft'; instruction: string }
  | { kind: 'answer'; answers: Array<{ recordAs: string; holds: boolean; value?: string }> };

const DONE: Record<string, string> = {
  DENIED: 'denied',
  SUPERSEDED: 'replaced',
  EXPIRED: 'let expire',
  APPROVED: 'approved',
  EXECUTING: 'approved',
  EXECUTED: 'approved',
  FAILED: 'approved',
};

/**
 * Sends a decision on a card (approve, deny, redraft, answers). A 409 carries the card as it now stands
 * (someone else decided first): that is shown as a notice saying what became of this person's own edit,
 * which stays on screen to copy, not as an error.
 */
export function useDecision(action: PendingAction, onDecided: (updated?: PendingAction) => void) {
  const api = useApi();
  const [busy, setBusy] = useState<Decision['kind'] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [lost, setLost] = useState<PendingAction | null>(null);

  async function send(d: Decision) {
    const { conversationId: cid, id } = action;
    switch (d.kind) {
      case 'approve':
        return api.approve(cid, id, d.editedArgs);
      case 'deny':
        return api.deny(cid, id, d.reason, d.redraft);
      case 'redraft':
        return api.redraft(cid, id, d.instruction);
      case 'answer':
        return api.answer(cid, id, d.answers);
    }
  }

  async function decide(d: Decision, opts: { edited?: boolean } = {}) {
    setBusy(d.kind);
    setError(null);
    try {
      const res = await send(d);
      onDecided(res.action);
    } catch (e) {
      const current = e instanceof ApiError ? e.currentAction : undefined;
      if (current) {
        const who = current.decidedBy ?? 'Someone';
        const what = DONE[current.status] ?? current.status.toLowerCase();
        setNotice(
          `${who} already ${what} this.${opts.edited ? ' Your edit was not sent; it is kept below to copy.' : ''}`,
        );
        if (opts.edited) setLost(current);
        onDecided(current);
      } else {
        setError(describeError(e));
      }
    } finally {
      setBusy(null);
    }
  }

  return { busy, error, notice, lost, decide };
}
