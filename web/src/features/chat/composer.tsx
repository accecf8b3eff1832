import { type FormEvent, type KeyboardEvent, useState } from 'react';
import { LockIcon, SendIcon } from '../../components/icons';

/**
 * The message input. While a card waits for a decision it is locked and says why (SPEC §3.2: the next word
 * in this conversation is that decision); while the assistant works on a turn it waits for the answer.
 */
export function Composer({
  lock,
  busy,
  initialText = '',
  onSend,
  onShowCard,
}: {
  lock: { reason: string; actionId: string } | null;
  busy: boolean;
  initialText?: string;
  onSend: (text: string) => void;
  onShowCard: (actionId: string) => void;
}) {
  const [text, setText] = useState(initialText);
  const disabled = Boolean(lock) || busy;
  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    const t = text.trim();
    if (!t || disabled) return;
    onSend(t);
    setText('');
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    // Enter sends on a keyboard; phones insert a newline with their own return key via the send button.
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) submit();
    if (e.key === 'Enter' && !e.shiftKey) e.preventDefault();
  };
  return (
    <footer className="composer">
      {lock && (
        <div className="lock-notice" role="status" id="composer-lock">
          <LockIcon width={16} height={16} />
          <span title={lock.reason}>Approve or deny the pending card to continue.</span>
          <button type="button" className="link-btn" onClick={() => onShowCard(lock.actionId)}>
            Show card
          </button>
        </div>
      )}
      <form onSubmit={submit} className="composer-row">
        <textarea
          aria-label="Message"
          aria-describedby={lock ? 'composer-lock' : undefined}
          placeholder={
            lock ? 'Waiting for a decision…' : busy ? 'Switchboard is answering…' : 'Message Switchboard'
          }
          rows={Math.min(5, Math.max(1, text.split('\n').length))}
          value={text}
          disabled={disabled}
          maxLength={8000}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKey}
        />
        <button type="submit" className="send-btn" disabled={disabled || !text.trim()} aria-label="Send">
          <SendIcon />
        </button>
      </form>
    </footer>
  );
}
