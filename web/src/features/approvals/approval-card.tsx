import { useId, useState } from 'react';
import type {
  CardRedraft,
  MediaRef,
  Message,
  PendingAction,
} from '../../../../shared/src/contracts/conversations';
import { ScheduleFacts } from '../followups/followup-list';
import { LeadHold } from '../followups/lead-hold';
import { MediaThumbs } from '../media/media-thumbs';
import { PolicyChangeDiff } from '../workspace-files/policy-change-diff';
import { AnsweredEmail } from './answered-email';
import { type ContactLike, DraftField, OtherArgs, Recipients } from './card-fields';
import { Insights } from './card-insights';
import { CardQuestions } from './card-questions';
import { Outcome, StatusChip } from './card-status';
import { CardTeam } from './card-team';
import { DecisionBar } from './decision-bar';
import { RetryButton } from './retry-button';
import { toolView } from './tool-views';
import { useDecision } from './use-decision';

type ApprovalCardProps = {
  action: PendingAction;
  contact?: ContactLike;
  onDecided: (updated?: PendingAction) => void;
  /** Photos of the message the card answers (follow #20), shown small above the draft. */
  media?: MediaRef[] | undefined;
  /** The inbound message the card answers: an email reply card shows that email (cards #18). */
  answers?: Message | undefined;
};

/**
 * One write the assistant wants to make, shown exactly as it would go out: to whom, the text (editable in
 * place while the card is pending), why the policy allows it and how the reviewer scored it. Approve sends
 * the edited text if it was changed; deny takes an optional reason that goes back to the assistant.
 * The parts: card-fields (recipients, draft, other arguments), card-insights (review and policy),
 * card-status (chip and outcome), decision-bar (approve / deny) and use-decision (the request).
 */
export function ApprovalCard({ action, contact, onDecided, media, answers }: ApprovalCardProps) {
  const view = toolView(action.tool, action.args);
  const draft = useCardDraft(action, view.editable);
  const decision = useDecision(action, onDecided, () =>
    draft.edited() ? { text: draft.mine(), what: 'edit' } : undefined,
  );
  const { busy, error, notice, lost, decide } = decision;
  const ids = useId();
  const pending = action.status === 'PENDING';
  const edited = draft.edited();
  const others = Object.entries(action.args).filter(
    ([k]) => !view.recipients.includes(k) && !draft.fields.includes(k) && !view.hidden?.includes(k),
  );

  return (
    <article
      className={`card approval status-${action.status.toLowerCase()}`}
      aria-labelledby={`${ids}-title`}
      data-action-id={action.id}
      data-status={action.status}
    >
      <CardHead action={action} view={view} titleId={`${ids}-title`} />
      <CardTeam action={action} onChanged={onDecided} />
      <Recipients action={action} view={view} contact={contact} />
      <CardContext action={action} media={media} answers={answers} pending={pending} />
      <DraftFields action={action} view={view} draft={draft} ids={ids} pending={pending} />
      {action.tool === 'schedule_followup' && <ScheduleFacts args={action.args} />}
      <OtherArgs args={others} />
      {action.edit && !pending && <p className="tag-edited">Edited before approval</p>}
      {pending && edited && <p className="tag-edited">Edited — your version is what will be sent.</p>}
      {pending && (
        <CardQuestions
          questions={action.policy?.questions ?? []}
          busy={busy !== null}
          onAnswer={(d) => void decide(d)}
        />
      )}
      <CardInsights action={action} pending={pending} />
      <Outcome action={action} />
      <RetryButton action={action} onRetried={onDecided} />
      <Messages notice={notice} error={error} />
      {lost && <LostEdit text={lost.text} what={lost.what} />}
      {pending && <CardDecisionBar action={action} draft={draft} decision={decision} id={ids} />}
    </article>
  );
}

type View = ReturnType<typeof toolView>;
type CardDraft = ReturnType<typeof useCardDraft>;

/** The card's editable text fields as the person is changing them, against the args the assistant drafted. */
function useCardDraft(action: PendingAction, editableKeys: string[]) {
  const fields = editableKeys.filter((k) => typeof action.args[k] === 'string');
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map((k) => [k, String(action.args[k])])),
  );
  return {
    fields,
    values,
    set: (k: string, v: string) => setValues((d) => ({ ...d, [k]: v })),
    edited: () => fields.some((k) => values[k] !== action.args[k]),
    /** The person's own words, to copy back if someone else decides first. */
    mine: () => fields.map((k) => values[k] ?? '').join('\n\n'),
    emptyField: fields.find((k) => !values[k]?.trim()),
  };
}

function CardHead({ action, view, titleId }: { action: PendingAction; view: View; titleId: string }) {
  const Icon = view.icon;
  return (
    <header className="approval-head">
      <span className="approval-icon">
        <Icon />
      </span>
      <div className="approval-title">
        <h2 id={titleId}>{view.label}</h2>
        <StatusChip action={action} />
      </div>
    </header>
  );
}

/** What the draft answers and builds on: the policy diff, the email, photos, the redraft ask, lessons. */
function CardContext({
  action,
  media,
  answers,
  pending,
}: Pick<ApprovalCardProps, 'action' | 'media' | 'answers'> & { pending: boolean }) {
  return (
    <>
      {action.tool === 'propose_policy_change' && <PolicyChangeDiff action={action} />}
      {answers?.channel === 'email' && action.tool === 'send_email' && <AnsweredEmail message={answers} />}
      {media?.length ? <MediaThumbs media={media} label="Photos in the message this answers" /> : null}
      {action.redraft && <RedraftNote redraft={action.redraft} pending={pending} />}
      {action.lessons?.length ? (
        <p className="lesson-note">
          <strong>Follows what the team taught:</strong> {action.lessons.join(' · ')}
        </p>
      ) : null}
      {action.whileLead && <LeadHold hold={action.whileLead} />}
    </>
  );
}

function DraftFields({
  action,
  view,
  draft,
  ids,
  pending,
}: {
  action: PendingAction;
  view: View;
  draft: CardDraft;
  ids: string;
  pending: boolean;
}) {
  return (
    <>
      {draft.fields.map((k) => (
        <DraftField
          key={k}
          id={`${ids}-${k}`}
          field={k}
          value={pending ? (draft.values[k] ?? '') : String(action.args[k])}
          pending={pending}
          max={view.maxLength?.[k]}
          // A redraft that could not apply everything puts the person in the text to finish it.
          focus={pending && (action.redraft?.notApplied.length ?? 0) > 0 && k === draft.fields.at(-1)}
          onChange={(v) => draft.set(k, v)}
        />
      ))}
    </>
  );
}

/** Approve (the edited args if changed) / Deny / Redraft…, each keeping the person's words if they lose. */
function CardDecisionBar({
  action,
  draft,
  decision,
  id,
}: {
  action: PendingAction;
  draft: CardDraft;
  decision: ReturnType<typeof useDecision>;
  id: string;
}) {
  const { busy, decide } = decision;
  const edited = draft.edited();
  const myEdit = edited ? ({ text: draft.mine(), what: 'edit' } as const) : undefined;
  return (
    <DecisionBar
      id={id}
      busy={busy}
      edited={edited}
      canApprove={!draft.emptyField}
      onApprove={() =>
        void decide(
          { kind: 'approve', ...(edited ? { editedArgs: { ...action.args, ...draft.values } } : {}) },
          myEdit,
        )
      }
      onDeny={(reason, again) =>
        void decide(
          { kind: 'deny', ...(reason ? { reason, redraft: again } : {}) },
          reason ? { text: reason, what: 'reason' } : myEdit,
        )
      }
      onRedraft={(instruction) =>
        void decide({ kind: 'redraft', instruction }, { text: instruction, what: 'instruction' })
      }
    />
  );
}

/** Open while the card waits for a decision; folded away once it is decided. */
function CardInsights({ action, pending }: { action: PendingAction; pending: boolean }) {
  if (pending) return <Insights action={action} />;
  return (
    <details className="decided-details">
      <summary>Review and policy</summary>
      <Insights action={action} />
    </details>
  );
}

/** What the person asked of this redraft, what the template applied, and (plainly) what it could not. */
function RedraftNote({ redraft, pending }: { redraft: CardRedraft; pending: boolean }) {
  const asked =
    redraft.kind === 'answer'
      ? `${redraft.by.name} answered the open questions`
      : redraft.kind === 'deny'
        ? `${redraft.by.name} denied the earlier draft: “${redraft.instruction ?? ''}”`
        : `${redraft.by.name} asked: “${redraft.instruction ?? ''}”`;
  return (
    <div className="redraft-note">
      <p className="redraft-line">
        <strong>New draft.</strong> {asked}.
        {redraft.applied.length > 0 && <> Changed: {redraft.applied.join(', ')}.</>}
      </p>
      {redraft.notApplied.length > 0 && (
        <p className="redraft-missed" role={pending ? 'alert' : undefined}>
          I could not apply “{redraft.notApplied.join('”, “')}” by myself
          {pending ? ' — edit the draft below to add it.' : '.'}
        </p>
      )}
    </div>
  );
}

/** The losing decider's own words, kept to copy (not used: someone else decided first). */
function LostEdit({ text, what }: { text: string; what: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="lost-edit">
      <p className="draft readonly">{text}</p>
      <button
        type="button"
        className="btn btn-small btn-ghost"
        onClick={() =>
          void navigator.clipboard?.writeText(text).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? 'Copied' : `Copy my ${what}`}
      </button>
    </div>
  );
}

function Messages({ notice, error }: { notice: string | null; error: string | null }) {
  return (
    <>
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
    </>
  );
}
