import type { PendingAction } from '../contracts/conversations';
import type { DecisionCheck } from '../ports/decision-checks';
import type { ToolGuard } from '../ports/tool-guard';
import type { ToolRegistry } from '../tools/registry';

export interface DecisionCheckOptions {
  guard: ToolGuard;
  /** Runs a read tool for the solver (e.g. search_contacts for known_contact). */
  readTool(name: string, args: Record<string, unknown>, conversationId: string): Promise<unknown>;
  clock: () => Date;
  timezone: string;
}

/**
 * Contacts the card itself creates before it sends (a new sender's lead card: create the contact, then
 * reply). Its own send is checked as if they existed, since approving the card creates them first. A card
 * carries them as `args.create_contact` ({ firstName, phone?, email? }), or is itself a create_contact.
 */
export function contactsCreatedBy(
  card: Pick<PendingAction, 'tool' | 'args'>,
): Array<Record<string, unknown>> {
  const nested = card.args.create_contact;
  const list = [
    ...(card.tool === 'create_contact' ? [card.args] : []),
    ...(nested && typeof nested === 'object' && !Array.isArray(nested)
      ? [nested as Record<string, unknown>]
      : []),
  ];
  return list.filter((c) => typeof c.phone === 'string' || typeof c.email === 'string');
}

function withCreatedContacts(
  result: unknown,
  created: Array<Record<string, unknown>>,
  query: unknown,
): unknown {
  const matching = created.filter((c) => c.phone === query || c.email === query);
  if (matching.length === 0 || !result || typeof result !== 'object') return result;
  const r = result as { contacts?: unknown[] };
  const extra = matching.map((c, i) => ({
    id: `new_contact_${i}`,
    name: [c.firstName, c.lastName].filter(Boolean).join(' '),
    phones: typeof c.phone === 'string' ? [c.phone] : [],
    emails: typeof c.email === 'string' ? [c.email] : [],
    internal: false,
  }));
  return { ...r, contacts: [...(r.contacts ?? []), ...extra] };
}

/**
 * The policy's preconditions for a card at the moment a person decides it (issue 12 item 7): the guard is
 * asked about the arguments that will run, so an edit to an unknown recipient is refused then, not later in
 * the worker. A card blocked only on a question for a person (quiet hours: "is this urgent?") passes:
 * approving it is that person's answer.
 */
export function decisionCheck(opts: DecisionCheckOptions) {
  return async (card: PendingAction, args: Record<string, unknown>): Promise<DecisionCheck> => {
    const created = contactsCreatedBy({ tool: card.tool, args });
    const verdict = await opts.guard.check(
      { tool: card.tool, kind: 'write', args, origin: 'system', conversationId: card.conversationId },
      {
        now: opts.clock(),
        timezone: opts.timezone,
        callReadTool: async (name, a) =>
          withCreatedContacts(await opts.readTool(name, a, card.conversationId), created, a.query),
      },
    );
    if (verdict.decision !== 'deny') return { ok: true };
    const onlyQuestions =
      (verdict.missing?.questions.length ?? 0) > 0 && (verdict.missing?.tools.length ?? 0) === 0;
    if (onlyQuestions) return { ok: true };
    return {
      ok: false,
      reason: verdict.reason,
      missing: [...(verdict.missing?.tools ?? []), ...(verdict.missing?.questions ?? [])],
    };
  };
}

/** A read tool of the agent's registry for the decision check; anything else is refused. */
export function readToolFor(
  registry: ToolRegistry,
  name: string,
  args: Record<string, unknown>,
  conversationId: string,
  clock: () => Date,
  timezone: string,
): Promise<unknown> {
  const tool = registry.get(name);
  if (tool.kind !== 'read') throw new Error(`${name} is not a read tool`);
  return tool.run(args, { conversationId, runId: 'decision', now: clock(), timezone });
}
