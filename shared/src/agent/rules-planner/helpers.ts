import type { Observation, PlannerInput } from '../types';

/** The latest observation of a tool, if the run called it. */
export const find = (obs: Observation[], name: string) => [...obs].reverse().find((o) => o.name === name);

export interface FoundContact {
  name: string;
  phones: string[];
  emails: string[];
  internal: boolean;
  role?: string | null;
}

export const contactsOf = (o?: Observation) =>
  (o?.result as { contacts?: FoundContact[] } | undefined)?.contacts ?? [];
export const firstContact = (o?: Observation) => contactsOf(o)[0];
export const firstName = (name: string) => name.split(/\s+/)[0] ?? name;

/** A sender no contact matches exactly may still resemble one: a question for the person, never a name to use. */
export const lookalikeHint = (o?: Observation) => {
  const similar = (o?.result as { not_the_sender?: string[] } | undefined)?.not_the_sender;
  return similar?.length ? ` (not in the contacts; might be ${similar[0]}?)` : '';
};

/** How a call ended, in words for the person who asked. */
export function outcome(o: Observation, done: string, what: string): string {
  switch (o.status) {
    case 'executed':
    case 'ok':
      return done;
    case 'denied':
      return `Okay, I did not ${what}${o.error ? ` (reason: ${o.error})` : ''}.`;
    case 'refused':
      return `I could not ${what}: ${o.error ?? 'the policy does not allow it'}.`;
    default:
      return `I tried to ${what} but it failed: ${o.error ?? 'unknown error'}.`;
  }
}

/** One planned call as the whole plan. */
export const call = (name: string, args: Record<string, unknown>, reason: string) => ({
  kind: 'calls' as const,
  calls: [{ name, args, reason }],
});
export const respond = (text: string) => ({ kind: 'respond' as const, text });

/** The slots find_free_slots answered, or none (no Google, or the read failed: the reply says a person will confirm). */
export const slotsOf = (obs: PlannerInput['observations']): Array<{ label: string }> => {
  const o = find(obs, 'find_free_slots');
  return o?.status === 'ok' ? ((o.result as { slots?: Array<{ label: string }> }).slots ?? []) : [];
};

/** MEMORY.md's text from a read_file observation's result. */
export const memoryText = (result: unknown) =>
  typeof result === 'string' ? result : ((result as { content?: string } | undefined)?.content ?? '');
