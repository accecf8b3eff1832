import type { CardPeople, CardPerson, Conversation } from '../contracts/conversations';
import type { DirectoryEntry } from '../tools/contact-directory';

/**
 * Who a card writes to and from where, in names (cards #18): "Maria Lopez · tenant · 12 Oak St #2" from
 * "Shared line · (415) 555-0100", instead of bare numbers. Fixed when the card is created, from the same
 * cached address book the policy asked (no DynamoDB request), so the card keeps saying who it was for.
 */
export interface CardPeopleDeps {
  directory?: {
    byPhone(number: string): Promise<DirectoryEntry | undefined>;
    byEmail?(address: string): Promise<DirectoryEntry | undefined>;
  };
  /** The sending lines (E.164), as the send tools pick them: team → assistant, everyone else → shared. */
  lines?: { shared: string; assistant: string };
  /** The mailbox email is sent from (the Google user the service account acts as). */
  mailbox?: string;
}

/** The contact's role split from its property: OpenPhone's role field reads "tenant, 12 Oak St #2". */
export function personOf(
  address: string,
  entry: DirectoryEntry | undefined,
  fallbackName?: string,
): CardPerson {
  if (!entry) return { address, ...(fallbackName ? { name: fallbackName } : {}) };
  const [role, ...rest] = (entry.role ?? '').split(',').map((s) => s.trim());
  const property = rest.join(', ') || undefined;
  const company = entry.company && !entry.internal ? entry.company : undefined;
  return {
    address,
    name: entry.name,
    ...(role ? { role } : {}),
    ...(property ? { property } : company ? { property: company } : {}),
    ...(entry.internal ? { team: true } : {}),
  };
}

const addressOf = (s: string) => (s.match(/<([^<>]+)>/)?.[1] ?? s).trim();
const displayOf = (s: string) => s.replace(/<.*>/, '').trim().replace(/^"|"$/g, '') || undefined;
const lineLabel = (deps: CardPeopleDeps, internal: boolean | undefined) => {
  const number = internal ? deps.lines?.assistant : deps.lines?.shared;
  return number ? { label: internal ? 'Assistant line' : 'Shared line', address: number } : undefined;
};

async function byPhone(deps: CardPeopleDeps, phone: string, name?: string): Promise<CardPerson> {
  return personOf(phone, await deps.directory?.byPhone(phone), name);
}

async function byEmails(deps: CardPeopleDeps, list: string): Promise<CardPerson[]> {
  const parts = list
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  return Promise.all(
    parts.map(async (p) =>
      personOf(p, await deps.directory?.byEmail?.(addressOf(p).toLowerCase()), displayOf(p)),
    ),
  );
}

/**
 * FROM and TO for one write. Tools that send nothing to a person (tasks, contacts, policy) get none; a
 * failed lookup only costs the names (the numbers are still shown), never the card.
 */
export async function cardPeople(
  deps: CardPeopleDeps,
  tool: string,
  args: Record<string, unknown>,
  conversation?: Pick<Conversation, 'contact'>,
): Promise<CardPeople | undefined> {
  const str = (k: string) => (typeof args[k] === 'string' ? (args[k] as string) : undefined);
  switch (tool) {
    case 'send_message':
    case 'schedule_followup': {
      const to = str('to');
      if (!to) return undefined;
      const person = await byPhone(deps, to, str('toName'));
      const from = tool === 'send_message' ? lineLabel(deps, person.team) : undefined;
      return { ...(from ? { from } : {}), to: [person] };
    }
    case 'welcome_contact': {
      const phone = str('phone');
      const from = lineLabel(deps, false);
      return { ...(from ? { from } : {}), to: phone ? [{ address: phone, role: 'new contact' }] : [] };
    }
    case 'reply_to_sender': {
      const phone = conversation?.contact?.phone;
      const from = lineLabel(deps, true);
      return {
        ...(from ? { from } : {}),
        to: phone ? [await byPhone(deps, phone, conversation?.contact?.name)] : [],
      };
    }
    case 'send_email': {
      const to = str('to');
      const cc = str('cc');
      return {
        ...(deps.mailbox ? { from: { label: 'Team mailbox', address: deps.mailbox } } : {}),
        to: [...(to ? await byEmails(deps, to) : []), ...(cc ? await byEmails(deps, cc) : [])],
      };
    }
    default:
      return undefined;
  }
}

/** Best effort: the address book being down must not stop a card from being offered. */
export async function cardPeopleSafe(
  deps: CardPeopleDeps | undefined,
  tool: string,
  args: Record<string, unknown>,
  conversation?: Pick<Conversation, 'contact'>,
): Promise<CardPeople | undefined> {
  if (!deps) return undefined;
  return cardPeople(deps, tool, args, conversation).catch(() => undefined);
}
