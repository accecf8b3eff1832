import type { PendingAction } from '../../../../shared/src/contracts/conversations';
import { formatPhone } from '../../lib/format';
import { fieldLabel, type toolView } from './tool-views';

export type ContactLike = { name?: string; phone?: string; email?: string } | undefined;
type View = ReturnType<typeof toolView>;

/** To whom the write goes, named from the conversation's contact where the number or address matches. */
export function Recipients({
  action,
  view,
  contact,
}: {
  action: PendingAction;
  view: View;
  contact?: ContactLike;
}) {
  return view.recipients
    .filter((k) => action.args[k] !== undefined)
    .map((k) => (
      <p key={k} className="approval-recipient">
        <span className="field-label">{fieldLabel(k)}</span>
        <span>{recipientText(action.args[k], contact)}</span>
      </p>
    ));
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

/** One text field of the draft: editable in place while the card is pending, read-only after. */
export function DraftField(props: {
  id: string;
  field: string;
  value: string;
  pending: boolean;
  max: number | undefined;
  /** Open and focused: a redraft could not apply part of its instruction, so the person edits it in. */
  focus?: boolean;
  onChange: (value: string) => void;
}) {
  const { id, field, value, pending, max, focus } = props;
  return (
    <div className="approval-field">
      <label htmlFor={id} className="field-label">
        {fieldLabel(field)}
        {pending && <span className="muted"> · tap to edit</span>}
      </label>
      {pending ? (
        <textarea
          id={id}
          className="draft"
          value={value}
          rows={Math.min(
            focus ? 14 : 10,
            Math.max(field === 'subject' ? 1 : 3, Math.ceil(value.length / 38) + value.split('\n').length),
          )}
          // biome-ignore lint/a11y/noAutofocus: the person just asked for something only an edit can do.
          autoFocus={focus}
          maxLength={max}
          onChange={(e) => props.onChange(e.target.value)}
        />
      ) : (
        <p id={id} className="draft readonly">
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
}

/** The arguments that are neither a recipient nor an editable text, as a plain list. */
export function OtherArgs({ args }: { args: Array<[string, unknown]> }) {
  if (args.length === 0) return null;
  return (
    <dl className="approval-args">
      {args.map(([k, v]) => (
        <div key={k}>
          <dt>{fieldLabel(k)}</dt>
          <dd>{typeof v === 'string' ? v : JSON.stringify(v)}</dd>
        </div>
      ))}
    </dl>
  );
}
