import type { PendingAction, ReviewScore } from '../../../../shared/src/contracts/conversations';
import { whySentences } from './why-sentences';

/** The reviewer's scores and the policy's reasoning; what is missing stays visible, the rest folds away. */
export function Insights({ action }: { action: PendingAction }) {
  const reviews = [
    ['Plan review', action.review?.plan],
    ['Result review', action.review?.execution],
  ].filter((r): r is [string, ReviewScore] => Boolean(r[1]));
  const why = action.policy?.why ?? [];
  const missing = action.policy?.missing;
  // Questions answerable on the card are shown there as buttons, not repeated here.
  const answerable = new Set((action.policy?.questions ?? []).map((q) => q.ask));
  const missingItems = [
    ...(missing?.questions ?? []).filter((q) => !answerable.has(q)),
    ...(missing?.tools ?? []).map((t) => `Look up: ${t}`),
  ];
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
      {reviews
        .filter(([, r]) => worthShowing(r))
        .map(([label, r]) => (
          <ReviewDetails key={label} label={label} review={r} />
        ))}
      {why.length > 0 && <Why why={why} action={action} />}
    </div>
  );
}

/** A score only when it says something: an issue found, or below 8 (a 9/10 on every card is noise). */
export function worthShowing(r: ReviewScore): boolean {
  return r.issues.length > 0 || r.score < 8;
}

/** The policy's reasons as sentences; the rule trace itself one tap away for whoever wants to check it. */
function Why({ why, action }: { why: string[]; action: PendingAction }) {
  const sentences = whySentences(why, action.people?.to ?? []);
  return (
    <div className="why">
      {sentences.length > 0 && (
        <>
          <strong className="why-title">Why</strong>
          <ul className="why-sentences">
            {sentences.map((s) => (
              <li key={s}>{s}</li>
            ))}
          </ul>
        </>
      )}
      <details className="why-trace">
        <summary>Rule trace</summary>
        <ul>
          {why.map((w) => (
            <li key={w}>
              <code>{w}</code>
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}

function ReviewDetails({ label, review }: { label: string; review: ReviewScore }) {
  return (
    <details className="review">
      <summary>
        {label}{' '}
        <span className={`score score-${review.score >= 8 ? 'good' : review.score >= 6 ? 'ok' : 'low'}`}>
          {review.score}/10
        </span>
        {review.issues.length > 0 && (
          <span className="muted">
            {' '}
            · {review.issues.length} note{review.issues.length > 1 ? 's' : ''}
          </span>
        )}
      </summary>
      <ul className="score-grid">
        <li>Relevance {review.relevance}</li>
        <li>Completeness {review.completeness}</li>
        <li>Safety {review.safety}</li>
        <li>Quality {review.quality}</li>
      </ul>
      {review.issues.length > 0 && (
        <ul className="issues">
          {review.issues.map((i) => (
            <li key={i}>{i}</li>
          ))}
        </ul>
      )}
      <p className="muted small">
        Scored by the {review.reviewer === 'model' ? 'model' : 'rule-based'} reviewer.
      </p>
    </details>
  );
}
