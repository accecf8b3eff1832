import { type Core, getCore } from './composition';
import type { ConsumeDeps } from './use-cases/consume-record';

/** The worker's graph: the core plus the agent runtime and push delivery, built once per cold start. */
export function buildWorkerDeps(core: Core): ConsumeDeps & { core: Core } {
  return {
    ...core,
    core,
    cooldownSeconds: core.config.COOLDOWN_SECONDS,
  };
}

let cached: Promise<ReturnType<typeof buildWorkerDeps>> | undefined;
export function getWorkerDeps() {
  cached ??= getCore('agent-worker').then(buildWorkerDeps);
  return cached;
}
export function resetWorkerDeps() {
  cached = undefined;
}
