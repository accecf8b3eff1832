import { anthropicModel } from '../adapters/anthropic-model';
import { DynamoFactStore } from '../adapters/dynamo/fact-store';
import { meteredModel } from '../adapters/metered';
import { workspaceLessons } from '../adapters/workspace-lessons';
import { decisionCheck, readToolFor } from '../agent/decision-check';
import { loadMemoryContext } from '../agent/memory-context';
import { conversationPolicy } from '../agent/policy-runtime';
import { guardSensitiveReplies, workspaceSensitiveValues } from '../agent/sensitive-guard';
import {
  checkEditedRulebase,
  POLICY_REFRESH_MS,
  rulebaseRefresher,
  savedPolicyText,
} from '../agent/team-rulebase';
import { DEFAULT_ANTHROPIC_HELPER_MODEL, DEFAULT_ANTHROPIC_MODEL } from '../config';
import { checkConfiguredModels } from '../domain/model-lifecycle';
import {
  DEFAULT_RULEBASE_FILES,
  loadRulebases,
  type Rulebase,
  SPEC_TOOLS,
  type ToolInfo,
} from '../domain/policy';
import { skillsSection } from '../domain/skills';
import { createTriageClassifier } from '../domain/triage/classifier';
import type { Log } from '../ports/logger';
import type { OnCallPager } from '../ports/on-call-pager';
import type { SmsGateway } from '../ports/sms-gateway';
import type { Workspace } from '../ports/workspace';
import { clickUpTools } from '../tools/clickup';
import { contactDirectory } from '../tools/contact-directory';
import { dbSearchTools } from '../tools/db-search';
import { escalate } from '../tools/escalation';
import { scheduleFollowUp } from '../tools/followups';
import { googleTools } from '../tools/google';
import { openPhoneTools, replyToSender } from '../tools/openphone';
import { proposePolicyChange } from '../tools/policy-change';
import { type BoundTool, bindAll, bindTool, ToolRegistry } from '../tools/registry';
import { startResearchTool } from '../tools/research';
import { runCodeTool } from '../tools/sandbox';
import { listSkills, loadSkill } from '../tools/skills';
import { webTools } from '../tools/web';
import { welcomeContact } from '../tools/welcome-contact';
import { workspaceTools } from '../tools/workspace';
import { cachedPersonalPreferences } from '../use-cases/preferences';
import type { RunEventGroupDeps } from '../use-cases/run-event-group';
import { startResearch } from '../use-cases/start-research';
import type { Core } from './core';
import { buildResearchDeps, buildResearchStartDeps } from './research';
import {
  buildClickUpToolDeps,
  buildDbSearchToolDeps,
  buildGoogleToolDeps,
  buildWebToolDeps,
  lazyPort,
  pageBudgetDeps,
} from './tool-deps';

/**
 * Config → the agent's tools, guard and model. An integration whose credentials are absent is simply not
 * registered (the rules planner says "not configured"); nothing is faked in production code.
 */
export async function buildAgent(
  core: Core,
): Promise<{ deps: RunEventGroupDeps; registry: ToolRegistry; workspace?: Workspace }> {
  const c = core.config;
  if (c.ANTHROPIC_API_KEY) checkModels(core);
  const tools: BoundTool[] = [];
  let directory: RunEventGroupDeps['directory'];
  let lines: { shared: string; assistant: string } | undefined;

  if (c.OPENPHONE_API_KEY) {
    const apiKey = c.OPENPHONE_API_KEY;
    // The client and its response contracts (~200 zod schemas) load on the first OpenPhone call (issue 16).
    const sms = lazyPort<SmsGateway>(async () =>
      (await import('../adapters/openphone-http')).createOpenPhoneHttpGateway({
        baseUrl: c.OPENPHONE_API_BASE,
        apiKey,
      }),
    );
    directory = contactDirectory(sms, c.ALLOWED_EMAIL_DOMAINS);
    lines = {
      shared: c.OPENPHONE_SHARED_NUMBER ?? '',
      assistant: c.OPENPHONE_ASSISTANT_NUMBER ?? c.OPENPHONE_SHARED_NUMBER ?? '',
    };
    const opDeps = { sms, directory, lines };
    tools.push(...bindAll(openPhoneTools, opDeps));
    tools.push(bindTool(replyToSender, { ...opDeps, conversations: core.conversations }));
    tools.push(bindTool(welcomeContact, opDeps));
  }
  if (c.TWILIO_ACCOUNT_SID && c.TWILIO_AUTH_TOKEN && c.TWILIO_FROM_NUMBER) {
    const twilio = {
      accountSid: c.TWILIO_ACCOUNT_SID,
      authToken: c.TWILIO_AUTH_TOKEN,
      fromNumber: c.TWILIO_FROM_NUMBER,
      ...(c.TWILIO_API_BASE ? { apiBase: c.TWILIO_API_BASE } : {}),
      statusCallbackUrl: `${c.PUBLIC_BASE_URL}/webhooks/twilio/status`,
    };
    // Paging is for emergencies: the Twilio client (and libphonenumber with it) loads on the first page.
    const pager = lazyPort<OnCallPager>(async () =>
      (await import('../adapters/twilio-pager')).createTwilioPager(twilio),
    );
    tools.push(
      bindTool(escalate, {
        pager,
        onCallNumbers: c.ONCALL_NUMBERS,
        onCallHours: c.ONCALL_HOURS,
        budget: pageBudgetDeps(core, directory),
      }),
    );
  }
  const google = buildGoogleToolDeps(c);
  if (google) tools.push(...bindAll(googleTools, google));
  const clickUp = buildClickUpToolDeps(c);
  if (clickUp) tools.push(...bindAll(clickUpTools, clickUp));
  tools.push(...bindAll(dbSearchTools, buildDbSearchToolDeps(c, core.table)));
  const web = buildWebToolDeps(c);
  if (web.fallback) tools.push(...bindAll(webTools, web.fallback));
  tools.push(bindTool(runCodeTool, {}));
  // Timed follow-ups need the scheduler (EventBridge Scheduler; the emulator locally).
  const timers = core.cardTimers.timers;
  if (timers) tools.push(bindTool(scheduleFollowUp, { followups: core.followups, timers }));
  const researchStart = buildResearchStartDeps(core);
  tools.push(bindTool(startResearchTool, { start: (input) => startResearch(researchStart, input) }));

  let workspace: Workspace | undefined;
  if (c.MEMORY_GIT_URL) {
    // isomorphic-git and the merge code load with the memory feature, not at every cold start's init.
    const { gitWorkspaceOptionsFromConfig, openGitWorkspace } = await import('../adapters/git-workspace');
    workspace = await openGitWorkspace({ ...gitWorkspaceOptionsFromConfig(c), logger: core.log });
    tools.push(...bindAll(workspaceTools, { workspace }));
    // The team's skills (follow #20): listed in the instructions, loaded by name when one applies.
    tools.push(bindTool(loadSkill, { workspace }));
    // Runs only after an admin approved its card; writes policy/ as that admin (never the file tools).
    tools.push(
      bindTool(proposePolicyChange, {
        workspace,
        checkRulebase: checkEditedRulebase,
        savedText: savedPolicyText,
      }),
    );
  }

  // Validate against every tool the system defines, configured here or not: a guard for an integration
  // that is switched off in this deployment is not an error.
  const byName = new Map<string, ToolInfo>(SPEC_TOOLS.map((t) => [t.name, t]));
  for (const t of [...tools, ...POLICY_TOOL_INFO]) byName.set(t.name, { name: t.name, kind: t.kind });
  const toolInfo = [...byName.values()];
  const rulebase = await loadTeamRulebase(workspace, toolInfo, core.log);
  // An admin's saved policy edit is in force on warm workers within POLICY_REFRESH_MS (read from the working
  // copy each turn syncs; no pull and no DynamoDB request of its own).
  const refresher = workspace ? rulebaseRefresher(workspace, toolInfo, core.log, { sync: false }) : undefined;
  await refresher?.prime().catch(() => undefined);
  const policy = conversationPolicy({
    rulebase,
    facts: new DynamoFactStore(core.table),
    tools: toolInfo,
    timezone: c.TEAM_TIMEZONE,
    settings: { escalation_requires_approval: c.ESCALATION_REQUIRES_APPROVAL },
    log: core.log,
    ...(refresher
      ? { refresh: { load: refresher.load, everyMs: POLICY_REFRESH_MS, clock: core.clock } }
      : {}),
  });
  tools.push(...policy.tools);
  const registry = new ToolRegistry(tools);
  const ws = workspace;
  const deps: RunEventGroupDeps = {
    ...core,
    registry,
    // Follow-up conditions read these at fire time ("if the task is still open", "if not confirmed").
    ...(clickUp ? { board: clickUp.board } : {}),
    ...(google ? { calendar: google.calendar } : {}),
    guard: guardSensitiveReplies(policy.guard, workspaceSensitiveValues(workspace, core.log)),
    policy,
    ...(c.ANTHROPIC_API_KEY
      ? {
          model: meteredModel(
            anthropicModel({
              apiKey: c.ANTHROPIC_API_KEY,
              ...(c.ANTHROPIC_BASE_URL ? { baseURL: c.ANTHROPIC_BASE_URL } : {}),
              model: c.ANTHROPIC_MODEL,
              helperModel: c.ANTHROPIC_HELPER_MODEL,
              serverTools: web.serverTools,
            }),
            core.metrics,
          ),
        }
      : {}),
    triage: createTriageClassifier(),
    urgentKeywords: c.URGENT_KEYWORDS,
    settings: {
      threadWindowDays: c.THREAD_WINDOW_DAYS,
      teamName: c.TEAM_NAME,
      timezone: c.TEAM_TIMEZONE,
      maxIterations: c.MAX_ITERATIONS,
      intentTtlMinutes: c.PENDING_INTENT_TTL_MINUTES,
      tokenBudget: c.RUN_TOKEN_BUDGET,
      staleExecutingMs: c.STALE_EXECUTING_SECONDS * 1000,
      teamDomains: c.ALLOWED_EMAIL_DOMAINS,
    },
    adminInstructions: cachedInstructions(core),
    personalPreferences: cachedPersonalPreferences(core),
    ...(ws
      ? {
          memory: {
            async context() {
              await ws.sync();
              const skills = skillsSection(await listSkills(ws));
              return [(await loadMemoryContext(ws)).text, skills].filter(Boolean).join('\n\n');
            },
            async afterTurn(turn: { conversationId: string; summary: string }) {
              const r = await ws.commitAndPush(turn);
              core.log.info('memory.sync', {
                changed: r.changes.length,
                pushed: r.pushed,
                attempts: r.attempts,
                ...r.timings,
              });
              return { changed: r.changes.length > 0, conflicts: r.conflicts };
            },
          },
        }
      : {}),
    ...(directory ? { directory } : {}),
    // Lessons from decisions (cards #18): files in lessons/ and the MEMORY.md index, system-written.
    ...(ws ? { lessons: workspaceLessons(ws, core.log, core.clock) } : {}),
    // A card's FROM/TO in names (cards #18): the same cached address book, lines and mailbox the tools use.
    cardPeople: {
      ...(directory ? { directory } : {}),
      ...(lines ? { lines } : {}),
      ...(c.GOOGLE_IMPERSONATE_USER ? { mailbox: c.GOOGLE_IMPERSONATE_USER } : {}),
    },
    checkDecision: decisionCheck({
      guard: policy.guard,
      clock: core.clock,
      timezone: c.TEAM_TIMEZONE,
      readTool: (name, args, conversationId) =>
        readToolFor(registry, name, args, conversationId, core.clock, c.TEAM_TIMEZONE),
    }),
  };
  // Claude mode reviews drafts and executions with the helper model too (cards #18, agent/model-reviewer.ts).
  if (deps.model && c.MODEL_REVIEWERS) deps.reviewModel = deps.model;

  deps.research = buildResearchDeps(core, {
    registry,
    ...(deps.model ? { model: deps.model } : {}),
    ...(workspace ? { workspace } : {}),
  });
  return { deps, registry, ...(workspace ? { workspace } : {}) };
}

/** A retired model stops start-up (ConfigError); a deprecated or unknown one is a warning in the log. */
function checkModels(core: Core) {
  const c = core.config;
  const notices = checkConfiguredModels(
    { ANTHROPIC_MODEL: c.ANTHROPIC_MODEL, ANTHROPIC_HELPER_MODEL: c.ANTHROPIC_HELPER_MODEL },
    core.clock(),
    { ANTHROPIC_MODEL: DEFAULT_ANTHROPIC_MODEL, ANTHROPIC_HELPER_MODEL: DEFAULT_ANTHROPIC_HELPER_MODEL },
  );
  for (const n of notices) if (n.state !== 'current') core.log.warn('model.lifecycle', { ...n });
}

/**
 * The admins' instructions live outside the conversation's partition, so a turn does not pay a read for them:
 * they are read at most once a minute per container, and an admin's edit is in force within 60 s (a failed
 * read is not cached).
 */
export const INSTRUCTIONS_TTL_MS = 60_000;
function cachedInstructions(core: Core): () => Promise<string | undefined> {
  let cached: { at: number; text: Promise<string | undefined> } | undefined;
  return () => {
    const now = core.clock().getTime();
    if (!cached || now - cached.at >= INSTRUCTIONS_TTL_MS) {
      const text = core.instructions.current().then((i) => i?.text);
      cached = { at: now, text };
      text.catch(() => {
        if (cached?.text === text) cached = undefined;
      });
    }
    return cached.text;
  };
}

const POLICY_TOOL_INFO: ToolInfo[] = [
  { name: 'ask_policy', kind: 'read' },
  { name: 'set_focus', kind: 'internal' },
];

/**
 * The team's rulebase lives in the memory workspace (`policy/*.rules`) so the team can edit it; the
 * defaults are written there on first use. A rulebase that no longer loads (a bad edit) is reported and
 * the shipped defaults are used instead, so a typo can never switch the guard off.
 */
async function loadTeamRulebase(
  workspace: Workspace | undefined,
  tools: ToolInfo[],
  log: Log,
): Promise<Rulebase> {
  const defaults = () => loadRulebases({ ...DEFAULT_RULEBASE_FILES }, { tools });
  if (!workspace) return defaults();
  try {
    const listed = (await workspace.listFiles('policy').catch(() => [])).filter((f) =>
      f.path.endsWith('.rules'),
    );
    if (listed.length === 0) {
      for (const [path, text] of Object.entries(DEFAULT_RULEBASE_FILES))
        await workspace.writeFile(path, text);
      await workspace.commitAndPush({ conversationId: 'system', summary: 'Default policy rulebases' });
      return defaults();
    }
    const files: Record<string, string> = {};
    for (const f of listed) files[f.path] = await workspace.readFile(f.path);
    return loadRulebases(files, { tools });
  } catch (e) {
    log.error('policy.rulebase_invalid', { error: String(e).slice(0, 2000) });
    return defaults();
  }
}
