import type { LeadInfo, LeadState } from '../contracts/conversations';
import { NotFoundError } from '../errors';
import { type SetLeadStateDeps, setLeadState } from './set-lead-state';

/**
 * A person says where a lead stands (follow #20) — above all "showing booked" and "not a fit"
 * (disqualified), which nothing else sets from a message and which stop the drafted replies (the seed's
 * no-reply rule). Any conversation can be made a lead this way; its property is kept. Audited by
 * setLeadState under the person's address. A waiting nudge drafted for the old state is withdrawn when it
 * is approved (agent/execute-approved.ts), so nothing else needs to change here.
 */
export async function markLead(
  deps: SetLeadStateDeps,
  input: { conversationId: string; state: LeadState; user: { email: string } },
): Promise<{ lead: LeadInfo }> {
  const conv = await deps.conversations.get(input.conversationId);
  if (!conv) throw new NotFoundError(`No conversation ${input.conversationId}`);
  if (conv.lead?.state === input.state) return { lead: conv.lead };
  const property = conv.lead?.property;
  const lead = await setLeadState(deps, {
    conversationId: input.conversationId,
    state: input.state,
    by: input.user.email,
    ...(property ? { property } : {}),
  });
  return { lead };
}
