import { useEffect, useRef, useState } from 'react';
import type { PendingAction } from '../../../../shared/src/contracts/conversations';
import { ApiError, describeError } from '../../lib/api';
import { clockTime } from '../../lib/format';
import { useApi } from '../auth/auth-context';
import { deciderName } from './card-status';

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
 * (someone else decided first): that is shown as a notice naming who did what and when, and saying what
 * became of this person's own words (their edit, reason or instruction), which stay on screen to copy —
 * not as an error.
 */
export function useDecision(
  action: PendingAction,
  onDecided: (updated?: PendingAction) => void,
  /** The person's unsent edit, if any: kept to copy when someone else decides the card under them. */
  unsent?: () => { text: string; what: string } | undefined,
) {
  const api = useApi();
  const [busy, setBusy] = useState<Decision['kind'] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  /** The person's own words that were not used because someone else decided first, kept to copy. */
  const [lost, setLost] = useState<{ text: string; what: string } | null>(null);
  const sent = useRef(false);
  const unsentRef = useRef(unsent);
  unsentRef.current = unsent;

  // Decided by someone else while this person was editing (the live update refreshed the card): say so and
  // keep their edit to copy, rather than swapping the draft for the decided one without a word.
  const wasPending = useRef(action.status === 'PENDING');
  useEffect(() => {
    const pending = action.status === 'PENDING';
    if (wasPending.current && !pending && !sent.current) {
      const mine = unsentRef.current?.();
      if (mine?.text.trim()) {
        setNotice(lostNotice(action, mine.what));
        setLost(mine);
      }
    }
    wasPending.current = pending;
  }, [action]);

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

  /** `mine`: what this person wrote for this decision (an edit, a reason, an instruction), if anything. */
  async function decide(d: Decision, mine?: { text: string; what: string }) {
    setBusy(d.kind);
    setError(null);
    sent.current = true;
    try {
      const res = await send(d);
      onDecided(res.action);
    } catch (e) {
      const current = e instanceof ApiError ? e.currentAction : undefined;
      if (current) {
        setNotice(lostNotice(current, mine?.what));
        if (mine?.text.trim()) setLost(mine);
        onDecided(current);
      } else {
        sent.current = false;
        setError(describeError(e));
      }
    } finally {
      setBusy(null);
    }
  }

  return { busy, error, notice, lost, decide };
}

/** "Jo Patel already approved this at 10:02. Your edit was not sent; it is kept below to copy." */
function lostNotice(current: PendingAction, what: string | undefined): string {
  const who = deciderName(current) ?? 'Someone';
  const did = DONE[current.status] ?? current.status.toLowerCase();
  const at = current.decidedAt ? ` at ${clockTime(current.decidedAt)}` : '';
  const yours = what ? ` Your ${what} was not used; it is kept below to copy.` : '';
  return `${who} already ${did} this${at}.${yours}`;
}
