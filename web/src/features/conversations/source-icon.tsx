import type { ConversationSummary } from '../../../../shared/src/contracts/api';
import { ChatIcon, EmailIcon, SmsIcon } from '../../components/icons';
import { formatPhone } from '../../lib/format';

const LABEL = { sms: 'Text message', email: 'Email', chat: 'Team chat' } as const;

export function SourceIcon({ source }: { source: ConversationSummary['source'] }) {
  const Icon = source === 'sms' ? SmsIcon : source === 'email' ? EmailIcon : ChatIcon;
  return (
    <span className={`source-icon source-${source}`}>
      <Icon title={LABEL[source]} />
    </span>
  );
}

/** Who the conversation is with, as a person would say it: the contact's name, else their number or address. */
export function contactName(c: Pick<ConversationSummary, 'contact' | 'title'>): string {
  const k = c.contact;
  // An unknown number's conversation carries the bare number as its name: show it the way the app shows numbers.
  if (k?.name) return formatPhone(k.name);
  if (k?.phone) return formatPhone(k.phone);
  if (k?.email) return k.email;
  return formatPhone(c.title);
}

/**
 * The last message as the list shows it, under the name: "Maria Lopez: the ceiling…" says the name twice, so a
 * leading "<who>: " naming the conversation's own contact is dropped (a team member's or another sender's stays).
 */
export function previewText(c: Pick<ConversationSummary, 'contact' | 'title' | 'preview'>): string {
  const text = c.preview || c.title;
  const own = [c.contact?.name, c.contact?.phone, c.contact?.email, c.title].filter(Boolean);
  const who = own.find((w) => text.startsWith(`${w}: `));
  return who ? text.slice(who.length + 2) : text;
}
