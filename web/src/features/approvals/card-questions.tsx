import { useState } from 'react';
import type { CardQuestion } from '../../../../shared/src/contracts/conversations';
import type { Decision } from './use-decision';

/** A pattern with a variable (`credit_score("ana@…", Score)`) takes a short value; a ground one is yes/no. */
const VARIABLE = /(?<=[(,]\s*)[A-Z_][A-Za-z0-9_]*(?=\s*[,)])/;

/**
 * The card's open questions, each a one-tap answer (cards #18): the answer is recorded as a fact with who
 * gave it, the policy is asked again, and a new draft replaces this card (a qualified lead gets an invitation).
 */
export function CardQuestions({
  questions,
  busy,
  onAnswer,
}: {
  questions: CardQuestion[];
  busy: boolean;
  onAnswer: (d: Extract<Decision, { kind: 'answer' }>) => void;
}) {
  if (!questions.length) return null;
  return (
    <section className="questions" aria-label="Questions for the team">
      <strong>Answer to redraft</strong>
      <ul className="question-list">
        {questions.map((q) => (
          <li key={q.recordAs}>
            <p>{q.ask}</p>
            {VARIABLE.test(q.recordAs) ? (
              <ValueAnswer q={q} busy={busy} onAnswer={onAnswer} />
            ) : (
              <div className="answer-buttons">
                <button
                  type="button"
                  className="btn btn-small"
                  disabled={busy}
                  onClick={() =>
                    onAnswer({ kind: 'answer', answers: [{ recordAs: q.recordAs, holds: true }] })
                  }
                >
                  Yes
                </button>
                <button
                  type="button"
                  className="btn btn-small btn-ghost"
                  disabled={busy}
                  onClick={() =>
                    onAnswer({ kind: 'answer', answers: [{ recordAs: q.recordAs, holds: false }] })
                  }
                >
                  No
                </button>
              </div>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function ValueAnswer({
  q,
  busy,
  onAnswer,
}: {
  q: CardQuestion;
  busy: boolean;
  onAnswer: (d: Extract<Decision, { kind: 'answer' }>) => void;
}) {
  const [value, setValue] = useState('');
  return (
    <form
      className="answer-value"
      onSubmit={(e) => {
        e.preventDefault();
        if (value.trim())
          onAnswer({ kind: 'answer', answers: [{ recordAs: q.recordAs, holds: true, value: value.trim() }] });
      }}
    >
      <input
        aria-label={q.ask}
        value={value}
        maxLength={100}
        onChange={(e) => setValue(e.target.value)}
        placeholder="Answer"
      />
      <button type="submit" className="btn btn-small" disabled={busy || !value.trim()}>
        Answer
      </button>
    </form>
  );
}
