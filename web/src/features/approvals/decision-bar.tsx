import { useEffect, useRef, useState } from 'react';
import type { Decision } from './use-decision';

type Mode = 'idle' | 'deny' | 'redraft';

type DecisionBarProps = {
  id: string;
  busy: Decision['kind'] | null;
  edited: boolean;
  canApprove: boolean;
  onApprove: () => void;
  onDeny: (reason: string, redraft: boolean) => void;
  onRedraft: (instruction: string) => void;
};

/**
 * Approve / Redraft… / Deny. Deny takes an optional reason that goes back to the assistant; "Deny & redraft"
 * has it draft again with the reason, "Deny" only stops. Redraft… takes an instruction ("say Saturday 11am", "shorter").
 * Approve is disabled while an edited field is empty.
 */
export function DecisionBar(props: DecisionBarProps) {
  const [mode, setMode] = useState<Mode>('idle');
  // Kept here, not in the form: a reason typed, then Back, then Redraft… is still there.
  const [text, setText] = useState('');
  if (mode === 'idle') return <DecisionButtons {...props} onMode={setMode} />;
  return <ReasonForm {...props} mode={mode} text={text} onText={setText} onBack={() => setMode('idle')} />;
}

function DecisionButtons(props: DecisionBarProps & { onMode: (m: Mode) => void }) {
  const { busy } = props;
  return (
    <div className="approval-buttons three">
      <button
        type="button"
        className="btn btn-ghost"
        disabled={busy !== null}
        onClick={() => props.onMode('deny')}
      >
        Deny
      </button>
      <button
        type="button"
        className="btn btn-ghost"
        disabled={busy !== null}
        onClick={() => props.onMode('redraft')}
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

/** The deny reason or the redraft instruction, with its own buttons. */
function ReasonForm(
  props: DecisionBarProps & {
    mode: Exclude<Mode, 'idle'>;
    text: string;
    onText: (text: string) => void;
    onBack: () => void;
  },
) {
  const { id, busy, mode, text } = props;
  const textRef = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    // The person just opened a form: bring its field above the sticky input and into focus.
    textRef.current?.focus({ preventScroll: true });
    textRef.current?.scrollIntoView({ block: 'center' });
  }, []);
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
        onChange={(e) => props.onText(e.target.value)}
      />
      <div className={`approval-buttons${denying && reason ? ' three' : ''}`}>
        <button type="button" className="btn btn-ghost" disabled={busy !== null} onClick={props.onBack}>
          Back
        </button>
        {denying ? <DenyButtons {...props} reason={reason} /> : <RedraftButton {...props} reason={reason} />}
      </div>
    </div>
  );
}

function DenyButtons({ busy, onDeny, reason }: DecisionBarProps & { reason: string }) {
  return (
    <>
      <button
        type="button"
        className="btn btn-danger"
        disabled={busy !== null}
        onClick={() => onDeny(reason, false)}
      >
        {busy === 'deny' ? 'Denying…' : 'Deny'}
      </button>
      {reason && (
        <button
          type="button"
          className="btn btn-primary"
          disabled={busy !== null}
          onClick={() => onDeny(reason, true)}
        >
          Redraft with reason
        </button>
      )}
    </>
  );
}

function RedraftButton({ busy, onRedraft, reason }: DecisionBarProps & { reason: string }) {
  return (
    <button
      type="button"
      className="btn btn-primary"
      disabled={busy !== null || !reason}
      onClick={() => onRedraft(reason)}
    >
      {busy === 'redraft' ? 'Asking…' : 'Redraft'}
    </button>
  );
}
