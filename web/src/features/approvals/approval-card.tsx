import { useEffect, useId, useRef, useState } from 'react';
import type { PendingAction, ReviewScore } from '../../../../shared/src/contracts/conversations';
import { ApiError, describeError } from '../../lib/api';
import { clockTime, formatPhone } from '../../lib/format';
import { useApi } from '../auth/auth-context';
import { RetryButton } from './retry-button';
import { fieldLabel, toolView } from './tool-views';

type ContactLike = { name?: string; phone?: string; email?: string } | undefined;

/**
 * One write the assistant wants to make, shown exactly as it would go out: to whom, the text (editable in
 * place while the card is pending), why the policy allows it and how the reviewer scored it. Approve sends
 * the edited text if it was changed; deny takes an optional reason that goes back to the assistant.
 */
export function ApprovalCard({
  action,
  contact,
  onDecided,
}: {
  action: PendingAction;
  contact?: ContactLike;
  onDecided: (updated?: PendingAction) => void;
}) {
  const api = useApi();
  const view = toolView(action.tool, action.args);
  const editable = view.editable.filter((k) => typeof action.args[k] === 'string');
  const [draft, setDraft] = useState<Record<string, string>>(() =>
    Object.fromEntries(editable.map((k) => [k, String(action.args[k])])),
  );
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState<'approve' | 'deny' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const ids = useId();
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    // The person just pressed Deny: bring the reason field above the sticky input and into focus.
    if (!denying) return;
    reasonRef.current?.focus({ preventScroll: true });
    reasonRef.current?.scrollIntoView({ block: 'center' });
  }, [denying]);

  const pending = action.status === 'PENDING';
  const edited = editable.some((k) => draft[k] !== action.args[k]);
  const emptyField = editable.find((k) => !draft[k]?.trim());
  const others = Object.entries(action.args).filter(
    ([k]) => !view.recipients.includes(k) && !editable.includes(k),
  );

  async function decide(kind: 'approve' | 'deny') {
    setBusy(kind);
    setError(null);
    try {
      const res =
        kind === 'approve'
          ? await api.approve(
              action.conversationId,
              action.id,
              edited ? { ...action.args, ...draft } : undefined,
            )
          : await api.deny(action.conversationId, action.id, reason.trim() || undefined);
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

  const Icon = view.icon;
  return (
    <article
      className={`card approval status-${action.status.toLowerCase()}`}
      aria-labelledby={`${ids}-title`}
      data-action-id={action.id}
      data-status={action.status}
    >
      <header className="approval-head">
        <span className="approval-icon">
          <Icon />
        </span>
        <div className="approval-title">
          <h3 id={`${ids}-title`}>{view.label}</h3>
          <StatusChip action={action} />
        </div>
      </header>

      {view.recipients
        .filter((k) => action.args[k] !== undefined)
        .map((k) => (
          <p key={k} className="approval-recipient">
            <span className="field-label">{fieldLabel(k)}</span>
            <span>{recipientText(action.args[k], contact)}</span>
          </p>
        ))}

      {editable.map((k) => {
        const max = view.maxLength?.[k];
        const value = pending ? (draft[k] ?? '') : String(action.args[k]);
        return (
          <div key={k} className="approval-field">
            <label htmlFor={`${ids}-${k}`} className="field-label">
              {fieldLabel(k)}
              {pending && <span className="muted"> · tap to edit</span>}
            </label>
            {pending ? (
              <textarea
                id={`${ids}-${k}`}
                className="draft"
                value={value}
                rows={Math.min(10, Math.max(k === 'subject' ? 1 : 3, Math.ceil(value.length / 38)))}
                maxLength={max}
                onChange={(e) => setDraft((d) => ({ ...d, [k]: e.target.value }))}
              />
            ) : (
              <p id={`${ids}-${k}`} className="draft readonly">
                {value}
              </p>
            )}
            {pending && max && (
              <span className={`counter${value.length > max * 0.9 ? ' warn' : ''}`}>
                {value.length}/{max}
              </span>
            )}
          </div>
        );
      })}

      {others.length > 0 && (
        <dl className="approval-args">
          {others.map(([k, v]) => (
            <div key={k}>
              <dt>{fieldLabel(k)}</dt>
              <dd>{typeof v === 'string' ? v : JSON.stringify(v)}</dd>
            </div>
          ))}
        </dl>
      )}

      {action.edit && !pending && <p className="tag-edited">Edited before approval</p>}
      {pending && edited && <p className="tag-edited">Edited — your version is what will be sent.</p>}

      {pending ? (
        <Insights action={action} />
      ) : (
        <details className="decided-details">
          <summary>Review and policy</summary>
          <Insights action={action} />
        </details>
      )}

      <Outcome action={action} />
      <RetryButton action={action} onRetried={onDecided} />

      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}

      {pending && !denying && (
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
            disabled={busy !== null || Boolean(emptyField)}
            onClick={() => void decide('approve')}
          >
            {busy === 'approve' ? 'Approving…' : edited ? 'Approve edited' : 'Approve'}
          </button>
        </div>
      )}
      {pending && denying && (
        <div className="deny-form">
          <label htmlFor={`${ids}-reason`} className="field-label">
            Reason <span className="muted">(optional, goes back to the assistant)</span>
          </label>
          <textarea
            id={`${ids}-reason`}
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
              onClick={() => void decide('deny')}
            >
              {busy === 'deny' ? 'Denying…' : 'Deny'}
            </button>
          </div>
        </div>
      )}
    </article>
  );
}

function recipientText(value: unknown, contact: ContactLike): string {
  const one = (v: unknown) => {
    const s = String(v);
    if (contact?.phone && s === contact.phone && contact.name) return `${contact.name} · ${formatPhone(s)}`;
    if (contact?.email && s.toLowerCase() === contact.email.toLowerCase() && contact.name)
      return `${contact.name} · ${s}`;
    return s.startsWith('+') ? formatPhone(s) : s;
  };
  return Array.isArray(value) ? value.map(one).join(', ') : one(value);
}

const STATUS_TEXT: Record<PendingAction['status'], string> = {
  PENDING: 'Needs approval',
  APPROVED: 'Approved',
  EXECUTING: 'Sending',
  EXECUTED: 'Sent',
  FAILED: 'Failed',
  DENIED: 'Denied',
  EXPIRED: 'Expired',
};

function StatusChip({ action }: { action: PendingAction }) {
  return <span className={`chip chip-${action.status.toLowerCase()}`}>{STATUS_TEXT[action.status]}</span>;
}

function Outcome({ action }: { action: PendingAction }) {
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
    default:
      return null;
  }
}

/** The reviewer's scores and the policy's reasoning; what is missing stays visible, the rest folds away. */
function Insights({ action }: { action: PendingAction }) {
  const reviews = [
    ['Plan review', action.review?.plan],
    ['Result review', action.review?.execution],
  ].filter((r): r is [string, ReviewScore] => Boolean(r[1]));
  const why = action.policy?.why ?? [];
  const missing = action.policy?.missing;
  const missingItems = [...(missing?.questions ?? []), ...(missing?.tools ?? []).map((t) => `Look up: ${t}`)];
  return (
    <div className="insights">
      {action.reason && <p className="approval-reason">{action.reason}</p>}
      {missingItems.length > 0 && (
        <div className="missing">
          <strong>What is missing</strong>
          <ul>
            {missingItems.map((m) => (
              <li key={m}>{m}</li>
            ))}
          </ul>
        </div>
      )}
      {reviews.map(([label, r]) => (
        <details key={label} className="review">
          <summary>
            {label}{' '}
            <span className={`score score-${r.score >= 8 ? 'good' : r.score >= 6 ? 'ok' : 'low'}`}>
              {r.score}/10
            </span>
            {r.issues.length > 0 && (
              <span className="muted">
                {' '}
                · {r.issues.length} note{r.issues.length > 1 ? 's' : ''}
              </span>
            )}
          </summary>
          <ul className="score-grid">
            <li>Relevance {r.relevance}</li>
            <li>Completeness {r.completeness}</li>
            <li>Safety {r.safety}</li>
            <li>Quality {r.quality}</li>
          </ul>
          {r.issues.length > 0 && (
            <ul className="issues">
              {r.issues.map((i) => (
                <li key={i}>{i}</li>
              ))}
            </ul>
          )}
          <p className="muted small">
            Scored by the {r.reviewer === 'model' ? 'model' : 'rule-based'} reviewer.
          </p>
        </details>
      ))}
      {why.length > 0 && (
        <details className="why">
          <summary>Why this is allowed</summary>
          <ul>
            {why.map((w) => (
              <li key={w}>
                <code>{w}</code>
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
