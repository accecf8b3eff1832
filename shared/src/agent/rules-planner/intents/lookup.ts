import type { Plan, PlannerInput } from '../../types';
import { call, contactsOf, find, respond } from '../helpers';
import type { ChatIntent, Slots } from '../intent';

/** "Who is Maria?": the contacts that match, and how many conversations mention them. */
export const lookup: ChatIntent = {
  name: 'lookup',
  required: ['query'],
  detect(text) {
    const m = text.match(/^(?:who\s+is|look\s*up|lookup|find|search(?:\s+for)?)\s+(.+?)\??$/i);
    return m ? { query: m[1] } : undefined;
  },
  plan(input: PlannerInput, slots: Slots): Plan {
    const query = slots.query as string;
    const obs = input.observations;
    const found = find(obs, 'search_contacts');
    if (!found) return call('search_contacts', { query, limit: 3 }, 'Look the person up');
    if (input.hasTool('search_conversations') && !find(obs, 'search_conversations'))
      return call('search_conversations', { query }, 'Find related conversations');
    const contacts = contactsOf(found);
    const convs = find(obs, 'search_conversations');
    const convCount = ((convs?.result as { hits?: unknown[] } | undefined)?.hits ?? []).length;
    if (!contacts.length)
      return respond(
        `No contact matches “${query}”.${convCount ? ` ${convCount} conversation(s) mention it.` : ''}`,
      );
    const lines = contacts.map(
      (c) => `• ${c.name}${c.role ? ` (${c.role})` : ''} — ${[...c.phones, ...c.emails].join(', ')}`,
    );
    return respond(
      `${lines.join('\n')}${convCount ? `\n${convCount} conversation(s) mention “${query}”.` : ''}`,
    );
  },
};
