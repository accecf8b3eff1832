import type { Message } from '../../../../shared/src/contracts/conversations';
import { clockTime } from '../../lib/format';

/**
 * A phone call in the conversation: who and how long at a glance, Quo's summary and next steps under it,
 * and the transcript folded away (it can be long; the summary is what a busy person reads).
 */
export function CallEntryView({ message: m }: { message: Message }) {
  const call = m.call;
  if (!call) return null;
  const [headline] = m.text.split('\n');
  return (
    <section className="call-entry" aria-label={headline}>
      <header>
        <strong>{headline}</strong> · <time dateTime={m.createdAt}>{clockTime(m.createdAt)}</time>
      </header>
      {call.summary?.length ? <p className="call-summary">{call.summary.join(' ')}</p> : null}
      {call.nextSteps?.length ? (
        <ul className="call-next">
          {call.nextSteps.map((s) => (
            <li key={s}>{s}</li>
          ))}
        </ul>
      ) : null}
      {call.transcript?.length ? (
        <details>
          <summary>Transcript{call.transcriptTruncated ? ' (cut; the rest is in Quo)' : ''}</summary>
          <ol className="call-transcript">
            {call.transcript.map((line, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: transcript lines repeat ("ok") and never reorder
              <li key={i}>{line}</li>
            ))}
          </ol>
        </details>
      ) : (
        !call.summary?.length && <p className="call-summary muted">No summary or transcript yet.</p>
      )}
    </section>
  );
}
