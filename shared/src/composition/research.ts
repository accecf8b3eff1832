import type { Model } from '../ports/model';
import type { Workspace } from '../ports/workspace';
import type { ResearchBrain } from '../research/brain';
import type { ResearchDeps } from '../research/engine-deps';
import type { ExecutorDeps } from '../research/executors';
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
  const brain = lazyBrain(exec, opts.model);
  const ws = opts.workspace;
  return { ...start, brain, ...(ws ? { workspace: async () => ws } : {}) };
}

/**
 * The brain (the executors, Claude's prompts and schemas, the rules templates) is imported on its first call:
 * only research events use it, and the worker and api-stream build these deps at every cold start (issue 16).
 * Not `lazyPort`: `mode` is a plain property, known without the import.
 */
function lazyBrain(exec: ExecutorDeps, model: Model | undefined): ResearchBrain {
  let built: Promise<ResearchBrain> | undefined;
  const load = () => {
    built ??= model
      ? import('../research/claude-brain').then((m) => m.claudeBrain({ ...exec, model }))
      : import('../research/brain').then((m) => m.rulesBrain(exec));
    built.catch(() => {
      built = undefined;
    });
    return built;
  };
  return {
    mode: model ? 'claude' : 'rules',
    plan: async (input) => (await load()).plan(input),
    atomize: async (input) => (await load()).atomize(input),
    execute: async (input) => (await load()).execute(input),
    aggregate: async (input) => (await load()).aggregate(input),
  };
}
