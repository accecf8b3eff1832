import { lazyDecisionDeps } from '../../shared/src/agent/decision-deps';
import type { Core } from '../../shared/src/composition';
import type { DecideApprovalDeps } from '../../shared/src/use-cases/decide-approval';
import type { ValidateDecisionDeps } from '../../shared/src/use-cases/validate-decision';
import { workspaceFor } from './routes/memory';

const checks = new WeakMap<Core, ValidateDecisionDeps>();

/**
 * The approval use case's dependencies, from the composed core. Every decision is checked against the card
 * tool's own schema and the policy's preconditions (with the team's rulebase from the memory workspace when
 * there is one); both are built on the first decision of a cold start and kept.
 */
export function approvalDeps(core: Core): DecideApprovalDeps {
  let decisionChecks = checks.get(core);
  if (!decisionChecks) {
    decisionChecks = lazyDecisionDeps({
      config: core.config,
      table: core.table,
      log: core.log,
      clock: core.clock,
      ...(core.config.MEMORY_GIT_URL ? { workspace: () => workspaceFor(core) } : {}),
    });
    checks.set(core, decisionChecks);
  }
  return {
    actions: core.actions,
    conversations: core.conversations,
    audit: core.audit,
    queue: core.queue,
    clock: core.clock,
    validateArgs: decisionChecks.validateArgs,
    ...(decisionChecks.checkDecision ? { checkDecision: decisionChecks.checkDecision } : {}),
  };
}
