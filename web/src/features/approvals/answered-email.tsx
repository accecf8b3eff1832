import { useState } from 'react';
import type { Message } from '../../../../shared/src/contracts/conversations';
import { clockTime } from '../../lib/format';

/** Lines from here on are the quoted thread ("On Mon, Tom wrote:", "> …"): folded, as a mail app does. */
const QUOTE_START = /^(On .{4,200} wrote:|-{2,} ?Original Message ?-{2,}|From: .+)$/;

/** Subject and body of an inbound email message (stored as "subject\n\nbody"), its quoted history apart. */
export function splitEmail(m: Pick<Message, 'text' | 'email'>) {
  const cut = m.text.indexOf('\n\n');
  const subject = m.email?.subject ?? (cut >= 0 ? m.text.slice(0, cut) : '');
  const body = cut >= 0 ? m.text.slice(cut + 2) : m.text;
  const lines = body.split('\n');
  const at = lines.findIndex((l) => QUOTE_START.test(l.trim()) || l.startsWith('>'));
  return {
    subject,
    body: (at >= 0 ? lines.slice(0, at) : lines).join('\n').trim(),
    quoted: at >= 0 ? lines.slice(at).join('\n').trim() : '',
  };
}

const LONG = 420;

/**
 * The email a reply card answers, right on the card (cards #18): sender, subject and the body readable —
 * long bodies open with "Show all", the quoted thread folded — so nobody scrolls up to see what is answered.
 */
export function AnsweredEmail({ message }: { message: Message }) {
  const { subject, body, quoted } = splitEmail(message);
  const [open, setOpen] = useState(false);
  const long = body.length > LONG;
  const address = message.email?.from.match(/<([^<>]+)>/)?.[1];
  return (
    <section className="answered-email" aria-label="The email this answers">
      <p className="answered-head">
        <span className="field-label">Answers</span>
        <span>
          <strong>{message.author.name}</strong>
          {address && address !== message.author.name && <span className="muted"> · {address}</span>}
          <span className="muted"> · {clockTime(message.createdAt)}</span>
        </span>
      </p>
      {subject && <p className="answered-subject">{subject}</p>}
      <p className={`answered-body${long && !open ? ' clipped' : ''}`}>{body}</p>
      {long && (
        <button type="button" className="btn btn-small btn-ghost" onClick={() => setOpen((o) => !o)}>
          {open ? 'Show less' : 'Show all'}
        </button>
      )}
      {quoted && (
        <details className="answered-quoted">
          <summary className="answered-quoted-summary">Earlier in the thread</summary>
          <p className="answered-body">{quoted}</p>
        </details>
      )}
    </section>
  );
}
