import { useState } from 'react';
import type { FollowUp } from '../../../../shared/src/contracts/followups';
import { describeError } from '../../lib/api';
import { useApi } from '../auth/auth-context';
import { onlyIf, when } from './describe';

const STATUS: Record<FollowUp['status'], string> = {
  scheduled: 'Scheduled',
  sending: 'Sending',
  sent: 'Sent',
  cancelled: 'Cancelled',
  failed: 'Failed',
};

/**
 * The conversation's scheduled checks: what goes to whom, when, and only if what — each waiting one with a
 * Cancel button. Finished ones stay listed (with why they were not sent) so nobody wonders.
 */
export function FollowUpList({ followups, onChanged }: { followups: FollowUp[]; onChanged: () => void }) {
  if (!followups.length) return null;
  return (
    <section className="followups" aria-labelledby="followups-title">
      <h2 id="followups-title">Scheduled checks</h2>
      <ul>
        {followups.map((f) => (
          <li key={f.id} className={`followup status-${f.status}`} data-followup-id={f.id}>
            <FollowUpRow followup={f} onChanged={onChanged} />
          </li>
        ))}
      </ul>
    </section>
  );
}

function FollowUpRow({ followup: f, onChanged }: { followup: FollowUp; onChanged: () => void }) {
  const api = useApi();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cancel = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.cancelFollowUp(f.conversationId, f.id);
      onChanged();
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <div className="followup-head">
        <strong>
          {f.kind === 'text' ? 'Text to' : 'Reminder for'} {f.toName ?? f.to}
        </strong>
        <span className={`chip chip-${f.status}`}>{STATUS[f.status]}</span>
      </div>
      <dl className="followup-facts">
        <dt>When</dt>
        <dd>
          <time dateTime={f.at}>{when(f.at)}</time>
        </dd>
        <dt>Only if</dt>
        <dd>{onlyIf(f.condition)}</dd>
      </dl>
      <p className="followup-text">“{f.text}”</p>
      {f.note && <p className="followup-note">{f.note}</p>}
      {f.status === 'scheduled' && (
        <button type="button" className="btn btn-ghost" disabled={busy} onClick={() => void cancel()}>
          {busy ? 'Cancelling…' : 'Cancel'}
        </button>
      )}
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

/** On a schedule_followup card: when and on what condition — the approval binds both with the text. */
export function ScheduleFacts({ args }: { args: Record<string, unknown> }) {
  const at = typeof args.at === 'string' ? args.at : '';
  return (
    <dl className="followup-facts on-card">
      <dt>When</dt>
      <dd>
        <time dateTime={at}>{when(at)}</time>
      </dd>
      <dt>Only if</dt>
      <dd>{onlyIf(args.condition as FollowUp['condition'])}</dd>
      <dt>Kind</dt>
      <dd>{args.kind === 'reminder' ? 'Reminder (push to the team)' : 'Text message'}</dd>
    </dl>
  );
}
