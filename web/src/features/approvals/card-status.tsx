import type { PendingAction } from '../../../../shared/src/contracts/conversations';
import { clockTime } from '../../lib/format';

const STATUS_TEXT: Record<PendingAction['status'], string> = {
  PENDING: 'Needs approval',
  APPROVED: 'Approved',
  EXECUTING: 'Sending',
  EXECUTED: 'Sent',
  FAILED: 'Failed',
  DENIED: 'Denied',
  EXPIRED: 'Expired',
  SUPERSEDED: 'Replaced',
};

/** What a done write is called: a task is "Created", not "Sent" (cards #18). */
const DONE_VERB: Record<string, string> = {
  create_task: 'Created',
  update_task: 'Updated',
  delete_task: 'Deleted',
  create_contact: 'Added',
  update_contact: 'Updated',
  delete_contact: 'Deleted',
  create_calendar_event: 'Created',
  schedule_followup: 'Scheduled',
  propose_policy_change: 'Saved',
  escalate: 'Paged',
};
export const doneVerb = (tool: string) => DONE_VERB[tool] ?? 'Sent';

export function StatusChip({ action }: { action: PendingAction }) {
  const text = action.status === 'EXECUTED' ? doneVerb(action.tool) : STATUS_TEXT[action.status];
  return <span className={`chip chip-${action.status.toLowerCase()}`}>{text}</span>;
}

/**
 * The decider as a person reads them: the name recorded with the decision; "the team policy" for a card the
 * policy approved; for an old card with only an address, the name part of it ("sam@…" → "Sam").
 */
export function deciderName(action: Pick<PendingAction, 'decidedBy' | 'decidedByName'>): string | undefined {
  if (action.decidedByName) return action.decidedByName;
  const by = action.decidedBy;
  if (!by) return undefined;
  if (by === 'policy') return 'the team policy';
  const local = by.includes('@') ? (by.split('@')[0] ?? by) : by;
  return local.charAt(0).toUpperCase() + local.slice(1);
}

/** What became of the card once decided: approved and sending, sent, failed with the reason, denied, expired. */
export function Outcome({ action }: { action: PendingAction }) {
  const who = deciderName(action);
  const by = who ? ` by ${who}` : '';
  const at = action.decidedAt ? ` at ${clockTime(action.decidedAt)}` : '';
  switch (action.status) {
    case 'APPROVED':
      return (
        <p className="outcome">
          Approved{by}
          {at} · sending…
        </p>
      );
    case 'EXECUTING':
      return <p className="outcome">Approved{by} · sending now…</p>;
    case 'EXECUTED':
      return (
        <p className="outcome outcome-ok">
          ✓ {doneVerb(action.tool)}
          {action.executedAt ? ` at ${clockTime(action.executedAt)}` : ''} · approved{by}
        </p>
      );
    case 'FAILED':
      return (
        <div className="outcome outcome-failed" role="alert">
          <strong>Not sent.</strong> {action.error ?? 'The send failed without a reason.'}
          {action.decidedBy && <span className="muted"> Approved{by}.</span>}
        </div>
      );
    case 'DENIED':
      return (
        <p className="outcome outcome-denied">
          Denied{by}
          {at}
          {action.denyReason ? <>: “{action.denyReason}”</> : ''}
        </p>
      );
    case 'EXPIRED':
      return <p className="outcome">Expired without a decision.</p>;
    case 'SUPERSEDED':
      return (
        <p className="outcome outcome-superseded">
          Withdrawn{at}: {action.supersededReason ?? 'a newer draft replaces it.'}
        </p>
      );
    default:
      return null;
  }
}
