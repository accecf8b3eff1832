import { anthropicModel } from './adapters/anthropic-model';
import { gitWorkspaceOptionsFromConfig, openGitWorkspace } from './adapters/git-workspace';
import { createOpenPhoneHttpGateway } from './adapters/openphone-http';
import { createTwilioPager } from './adapters/twilio-pager';
import { defaultGuard } from './agent/default-guard';
import type { HandleEventsDeps } from './agent/handle-events';
import { loadMemoryContext } from './agent/memory-context';
import type { Core } from './composition';
import type { Workspace } from './ports/workspace';
import { contactDirectory } from './tools/contact-directory';
import { escalate } from './tools/escalation';
import { openPhoneTools, replyToSender } from './tools/openphone';
import { type BoundTool, bindAll, bindTool, ToolRegistry } from './tools/registry';
import { runCodeTool } from './tools/sandbox';
import { workspaceTools } from './tools/workspace';
import { decideApproval } from './use-cases/decide-approval';

/**
 * Config → the agent's tools, guard and model. An integration whose credentials are absent is simply not
 * registered (the rules planner says "not configured"); nothing is faked in production code.
 */
export async function buildAgent(
  core: Core,
): Promise<{ deps: HandleEventsDeps; registry: ToolRegistry; workspace?: Workspace }> {
  const c = core.config;
  const tools: BoundTool[] = [];
  let directory: HandleEventsDeps['directory'];

  if (c.OPENPHONE_API_KEY) {
    const sms = createOpenPhoneHttpGateway({ baseUrl: c.OPENPHONE_API_BASE, apiKey: c.OPENPHONE_API_KEY });
    directory = contactDirectory(sms, c.ALLOWED_EMAIL_DOMAINS);
    const lines = {
      shared: c.OPENPHONE_SHARED_NUMBER ?? '',
      assistant: c.OPENPHONE_ASSISTANT_NUMBER ?? c.OPENPHONE_SHARED_NUMBER ?? '',
    };
    const opDeps = { sms, directory, lines };
    tools.push(...bindAll(openPhoneTools, opDeps));
    tools.push(bindTool(replyToSender, { ...opDeps, conversations: core.conversations }));
  }
  if (c.TWILIO_ACCOUNT_SID && c.TWILIO_AUTH_TOKEN && c.TWILIO_FROM_NUMBER) {
    const pager = createTwilioPager({
      accountSid: c.TWILIO_ACCOUNT_SID,
      authToken: c.TWILIO_AUTH_TOKEN,
      fromNumber: c.TWILIO_FROM_NUMBER,
      ...(c.TWILIO_API_BASE ? { apiBase: c.TWILIO_API_BASE } : {}),
      statusCallbackUrl: `${c.PUBLIC_BASE_URL}/webhooks/twilio/status`,
    });
    tools.push(bindTool(escalate, { pager, onCallNumbers: c.ONCALL_NUMBERS, onCallHours: c.ONCALL_HOURS }));
  }
  tools.push(bindTool(runCodeTool, {}));

  let workspace: Workspace | undefined;
  if (c.MEMORY_GIT_URL) {
    workspace = await openGitWorkspace({ ...gitWorkspaceOptionsFromConfig(c), logger: core.log });
    tools.push(...bindAll(workspaceTools, { workspace }));
  }

  const registry = new ToolRegistry(tools);
  const ws = workspace;
  const deps: HandleEventsDeps = {
    ...core,
    registry,
    guard: defaultGuard({ escalationNeedsApproval: c.ESCALATION_REQUIRES_APPROVAL }),
    ...(c.ANTHROPIC_API_KEY
      ? {
          model: anthropicModel({
            apiKey: c.ANTHROPIC_API_KEY,
            ...(c.ANTHROPIC_BASE_URL ? { baseURL: c.ANTHROPIC_BASE_URL } : {}),
            model: c.ANTHROPIC_MODEL,
            helperModel: c.ANTHROPIC_HELPER_MODEL,
          }),
        }
      : {}),
    settings: {
      teamName: c.TEAM_NAME,
      timezone: c.TEAM_TIMEZONE,
      maxIterations: c.MAX_ITERATIONS,
      intentTtlMinutes: c.PENDING_INTENT_TTL_MINUTES,
      tokenBudget: c.RUN_TOKEN_BUDGET,
      staleExecutingMs: 6 * 60_000,
    },
    instructions: async () => (await core.instructions.current())?.text,
    ...(ws
      ? {
          memory: {
            async context() {
              await ws.sync();
              return (await loadMemoryContext(ws)).text;
            },
            async afterTurn(summary: string) {
              const r = await ws.commitAndPush({
                conversationId: summary.split(':')[0]?.replace('Conversation ', '') ?? 'unknown',
                summary,
              });
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
    decide: (input) =>
      decideApproval({ ...core, validateArgs: (tool, args) => registry.validateArgs(tool, args) }, input),
  };
  return { deps, registry, ...(workspace ? { workspace } : {}) };
}
