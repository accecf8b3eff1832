import { useEffect, useRef, useState } from 'react';
import type { Decision } from './use-decision';

type Mode = 'idle' | 'deny' | 'redraft';

/**
 * Approve / Redraft… / Deny. Deny takes an optional reason that goes back to the assistant; "Deny & redraft"
 * has it draft again with the reason, "Deny" only stops. Redraft… takes an instruction ("say Saturday 11am", "shorter").
 * Approve is disabled while an edited field is empty.
 */
export function DecisionBar(props: {
  id: string;
  busy: Decision['kind'] | null;
  edited: boolean;
  canApprove: boolean;
  onApprove: () => void;
  onDeny: (reason: string, redraft: boolean) => void;
  onRedraft: (instruction: string) => void;
}) {
  const { id, busy } = props;
  const [mode, setMode] = useState<Mode>('idle');
  const [text, setText] = useState('');
  const textRef = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    // The person just opened a form: bring its field above the sticky input and into focus.
    if (mode === 'idle') return;
    textRef.current?.focus({ preventScroll: true });
    textRef.current?.scrollIntoView({ block: 'center' });
  }, [mode]);

  if (mode === 'idle') {
    return (
      <div className="approval-buttons three">
        <button
          type="button"
          className="btn btn-ghost"
          disabled={busy !== null}
          onClick={() => setMode('deny')}
        >
          Deny
        </button>
        <button
          type="button"
          className="btn btn-ghost"
          disabled={busy !== null}
          onClick={() => setMode('redraft')}
        >
          Redraft…
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
  const denying = mode === 'deny';
  const reason = text.trim();
  return (
    <div className="deny-form">
      <label htmlFor={`${id}-${mode}`} className="field-label">
        {denying ? (
          <>
            Reason <span className="muted">(optional, goes back to the assistant)</span>
          </>
        ) : (
          <>
            What should change?{' '}
            <span className="muted">(a day, a time, a name, “shorter”, “more formal”…)</span>
          </>
        )}
      </label>
      <textarea
        id={`${id}-${mode}`}
        ref={textRef}
        rows={2}
        value={text}
        maxLength={1000}
        placeholder={denying ? 'e.g. Maria already called; no text needed' : 'e.g. say Saturday 11am'}
        onChange={(e) => setText(e.target.value)}
      />
      <div className={`approval-buttons${denying && reason ? ' three' : ''}`}>
        <button
          type="button"
          className="btn btn-ghost"
          disabled={busy !== null}
          onClick={() => setMode('idle')}
        >
          Back
        </button>
        {denying ? (
          <>
            <button
              type="button"
              className="btn btn-danger"
              disabled={busy !== null}
              onClick={() => props.onDeny(reason, false)}
            >
              {busy === 'deny' ? 'Denying…' : 'Deny'}
            </button>
            {reason && (
              <button
                type="button"
                className="btn btn-primary"
                disabled={busy !== null}
                onClick={() => props.onDeny(reason, true)}
              >
                Redraft with reason
              </button>
            )}
          </>
        ) : (
          <button
            type="button"
            className="btn btn-primary"
            disabled={busy !== null || !reason}
            onClick={() => props.onRedraft(reason)}
          >
            {busy === 'redraft' ? 'Asking…' : 'Redraft'}
          </button>
        )}
      </div>
    </div>
  );
}
