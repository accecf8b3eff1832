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
  if (k?.name) return k.name;
  if (k?.phone) return formatPhone(k.phone);
  if (k?.email) return k.email;
  return c.title;
}
