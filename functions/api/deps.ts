import type { Core } from '../../shared/src/composition';
import type { DecideApprovalDeps } from '../../shared/src/use-cases/decide-approval';

/**
 * The approval use case's dependencies, from the composed core. Edited arguments are accepted as the
 * person wrote them here: the tool registry that owns each tool's schema lives with the agent runtime in
 * the worker, and the executor validates the arguments against it (and checks the approved hash) before
 * anything is sent, so an invalid edit fails the card with its reason instead of reaching a provider.
 */
export function approvalDeps(core: Core): DecideApprovalDeps {
  return {
    actions: core.actions,
    conversations: core.conversations,
    audit: core.audit,
    queue: core.queue,
    clock: core.clock,
    validateArgs: (_tool, args) =>
      typeof args === 'object' && args !== null && !Array.isArray(args)
        ? { ok: true, args: args as Record<string, unknown> }
        : { ok: false, reason: 'the arguments must be an object' },
  };
}
