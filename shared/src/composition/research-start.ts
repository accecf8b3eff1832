import { DEFAULT_RESEARCH_LIMITS, type ResearchLimits } from '../domain/research/graph';
import type { ResearchStore } from '../ports/research-store';
import type { ResearchDeps } from '../research/engine-deps';
import type { StartResearchDeps } from '../use-cases/start-research';
import type { Core } from './core';
import { lazyPort } from './lazy-port';

/** Research settings from config: the budget per task, the review rule, retries and the step lease. */
export function researchSettings(core: Core) {
  const c = core.config;
  const limits: ResearchLimits = {
    ...DEFAULT_RESEARCH_LIMITS,
    maxNodes: c.RESEARCH_MAX_NODES,
    reviewAbove: c.RESEARCH_REVIEW_ABOVE,
  };
  return {
    limits,
    budget: {
      maxNodes: c.RESEARCH_MAX_NODES,
      maxTokens: c.RESEARCH_MAX_TOKENS,
      maxMs: c.RESEARCH_MAX_MINUTES * 60_000,
    },
    retry: { maxAttempts: c.RESEARCH_MAX_ATTEMPTS, baseDelaySeconds: 2 },
    leaseSeconds: c.RESEARCH_LEASE_SECONDS,
    mode: (c.ANTHROPIC_API_KEY ? 'claude' : 'rules') as 'rules' | 'claude',
  };
}

/** What starting, reviewing and cancelling a task need (the API and the start_research tool): no brain. */
export function buildResearchStartDeps(core: Core): StartResearchDeps & Omit<ResearchDeps, 'brain'> {
  const s = researchSettings(core);
  return {
    // Built on first use: its module brings the research contracts (zod), which the API would otherwise
    // build at every cold start for routes few cold starts serve (issue 16).
    research: lazyPort<ResearchStore>(async () =>
      (await import('../adapters/dynamo/research-store')).dynamoResearchStore(core.table),
    ),
    queue: core.queue,
    conversations: core.conversations,
    clock: core.clock,
    log: core.log,
    limits: s.limits,
    retry: s.retry,
    leaseSeconds: s.leaseSeconds,
    mode: s.mode,
    budget: s.budget,
    // Each node's status change reaches the PWA's tree over inbox's live channel (best-effort; it polls too).
    publish: (u) => core.live.publish(u),
  };
}
