import type { Core } from '../../shared/src/composition';
import { escalate } from '../../shared/src/tools/escalation';
import { openPhoneTools, replyToSender } from '../../shared/src/tools/openphone';
import { bindAll, bindTool, ToolRegistry } from '../../shared/src/tools/registry';
import type { DecideApprovalDeps } from '../../shared/src/use-cases/decide-approval';

/**
 * The registry of tools whose drafts a person can edit on a card, used only to re-validate an edit against
 * the tool's own schema before it is approved. The API never runs a tool, so the tools are bound without
 * their integrations (SMS gateway, pager).
 */
const unbound = undefined as never;
const editable = new ToolRegistry([
  ...bindAll(openPhoneTools, unbound),
  bindTool(replyToSender, unbound),
  bindTool(escalate, unbound),
]);

/**
 * The approval use case's dependencies, from the composed core. A tool this registry does not know (one
 * only the worker registers) is accepted as an object here: the executor validates the arguments against
 * the worker's full registry and checks the approved hash before anything is sent, so an invalid edit
 * fails the card with its reason instead of reaching a provider.
 */
export function approvalDeps(core: Core): DecideApprovalDeps {
  return {
    actions: core.actions,
    conversations: core.conversations,
    audit: core.audit,
    queue: core.queue,
    clock: core.clock,
    validateArgs: (tool, args) => {
      if (editable.has(tool)) return editable.validateArgs(tool, args);
      return typeof args === 'object' && args !== null && !Array.isArray(args)
        ? { ok: true, args: args as Record<string, unknown> }
        : { ok: false, reason: 'the arguments must be an object' };
    },
  };
}
