import type { DynamoTable } from '../adapters/dynamo/base';
import type { Config } from '../config';
import type { PendingAction } from '../contracts/conversations';
import type { Log } from '../ports/logger';
import type { Workspace } from '../ports/workspace';
import type { ToolRegistry } from '../tools/registry';
import type { ArgsCheck, DecisionCheck, ValidateDecisionDeps } from '../use-cases/validate-decision';

/**
 * The checks a decision needs where no agent is composed (the API): every write tool's own schema and the
 * policy's preconditions with the reads they need (contacts through OpenPhone, the conversation's facts).
 * Built on the first approval, not at cold start — most API calls never decide a card — and the tool
 * modules are imported then, so the API's cold path stays small.
 */
export function lazyDecisionDeps(opts: {
  config: Config;
  table: DynamoTable;
  log: Log;
  clock: () => Date;
  /** The memory workspace, for the team's own rulebase (the shipped defaults when absent or broken). */
  workspace?: () => Promise<Workspace>;
}): ValidateDecisionDeps {
  let built:
    | Promise<{
        registry: ToolRegistry;
        check: (c: PendingAction, a: Record<string, unknown>) => Promise<DecisionCheck>;
      }>
    | undefined;
  const get = () => {
    built ??= build(opts);
    built.catch(() => {
      built = undefined;
    });
    return built;
  };
  return {
    async validateArgs(tool, args): Promise<ArgsCheck> {
      return (await get()).registry.validateArgs(tool, args);
    },
    async checkDecision(card, args) {
      return (await get()).check(card, args);
    },
    ...(opts.workspace ? { staleness: policyStaleness(opts.workspace) } : {}),
  };
}

/**
 * A policy proposal approved against a file an admin saved after it was made would undo that save: the
 * file as saved now (after a pull) must still be the version the proposal recorded.
 */
function policyStaleness(workspace: () => Promise<Workspace>) {
  return async (card: PendingAction, args: Record<string, unknown>): Promise<string | undefined> => {
    if (card.tool !== 'propose_policy_change' || typeof args.baseVersion !== 'string') return undefined;
    const [{ staleProposal }, { savedPolicyText }] = await Promise.all([
      import('../tools/policy-change'),
      import('../agent/team-rulebase'),
    ]);
    const ws = await workspace();
    await ws.sync();
    const path = String(args.path);
    const text = String(args.text);
    return staleProposal({ path, text, baseVersion: args.baseVersion }, await savedPolicyText(ws, path));
  };
}

async function build(opts: Parameters<typeof lazyDecisionDeps>[0]) {
  const [
    { writeToolRegistry },
    policy,
    { DynamoFactStore },
    { conversationPolicy },
    { decisionCheck },
    teamRulebase,
  ] = await Promise.all([
    import('./write-tool-registry'),
    import('../domain/policy'),
    import('../adapters/dynamo/fact-store'),
    import('../agent/policy-runtime'),
    import('../agent/decision-check'),
    import('../agent/team-rulebase'),
  ]);
  const c = opts.config;
  const { registry, readTools } = await writeToolRegistry(c);
  const byName = new Map(policy.SPEC_TOOLS.map((t) => [t.name, t]));
  for (const t of registry.list()) byName.set(t.name, { name: t.name, kind: t.kind });
  const tools = [
    ...byName.values(),
    { name: 'ask_policy', kind: 'read' as const },
    { name: 'set_focus', kind: 'internal' as const },
  ];
  const workspace = opts.workspace ? await opts.workspace().catch(() => undefined) : undefined;
  const rulebase = await teamRulebase.readTeamRulebase(workspace, tools, opts.log);
  // The API's decisions follow an admin's policy edit within POLICY_REFRESH_MS (a pull, then the files).
  const refresher = workspace
    ? teamRulebase.rulebaseRefresher(workspace, tools, opts.log, { sync: true })
    : undefined;
  await refresher?.prime().catch(() => undefined);
  const engine = conversationPolicy({
    rulebase,
    facts: new DynamoFactStore(opts.table),
    tools,
    timezone: c.TEAM_TIMEZONE,
    settings: { escalation_requires_approval: c.ESCALATION_REQUIRES_APPROVAL },
    log: opts.log,
    ...(refresher
      ? {
          refresh: {
            load: refresher.load,
            everyMs: teamRulebase.POLICY_REFRESH_MS,
            clock: opts.clock,
          },
        }
      : {}),
  });
  const check = decisionCheck({
    guard: engine.guard,
    clock: opts.clock,
    timezone: c.TEAM_TIMEZONE,
    async readTool(name, args, conversationId) {
      const tool = readTools.get(name);
      if (!tool) throw new Error(`${name} is not available to the decision check`);
      // The solver stores what it fetched as facts of the conversation, as in the worker.
      return tool.run(args, {
        conversationId,
        runId: 'decision',
        now: opts.clock(),
        timezone: c.TEAM_TIMEZONE,
      });
    },
  });
  return { registry, check };
}
