import { createPolicyGuard, type PolicyRuntime, type Rulebase, runSeeds } from '../domain/policy';
import { protectedWriteVerdict } from '../domain/protected-paths';
import type { FactProvenance, FactStore, FactValue } from '../ports/fact-store';
import type { Log } from '../ports/logger';
import type { GuardVerdict, ToolCallRequest, ToolGuard } from '../ports/tool-guard';
import { askPolicy, setFocus } from '../tools/policy';
import type { BoundTool } from '../tools/registry';
import { type StagedFactWrites, turnFactCache } from './turn-fact-cache';

export interface ConversationPolicyOptions {
  rulebase: Rulebase;
  facts: FactStore;
  tools: Array<{ name: string; kind: 'read' | 'write' | 'internal' }>;
  timezone: string;
  settings: Record<string, string | number | boolean>;
  log: Log;
  /**
   * Picks up an admin's saved policy edit on a warm container: `load` (agent/team-rulebase.ts
   * rulebaseRefresher) is asked at most every `everyMs` and returns a rulebase only when the files changed.
   */
  refresh?: { load: () => Promise<Rulebase | undefined>; everyMs: number; clock: () => Date };
}

/** The policy runtime of one conversation, built on first use from the rulebase in force. */
type RuntimeFor = (conversationId: string, now?: Date) => PolicyRuntime;

/**
 * The policy engine per conversation (its facts and focus belong to one conversation), behind the single
 * ToolGuard hook the runtime calls for every tool call. A failure inside the engine never lets a write
 * through: it falls back to "needs approval" for writes and "allowed" for reads, and is logged.
 */
export function conversationPolicy(opts: ConversationPolicyOptions) {
  const facts = turnFactCache(opts.facts);
  const { runtimeFor, refreshed } = policyRuntimes(opts, facts);
  return {
    guard: policyGuard(runtimeFor, refreshed, opts.log),
    tools: [perConversation(askPolicy, runtimeFor), perConversation(setFocus, runtimeFor)],
    /** A turn reads the conversation's facts once (turn-fact-cache.ts); call the release when it ends. */
    holdFacts: (conversationId: string, writes?: StagedFactWrites, opts?: { readNow?: boolean }) =>
      facts.hold(conversationId, writes, opts),
    ...factOperations(runtimeFor, opts),
  };
}

/**
 * One runtime per conversation over the rulebase in force. The rulebase is re-read at most once per
 * `refresh.everyMs`; a failed re-read keeps the rulebase in force (logged), a changed one drops the warm
 * runtimes so the next call compiles against the edit.
 */
function policyRuntimes(opts: ConversationPolicyOptions, facts: FactStore) {
  const runtimes = new Map<string, PolicyRuntime>();
  let rulebase = opts.rulebase;
  let checkedAt = opts.refresh?.clock().getTime() ?? 0;
  // One seed array per minute (today's date, the zone, the settings), shared by every conversation's engine:
  // the engine parses an array once (domain/policy/guard.ts).
  let seeds: { minute: number; facts: ReturnType<typeof runSeeds> } | undefined;
  const seedsAt = (now: Date) => {
    const minute = Math.floor(now.getTime() / 60_000);
    if (seeds?.minute !== minute)
      seeds = { minute, facts: runSeeds({ now, timezone: opts.timezone, settings: opts.settings }) };
    return seeds.facts;
  };
  const refreshed = async () => {
    const r = opts.refresh;
    if (!r || r.clock().getTime() - checkedAt < r.everyMs) return;
    checkedAt = r.clock().getTime();
    try {
      const next = await r.load();
      if (!next) return;
      rulebase = next;
      runtimes.clear();
      opts.log.info('policy.rulebase_reloaded', { files: next.files });
    } catch (e) {
      opts.log.warn('policy.rulebase_reload_failed', { error: String(e).slice(0, 500) });
    }
  };
  const runtimeFor: RuntimeFor = (conversationId, now = new Date()) => {
    let r = runtimes.get(conversationId);
    if (!r) {
      r = createPolicyGuard({
        rulebase,
        facts,
        conversationId,
        seeds: seedsAt(now),
      });
      // Warm runtimes are per cold start; a long-lived worker should not keep every conversation.
      if (runtimes.size > 200) runtimes.clear();
      runtimes.set(conversationId, r);
    }
    return r;
  };
  return { runtimeFor, refreshed };
}

function policyGuard(runtimeFor: RuntimeFor, refreshed: () => Promise<void>, log: Log): ToolGuard {
  return {
    async check(call, env) {
      await refreshed();
      try {
        return await runtimeFor(call.conversationId, env.now).check(call, env);
      } catch (e) {
        log.error('policy.guard_failed', { tool: call.tool, error: String(e) });
        return failClosedVerdict(call, e);
      }
    },
  };
}

/** What a call gets when the engine itself failed: never a write through, never a protected path. */
function failClosedVerdict(call: ToolCallRequest, e: unknown): GuardVerdict {
  const refused = protectedWriteVerdict(call);
  if (refused) return refused;
  // Only reads pass an engine that cannot be evaluated; a memory write waits for the next run.
  if (call.kind === 'read')
    return { decision: 'allow', reason: 'Reads are allowed when the policy cannot be evaluated.' };
  const why = `The policy could not be evaluated (${String(e).slice(0, 120)})`;
  return call.kind === 'write'
    ? { decision: 'require_approval', reason: `${why}; a person must approve.` }
    : { decision: 'deny', reason: `${why}; try the note again later.` };
}

function perConversation(tool: typeof askPolicy | typeof setFocus, runtimeFor: RuntimeFor): BoundTool {
  return {
    name: tool.name,
    description: tool.description,
    kind: tool.kind,
    group: tool.group,
    input: tool.input,
    run: (args, ctx) => tool.run({ policy: runtimeFor(ctx.conversationId, ctx.now) }, args as never, ctx),
    summarize: (args) => tool.summarize?.(args as never) ?? tool.name,
  };
}

/** The fact-side operations the agent loop and the cards call on a conversation's policy. */
function factOperations(runtimeFor: RuntimeFor, opts: ConversationPolicyOptions) {
  return {
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
    /**
     * Records base facts established outside any tool call — the fields the lead-email parser read — with
     * their source. Facts about predicates the team's rulebase does not declare (the shipped leads rules do not
     * use the move-in date or the budget) are skipped and named, not an error: the rulebase decides what the
     * policy reasons about, and a team that adds `base budget(Lead, Amount).` gets the budget recorded.
     */
    async recordFacts(
      conversationId: string,
      facts: Array<{ predicate: string; args: FactValue[] }>,
      provenance: FactProvenance,
      now: Date,
    ): Promise<{ recorded: string[]; skipped: string[] }> {
      const rt = runtimeFor(conversationId, now);
      const known = facts.filter(
        (f) => rt.rulebase.basePreds.has(f.predicate) && rt.rulebase.arity.get(f.predicate) === f.args.length,
      );
      const stored = known.length ? await rt.recordFacts(known, provenance, now) : [];
      return {
        recorded: stored.map((f) => `${f.predicate}(${f.args.join(', ')})`),
        skipped: facts.filter((f) => !known.includes(f)).map((f) => f.predicate),
      };
    },
    /**
     * A person's answer to one of the card's questions (cards #18), kept with who answered: `holds: false`
     * records the "no", so the question does not come back until the askable's ttl says it may.
     */
    async recordAnswer(
      conversationId: string,
      recordAs: string,
      answer: { by: string; holds: boolean; now: Date },
    ): Promise<void> {
      await runtimeFor(conversationId, answer.now).recordAnswer(recordAs, answer);
    },
    /** Points a context variable at an entity; false when the team's rulebase does not declare it. */
    async setFocus(conversationId: string, name: string, value: FactValue, now: Date): Promise<boolean> {
      const rt = runtimeFor(conversationId, now);
      if (!rt.rulebase.contexts.has(name)) return false;
      await rt.setFocus(name, value, { now, timezone: opts.timezone });
      return true;
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
