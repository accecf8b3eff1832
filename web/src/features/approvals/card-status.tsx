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

export function StatusChip({ action }: { action: PendingAction }) {
  return <span className={`chip chip-${action.status.toLowerCase()}`}>{STATUS_TEXT[action.status]}</span>;
}

/** What became of the card once decided: approved and sending, sent, failed with the reason, denied, expired. */
export function Outcome({ action }: { action: PendingAction }) {
  const by = action.decidedBy ? ` by ${action.decidedBy}` : '';
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
          ✓ Sent{action.executedAt ? ` at ${clockTime(action.executedAt)}` : ''} · approved{by}
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
