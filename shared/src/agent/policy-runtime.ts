import { createPolicyGuard, type PolicyRuntime, type Rulebase, runSeeds } from '../domain/policy';
import type { FactStore } from '../ports/fact-store';
import type { Log } from '../ports/logger';
import type { ToolGuard } from '../ports/tool-guard';
import { askPolicy, setFocus } from '../tools/policy';
import type { BoundTool } from '../tools/registry';

export interface ConversationPolicyOptions {
  rulebase: Rulebase;
  facts: FactStore;
  tools: Array<{ name: string; kind: 'read' | 'write' | 'internal' }>;
  timezone: string;
  settings: Record<string, string | number | boolean>;
  log: Log;
}

/**
 * The policy engine per conversation (its facts and focus belong to one conversation), behind the single
 * ToolGuard hook the runtime calls for every tool call. A failure inside the engine never lets a write
 * through: it falls back to "needs approval" for writes and "allowed" for reads, and is logged.
 */
export function conversationPolicy(opts: ConversationPolicyOptions) {
  const runtimes = new Map<string, PolicyRuntime>();
  const runtimeFor = (conversationId: string, now = new Date()) => {
    let r = runtimes.get(conversationId);
    if (!r) {
      r = createPolicyGuard({
        rulebase: opts.rulebase,
        facts: opts.facts,
        conversationId,
        seeds: runSeeds({ now, timezone: opts.timezone, settings: opts.settings }),
      });
      // Warm runtimes are per cold start; a long-lived worker should not keep every conversation.
      if (runtimes.size > 200) runtimes.clear();
      runtimes.set(conversationId, r);
    }
    return r;
  };

  const guard: ToolGuard = {
    async check(call, env) {
      try {
        return await runtimeFor(call.conversationId, env.now).check(call, env);
      } catch (e) {
        opts.log.error('policy.guard_failed', { tool: call.tool, error: String(e) });
        return call.kind === 'write'
          ? {
              decision: 'require_approval',
              reason: `The policy could not be evaluated (${String(e).slice(0, 120)}); a person must approve.`,
            }
          : { decision: 'allow', reason: 'Reads are allowed when the policy cannot be evaluated.' };
      }
    },
  };

  const perConversation = (tool: typeof askPolicy | typeof setFocus): BoundTool => ({
    name: tool.name,
    description: tool.description,
    kind: tool.kind,
    group: tool.group,
    input: tool.input,
    run: (args, ctx) => tool.run({ policy: runtimeFor(ctx.conversationId, ctx.now) }, args as never, ctx),
    summarize: (args) => tool.summarize?.(args as never) ?? tool.name,
  });

  return {
    guard,
    tools: [perConversation(askPolicy), perConversation(setFocus)],
    /** Feeds read results into the fact store through the rulebase's bindings. */
    async observe(
      conversationId: string,
      tool: string,
      args: Record<string, unknown>,
      result: unknown,
      now: Date,
    ) {
      try {
        await runtimeFor(conversationId, now).recordToolResult(tool, args, result, now);
      } catch (e) {
        opts.log.warn('policy.observe_failed', { tool, error: String(e) });
      }
    },
    async summary(conversationId: string, now: Date) {
      try {
        return await runtimeFor(conversationId, now).summarize({ now, timezone: opts.timezone });
      } catch {
        return '';
      }
    },
  };
}
