import type { Model } from '../ports/model';
import type { Workspace } from '../ports/workspace';
import { type ResearchBrain, rulesBrain } from '../research/brain';
import { claudeBrain } from '../research/claude-brain';
import type { ResearchDeps } from '../research/engine-deps';
import type { ToolRegistry } from '../tools/registry';
import { defaultSandboxRunner } from '../tools/sandbox';
import type { Core } from './core';
import { buildResearchStartDeps } from './research-start';

export { buildResearchStartDeps } from './research-start';

/** The worker's research engine: the start deps plus the brain (rules, or Claude with a key) and the report's home. */
export function buildResearchDeps(
  core: Core,
  opts: { registry: ToolRegistry; model?: Model; workspace?: Workspace },
): ResearchDeps {
  const start = buildResearchStartDeps(core);
  const exec = {
    registry: opts.registry,
    clock: core.clock,
    timezone: core.config.TEAM_TIMEZONE,
    sandbox: defaultSandboxRunner,
    webAllowed: core.config.WEB_ALLOWED_DOMAINS.length > 0,
  };
  const brain: ResearchBrain = opts.model ? claudeBrain({ ...exec, model: opts.model }) : rulesBrain(exec);
  const ws = opts.workspace;
  return { ...start, brain, ...(ws ? { workspace: async () => ws } : {}) };
}
