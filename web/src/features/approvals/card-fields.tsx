import type { CardPerson, PendingAction } from '../../../../shared/src/contracts/conversations';
import { formatPhone } from '../../lib/format';
import { fieldLabel, type toolView } from './tool-views';

export type ContactLike = { name?: string; phone?: string; email?: string } | undefined;
type View = ReturnType<typeof toolView>;

/**
 * FROM (the line or mailbox) and TO as people — "Maria Lopez · tenant · 12 Oak St #2" with the number under
 * it — from the names fixed on the card when it was made; older cards fall back to the conversation's contact.
 */
export function Recipients({
  action,
  view,
  contact,
}: {
  action: PendingAction;
  view: View;
  contact?: ContactLike;
}) {
  const people = action.people;
  const from = people?.from;
  return (
    <div className="approval-people">
      {from && (
        <p className="approval-recipient">
          <span className="field-label">From</span>
          <span>
            {from.label}
            {from.address && <span className="muted"> · {shownAddress(from.address)}</span>}
          </span>
        </p>
      )}
      {view.recipients
        .filter((k) => action.args[k] !== undefined)
        .map((k) => (
          <p key={k} className="approval-recipient">
            <span className="field-label">{fieldLabel(k)}</span>
            <span className="people-list">{personList(action.args[k], people?.to ?? [], contact)}</span>
          </p>
        ))}
    </div>
  );
}

const shownAddress = (s: string) =>
  s.startsWith('+') ? formatPhone(s) : s.replace(/^.*<([^<>]+)>.*$/, '$1');

function personList(value: unknown, known: CardPerson[], contact: ContactLike) {
  const values = Array.isArray(value)
    ? value.map(String)
    : String(value)
        .split(/,(?![^<]*>)/)
        .map((v) => v.trim())
        .filter(Boolean);
  return values.map((v) => <PersonLine key={v} person={personFor(v, known, contact)} />);
}

function personFor(v: string, known: CardPerson[], contact: ContactLike): CardPerson {
  const hit = known.find((p) => p.address === v);
  if (hit) return hit;
  const bare = shownAddress(v).toLowerCase();
  if (contact?.name && (contact.phone === v || contact.email?.toLowerCase() === bare))
    return { address: v, name: contact.name };
  return { address: v };
}

/** A name first (with role and property), the number or address small under it; an unknown is the address. */
function PersonLine({ person }: { person: CardPerson }) {
  const about = [person.team ? 'team' : person.role, person.property].filter(Boolean).join(' · ');
  if (!person.name) return <span className="person">{shownAddress(person.address)}</span>;
  return (
    <span className="person">
      <strong>{person.name}</strong>
      {about && <span> · {about}</span>}
      <span className="muted person-address">{shownAddress(person.address)}</span>
    </span>
  );
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
          rows={
            field === 'subject' || field === 'name'
              ? Math.min(3, Math.ceil(value.length / 44) || 1)
              : Math.min(
                  focus ? 14 : 10,
                  Math.max(3, Math.ceil(value.length / 38) + value.split('\n').length),
                )
          }
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
          <dd>
            {k === 'dueDate' && typeof v === 'string'
              ? dueText(v)
              : typeof v === 'string'
                ? v
                : JSON.stringify(v)}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** A due day as a person reads it ("Fri 27 Nov"); a date-time keeps its time. */
export function dueText(v: string): string {
  const dayOnly = /^\d{4}-\d{2}-\d{2}$/.test(v);
  const d = new Date(dayOnly ? `${v}T12:00:00Z` : v);
  if (Number.isNaN(d.getTime())) return v;
  return d.toLocaleString(undefined, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    ...(dayOnly ? { timeZone: 'UTC' } : { hour: 'numeric', minute: '2-digit' }),
  });
}
