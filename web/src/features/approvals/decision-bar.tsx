import { useEffect, useRef, useState } from 'react';

/**
 * Approve / Deny, and the deny form with an optional reason that goes back to the assistant. Approve is
 * disabled while an edited field is empty.
 */
export function DecisionBar(props: {
  id: string;
  busy: 'approve' | 'deny' | null;
  edited: boolean;
  canApprove: boolean;
  onApprove: () => void;
  onDeny: (reason: string) => void;
}) {
  const { id, busy } = props;
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState('');
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    // The person just pressed Deny: bring the reason field above the sticky input and into focus.
    if (!denying) return;
    reasonRef.current?.focus({ preventScroll: true });
    reasonRef.current?.scrollIntoView({ block: 'center' });
  }, [denying]);

  if (!denying) {
    return (
      <div className="approval-buttons">
        <button
          type="button"
          className="btn btn-ghost"
          disabled={busy !== null}
          onClick={() => setDenying(true)}
        >
          Deny
        </button>
        <button
          type="button"
          className="btn btn-primary"
          disabled={busy !== null || !props.canApprove}
          onClick={props.onApprove}
        >
          {busy === 'approve' ? 'Approving…' : props.edited ? 'Approve edited' : 'Approve'}
        </button>
      </div>
    );
  }
  return (
    <div className="deny-form">
      <label htmlFor={`${id}-reason`} className="field-label">
        Reason <span className="muted">(optional, goes back to the assistant)</span>
      </label>
      <textarea
        id={`${id}-reason`}
        ref={reasonRef}
        rows={2}
        value={reason}
        maxLength={1000}
        placeholder="e.g. Maria already called; no text needed"
        onChange={(e) => setReason(e.target.value)}
      />
      <div className="approval-buttons">
        <button
          type="button"
          className="btn btn-ghost"
          disabled={busy !== null}
          onClick={() => setDenying(false)}
        >
          Back
        </button>
        <button
          type="button"
          className="btn btn-danger"
          disabled={busy !== null}
          onClick={() => props.onDeny(reason)}
        >
          {busy === 'deny' ? 'Denying…' : 'Deny'}
        </button>
      </div>
    </div>
  );
}
