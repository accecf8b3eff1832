import { protectedWriteVerdict } from '../domain/protected-paths';
import type { ToolGuard } from '../ports/tool-guard';

/**
 * A fixed guard for unit tests of the loop (production uses the policy engine, whose default rulebase
 * encodes the same autonomy): reads and the assistant's own notes pass; every write needs approval except
 * replying to the team member who texted (the recipient is bound by the system) and, unless configured
 * otherwise, paging our own on-call person.
 */
export function defaultGuard(opts: { escalationNeedsApproval: boolean }): ToolGuard {
  return {
    async check(call) {
      const refused = protectedWriteVerdict(call);
      if (refused) return refused;
      if (call.kind !== 'write') return { decision: 'allow', reason: `${call.kind} tools are allowed` };
      if (call.tool === 'reply_to_sender') {
        return {
          decision: 'allow',
          reason: 'A reply to the team member who texted goes back in their channel.',
          why: ['autonomy: reply_in_channel(internal sender)'],
        };
      }
      if (call.tool === 'escalate' && !opts.escalationNeedsApproval) {
        return {
          decision: 'allow',
          reason: 'Urgent matters page the on-call person at once.',
          why: ['autonomy: escalate_urgent (ESCALATION_REQUIRES_APPROVAL=false)'],
        };
      }
      return {
        decision: 'require_approval',
        reason: 'Every write needs a person to approve it.',
        why: ['default: every write requires approval'],
      };
    },
  };
}
