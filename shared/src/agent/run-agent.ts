import { costUsd } from '../adapters/anthropic-model';
import type { Conversation, PendingAction, PendingIntent } from '../contracts/conversations';
import type { NotifyPayload } from '../contracts/events';
import type { Usage } from '../contracts/runs';
import { argsHash } from '../domain/args-hash';
import { isAppError } from '../errors';
import type { ActionStore } from '../ports/action-store';
import type { AuditLog } from '../ports/audit-log';
import type { ConversationStore } from '../ports/conversation-store';
import type { EventQueue } from '../ports/event-queue';
import type { IntentStore } from '../ports/intent-store';
import type { Log } from '../ports/logger';
import type { Model } from '../ports/model';
import type { RunStore } from '../ports/run-store';
import type { ToolGuard } from '../ports/tool-guard';
import type { ToolRegistry } from '../tools/registry';
import { capOutput } from '../tools/tool';
import { type CardTimerSettings, scheduleCardTimers } from '../use-cases/card-timers';
import { cardPolicy } from './card-policy';
import { claudePlan, type Round } from './claude-planner';
import { DurableRun } from './durable-run';
import { executeApprovedAction } from './execute-action';
import { buildInstructions } from './instructions';
import { REVIEW_THRESHOLD, reviewPlan } from './reviewer';
import { rulesPlan } from './rules-planner';
import type { Observation, Plan, PlannedCall, Trigger } from './types';

export interface AgentDeps {
  conversations: ConversationStore;
  actions: ActionStore;
  intents: IntentStore;
  runs: RunStore;
  audit: AuditLog;
  queue: EventQueue;
  log: Log;
  clock: () => Date;
  registry: ToolRegistry;
  guard: ToolGuard;
  /** Absent → rules mode. */
  model?: Model;
  settings: {
    teamName: string;
    timezone: string;
    maxIterations: number;
    intentTtlMinutes: number;
    tokenBudget: number;
    staleExecutingMs: number;
  };
  instructions?: () => Promise<string | undefined>;
  /** Policy hooks: feed read results into the fact store, and summarise established facts for the model. */
  policy?: {
    observe(
      conversationId: string,
      tool: string,
      args: Record<string, unknown>,
      result: unknown,
      now: Date,
    ): Promise<void>;
    summary(conversationId: string, now: Date): Promise<string>;
  };
  /** Expiry and urgent re-notification timers for cards that wait for a person. */
  cardTimers?: CardTimerSettings;
  memory?: {
    /** MEMORY.md and the tree, capped, for the instructions. */
    context(): Promise<string>;
    /** Commit and push what the turn changed; returns conflicts to resolve next turn. */
    afterTurn(summary: string): Promise<{ changed: boolean; conflicts: string[] }>;
  };
}

export interface StartRun {
  conversation: {
    id: string;
    create: () => Conversation;
    inbound: Array<{ id: string; text: string; at: string; author: string }>;
  };
  trigger: Trigger;
  runId: string;
  eventIds: string[];
  key: string;
  user?: { id: string; email: string };
  /** A fixed answer instead of planning: the pending-action gate's reply to a team member who texted. */
  reply?: string;
  /** Stored messages that carry the trigger itself (kept out of the history, as the trigger is sent anyway). */
  messageIds?: string[];
}

/** The run's input step: what it is about, fixed on the first attempt so every replay sees the same. */
interface RunInput {
  trigger: Trigger;
  pendingIntent: PendingIntent | null;
  reply?: string;
  messageIds?: string[];
}

type Step = { kind: 'done'; outcome: string } | { kind: 'paused'; actionId: string };

/**
 * The bounded loop (SPEC §3.2): Planner → Executor → Checker → Responder, durable step by step.
 * Primary course: replay or record the input → up to N rounds of { plan (rules or Claude) → run each call
 * through the guard (reads run; writes become pending actions and pause the run; approved ones execute
 * exactly once) → check for repeated failures and no progress } → respond, or fall back with a clear message.
 */
export async function driveRun(
  deps: AgentDeps,
  start: StartRun,
): Promise<{ runId: string; outcome: string }> {
  const now = deps.clock();
  const convId = start.conversation.id;
  let run = await deps.runs.get(convId, start.runId);
  if (!run) {
    run = {
      id: start.runId,
      conversationId: convId,
      status: 'running',
      mode: deps.model ? 'claude' : 'rules',
      trigger: { type: start.trigger.kind, key: start.key, eventIds: start.eventIds },
      iteration: 0,
      nextSeq: 0,
      usage: {
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        costUsd: 0,
        modelCalls: 0,
      },
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    await deps.runs.create(run);
  }
  if (run.status === 'completed' || run.status === 'failed')
    return { runId: run.id, outcome: run.outcome ?? run.status };

  const durable = new DurableRun(deps.runs, run, await deps.runs.listSteps(convId, run.id), deps.clock);
  const ctx = new RunContext(deps, durable, start);
  let result: Step;
  try {
    result = await ctx.loop();
  } catch (e) {
    if (isTransient(e)) throw e;
    deps.log.error('run.failed', { runId: run.id, error: String(e) });
    await ctx.respond(
      `Something went wrong and I stopped: ${e instanceof Error ? e.message : String(e)}`,
      true,
    );
    result = { kind: 'done', outcome: 'FAILED' };
  }
  const usage = ctx.usage;
  if (result.kind === 'paused') {
    await deps.runs.update(convId, run.id, {
      status: 'awaiting_approval',
      awaitingActionId: result.actionId,
      usage,
      nextSeq: durable.nextSeq,
      updatedAt: deps.clock().toISOString(),
    });
    return { runId: run.id, outcome: `awaiting approval of ${result.actionId}` };
  }
  if (deps.memory && ctx.memoryTouched) {
    const sync = await deps.memory.afterTurn(`Conversation ${convId}: ${result.outcome}`.slice(0, 200));
    if (sync.conflicts.length) {
      await ctx.notify(
        'alert',
        'Memory conflict',
        `The assistant's notes had a merge conflict in ${sync.conflicts.join(', ')}; it will resolve it next turn.`,
      );
    }
  }
  await deps.runs.update(convId, run.id, {
    status: result.outcome === 'FAILED' ? 'failed' : 'completed',
    awaitingActionId: undefined,
    outcome: result.outcome,
    usage,
    nextSeq: durable.nextSeq,
    updatedAt: deps.clock().toISOString(),
  });
  deps.log.info('run.metric', {
    runId: run.id,
    conversationId: convId,
    mode: run.mode,
    outcome: result.outcome,
    steps: durable.nextSeq,
    ...usage,
  });
  return { runId: run.id, outcome: result.outcome };
}

class RunContext {
  usage: Usage = {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0,
    modelCalls: 0,
  };
  memoryTouched = false;
  private conversation?: Conversation;
  /** The trigger as stored in the run's input step (a resumed run is started without one). */
  private trigger?: Trigger;
  private triggerMessageIds = new Set<string>();
  private mode: 'claude' | 'rules';

  constructor(
    private readonly deps: AgentDeps,
    private readonly durable: DurableRun,
    private readonly start: StartRun,
  ) {
    this.mode = durable.run.mode;
  }

  private get convId() {
    return this.start.conversation.id;
  }

  /** Creates the team conversation on the first visible output (a NO_ACTION_NEEDED run creates none). */
  async ensureConversation(): Promise<Conversation> {
    if (this.conversation) return this.conversation;
    let c = await this.deps.conversations.get(this.convId);
    if (!c) {
      c = this.start.conversation.create();
      await this.deps.conversations.create(c).catch(async (e) => {
        if ((e as { name?: string }).name !== 'ConditionalCheckFailedException') throw e;
      });
    }
    for (const m of this.start.conversation.inbound) {
      await this.deps.conversations.appendMessage({
        id: m.id,
        conversationId: this.convId,
        role: 'inbound',
        text: m.text,
        createdAt: m.at,
        channel: this.start.trigger.kind === 'inbound_email' ? 'email' : 'sms',
        author: { kind: 'contact', name: m.author },
      });
    }
    this.conversation = c;
    return c;
  }

  async loop(): Promise<Step> {
    const { deps, durable } = this;
    // The pending intent is read inside the input step: a run resumed after the intent's expiry (an approval
    // that came later than the TTL) must still finish the request it started with.
    const stored = await durable.step<RunInput | Trigger>('input', async () => ({
      trigger: this.start.trigger,
      pendingIntent:
        this.start.reply === undefined ? ((await deps.intents.get(this.convId, deps.clock())) ?? null) : null,
      ...(this.start.reply !== undefined ? { reply: this.start.reply } : {}),
      messageIds: [...(this.start.messageIds ?? []), ...this.start.conversation.inbound.map((m) => m.id)],
    }));
    // Runs recorded before the input step held more than the trigger.
    const input: RunInput = 'trigger' in stored ? stored : { trigger: stored, pendingIntent: null };
    const trigger = input.trigger;
    this.trigger = trigger;
    const pendingIntent = input.pendingIntent ?? undefined;
    this.triggerMessageIds = new Set(input.messageIds ?? []);
    if (input.reply !== undefined) {
      await this.respond(input.reply);
      return { kind: 'done', outcome: 'replied' };
    }
    const rounds: Round[] = [];
    const failures = new Map<string, number>();
    let lastCalls = '';
    let reviewRejections = 0;

    for (let iteration = 0; iteration < deps.settings.maxIterations; iteration++) {
      const plan = await this.plan(trigger, rounds, pendingIntent);
      if (plan.kind === 'no_action') {
        deps.log.info('run.no_action', {
          runId: durable.run.id,
          reason: plan.reason,
          preview: previewOf(trigger),
        });
        return { kind: 'done', outcome: 'NO_ACTION_NEEDED' };
      }
      if (plan.kind === 'ask') {
        const at = deps.clock();
        await deps.intents.put({
          conversationId: this.convId,
          ...plan.intent,
          createdAt: at.toISOString(),
          expiresAt: new Date(at.getTime() + deps.settings.intentTtlMinutes * 60_000).toISOString(),
        });
        await this.respond(plan.text);
        return {
          kind: 'done',
          outcome: `asked: ${plan.intent.intent} needs ${plan.intent.missing.join(', ')}`,
        };
      }
      if (plan.kind === 'respond') {
        if (pendingIntent) await deps.intents.clear(this.convId);
        await this.respond(plan.text);
        return { kind: 'done', outcome: 'responded' };
      }
      // Checker: a plan identical to the previous round's makes no progress.
      const signature = JSON.stringify(plan.calls.map((c) => [c.name, c.args]));
      if (signature === lastCalls) return this.fallback('I was repeating the same step without progress.');
      lastCalls = signature;

      const observations: Observation[] = [];
      for (const call of plan.calls) {
        const outcome = await this.execute(trigger, call);
        if ('paused' in outcome) return { kind: 'paused', actionId: outcome.paused };
        observations.push(outcome);
        if (outcome.status === 'refused' && outcome.error?.startsWith('reviewer')) reviewRejections++;
        if (['error', 'failed'].includes(outcome.status)) {
          const key = `${call.name}:${JSON.stringify(call.args)}`;
          const n = (failures.get(key) ?? 0) + 1;
          failures.set(key, n);
          if (n >= 2) return this.fallback(`${call.name} kept failing: ${outcome.error ?? 'unknown error'}`);
        }
      }
      if (reviewRejections >= 2) return this.fallback('my draft did not pass review twice');
      rounds.push({ plan, observations });
    }
    return this.fallback(`I reached the limit of ${deps.settings.maxIterations} planning rounds.`);
  }

  private async plan(
    trigger: Trigger,
    rounds: Round[],
    pendingIntent: PendingIntent | undefined,
  ): Promise<Plan> {
    const { deps, durable } = this;
    const observations = rounds.flatMap((r) => r.observations);
    const rulesInput = {
      trigger,
      observations,
      now: deps.clock(),
      timezone: deps.settings.timezone,
      hasTool: (n: string) => deps.registry.has(n),
      ...(pendingIntent ? { pendingIntent } : {}),
    };
    const step = await durable.step('plan', async () => {
      if (this.mode === 'claude' && deps.model) {
        try {
          const [admin, memory, facts] = await Promise.all([
            deps.instructions?.(),
            deps.memory?.context(),
            deps.policy?.summary(this.convId, deps.clock()),
          ]);
          const system = buildInstructions({
            teamName: deps.settings.teamName,
            timezone: deps.settings.timezone,
            now: durable.run.createdAt ? new Date(durable.run.createdAt) : deps.clock(),
            trigger,
            ...(admin ? { adminInstructions: admin } : {}),
            ...(memory ? { memory } : {}),
            ...(facts ? { facts } : {}),
          });
          // Only what was said before this run, without the trigger's own messages (sent as the current turn):
          // the prompt is then the same on every replay and after a resume, and it stays a cacheable prefix.
          const history = (await deps.conversations.listMessages(this.convId, { limit: 30 })).filter(
            (m) => m.createdAt < durable.run.createdAt && !this.triggerMessageIds.has(m.id),
          );
          const out = await claudePlan(
            deps.model,
            { trigger, history, rounds, system, tools: deps.registry.toModelTools() },
            deps.settings.tokenBudget,
          );
          return { plan: out.plan, usage: out.usage, model: out.model, mode: 'claude' as const };
        } catch (e) {
          // A store that failed while the prompt was built is not a model outage: redeliver, stay in Claude mode.
          if (isTransient(e) && !(isAppError(e) && e.code === 'model_unavailable')) throw e;
          // Model outage: the deterministic planner takes over so the team is still alerted (SPEC §3.1).
          deps.log.warn('model.unavailable', { runId: durable.run.id, error: String(e) });
          return { plan: rulesPlan(rulesInput), mode: 'rules' as const, fallback: String(e).slice(0, 300) };
        }
      }
      return { plan: rulesPlan(rulesInput), mode: 'rules' as const };
    });
    this.mode = step.mode;
    if ('usage' in step && step.usage) {
      const u = step.usage;
      this.usage.inputTokens += u.inputTokens;
      this.usage.outputTokens += u.outputTokens;
      this.usage.cacheReadTokens += u.cacheReadTokens;
      this.usage.cacheWriteTokens += u.cacheWriteTokens;
      this.usage.modelCalls += 1;
      this.usage.costUsd += costUsd(step.model ?? '', u);
      if (this.usage.inputTokens + this.usage.cacheReadTokens > deps.settings.tokenBudget * 4) {
        return {
          kind: 'respond',
          text: 'This request used up its token budget; I stopped here. Please narrow it down.',
        };
      }
    }
    return step.plan;
  }

  /** Executor: one call through the guard. Reads run; writes become pending actions or run once if approved. */
  private async execute(trigger: Trigger, call: PlannedCall): Promise<Observation | { paused: string }> {
    const { deps, durable } = this;
    const base = {
      name: call.name,
      args: call.args,
      ...(call.toolUseId ? { toolUseId: call.toolUseId } : {}),
    };
    if (!deps.registry.has(call.name))
      return { ...base, status: 'error', error: `There is no tool named ${call.name}.` };
    const valid = deps.registry.validateArgs(call.name, call.args);
    if (!valid.ok) return { ...base, status: 'error', error: `Invalid arguments: ${valid.reason}` };
    const tool = deps.registry.get(call.name);
    const args = valid.args;
    const origin = this.mode === 'claude' ? 'model' : 'planner';
    const toolCtx = {
      conversationId: this.convId,
      runId: durable.run.id,
      now: deps.clock(),
      timezone: deps.settings.timezone,
    };
    const env = {
      now: deps.clock(),
      timezone: deps.settings.timezone,
      callReadTool: async (name: string, a: Record<string, unknown>) => {
        const t = deps.registry.get(name);
        if (t.kind !== 'read') throw new Error(`${name} is not a read tool`);
        const v = await deps.guard.check(
          { tool: name, kind: 'read', args: a, origin: 'solver', conversationId: this.convId },
          env,
        );
        if (v.decision === 'deny') throw new Error(v.reason);
        return t.run(a, toolCtx);
      },
    };

    if (tool.kind !== 'write') {
      return durable.step('tool_result', async () => {
        const verdict = await deps.guard.check(
          { tool: call.name, kind: tool.kind, args, origin, conversationId: this.convId },
          env,
        );
        // Only an explicit allow runs a read or a memory note: the kind never waves a call through.
        if (verdict.decision !== 'allow')
          return { ...base, status: 'refused' as const, error: verdict.reason };
        try {
          const raw = await tool.run(args, toolCtx);
          if (tool.kind === 'read')
            await deps.policy?.observe(this.convId, call.name, args, raw, deps.clock());
          const result = capOutput(raw);
          if (tool.kind === 'internal') {
            this.memoryTouched = true;
            await deps.audit.append({
              conversationId: this.convId,
              type: 'memory.write',
              actor: 'switchboard',
              data: { tool: call.name, args: summarizeArgs(args) },
            });
          }
          return { ...base, status: 'ok' as const, result };
        } catch (e) {
          if (isAppError(e) && e.retryable && e.code !== 'model_unavailable') {
            return { ...base, status: 'error' as const, error: `${e.message} (temporary; try again later)` };
          }
          return { ...base, status: 'error' as const, error: e instanceof Error ? e.message : String(e) };
        }
      });
    }

    const proposal = await durable.step('approval_requested', async () => {
      const verdict = await deps.guard.check(
        { tool: call.name, kind: 'write', args, origin, conversationId: this.convId },
        env,
      );
      // A write blocked only on a question for a person (e.g. "is this urgent enough to text during quiet
      // hours?") becomes a card that shows the question: approving it is that person's answer. A write
      // blocked on anything else (unknown recipient, a hard rule) is refused outright.
      const needsAnswer =
        verdict.decision === 'deny' &&
        (verdict.missing?.questions.length ?? 0) > 0 &&
        (verdict.missing?.tools.length ?? 0) === 0;
      if (verdict.decision === 'deny' && !needsAnswer) {
        return {
          status: 'refused' as const,
          error: verdict.reason,
          why: verdict.why,
          missing: verdict.missing,
        };
      }
      const review = reviewPlan({ ...call, args }, trigger);
      if (review.score < REVIEW_THRESHOLD) {
        await deps.audit.append({
          conversationId: this.convId,
          type: 'plan.rejected_by_review',
          actor: 'reviewer',
          data: { tool: call.name, review },
        });
        return {
          status: 'refused' as const,
          error: `reviewer scored the draft ${review.score}/10: ${review.issues.join(' ')}`,
        };
      }
      const conversation = await this.ensureConversation();
      const at = deps.clock().toISOString();
      const auto = verdict.decision === 'allow';
      const action: PendingAction = {
        id: `act_${durable.run.id.replace(/^run_/, '')}_${durable.nextSeq}`,
        conversationId: conversation.id,
        runId: durable.run.id,
        tool: call.name,
        args,
        argsHash: argsHash(call.name, args),
        summary: tool.summarize(args),
        status: auto ? 'APPROVED' : 'PENDING',
        proposedBy: origin === 'model' ? 'model' : 'planner',
        reason: needsAnswer
          ? `${call.reason}. Blocked until a person answers: ${verdict.missing?.questions.join(' ')}`
          : call.reason,
        review: { plan: review },
        policy: cardPolicy(origin === 'planner' ? call.policy : undefined, verdict),
        createdAt: at,
        updatedAt: at,
        version: 0,
        ...(auto ? { decidedBy: 'policy', decidedAt: at } : {}),
      };
      // A replayed step (crash after the create) must not count the same card twice.
      const created = await deps.actions.create(action).then(
        () => true,
        (e) => {
          if ((e as { name?: string }).name !== 'ConditionalCheckFailedException') throw e;
          return false;
        },
      );
      if (!auto && created) await deps.conversations.adjustPending(conversation.id, 1);
      else if (!auto) await this.recountPending(conversation.id);
      await deps.audit.append({
        conversationId: conversation.id,
        type: auto ? 'action.auto_approved' : 'action.proposed',
        actor: origin,
        at,
        data: { actionId: action.id, tool: call.name, args, review, why: action.policy?.why },
      });
      await deps.conversations.appendMessage({
        id: `m_${action.id}`,
        conversationId: conversation.id,
        role: 'tool',
        text: action.summary,
        createdAt: at,
        author: { kind: 'assistant', name: 'Switchboard' },
        runId: durable.run.id,
        actionId: action.id,
        tool: { name: call.name, args },
      });
      if (!auto) {
        await this.notify('approval', `Approve: ${action.summary}`.slice(0, 120), call.reason, action.id);
        const urgent = (trigger.kind === 'inbound_sms' && trigger.urgent) || call.name === 'escalate';
        await scheduleCardTimers(deps, action, { urgent });
      }
      return { status: 'created' as const, actionId: action.id };
    });
    if (proposal.status === 'refused') return { ...base, status: 'refused', error: proposal.error };

    const action = await deps.actions.get(this.convId, proposal.actionId);
    if (!action) return { ...base, status: 'error', error: 'the pending action disappeared' };
    if (action.status === 'PENDING') return { paused: action.id };
    return durable.step('tool_result', async () => {
      if (action.status === 'DENIED' || action.status === 'EXPIRED') {
        return {
          ...base,
          actionId: action.id,
          status: 'denied' as const,
          ...(action.denyReason ? { error: action.denyReason } : {}),
        };
      }
      const exec = await executeApprovedAction(
        { ...deps, staleExecutingMs: deps.settings.staleExecutingMs },
        { conversationId: this.convId, actionId: action.id },
        toolCtx,
      );
      await deps.conversations.appendMessage({
        id: `m_${action.id}_result`,
        conversationId: this.convId,
        role: 'tool',
        text: exec.ok ? `Done: ${action.summary}` : `Failed: ${action.summary} — ${exec.error}`,
        createdAt: deps.clock().toISOString(),
        author: { kind: 'assistant', name: 'Switchboard' },
        runId: durable.run.id,
        actionId: action.id,
        tool: {
          name: action.tool,
          args: action.args,
          ...(exec.ok ? { result: capOutput(exec.result, 2000) } : { error: exec.error }),
        },
      });
      const edited = action.edit ? { edited: true } : {};
      return exec.ok
        ? {
            ...base,
            args: action.args,
            actionId: action.id,
            status: 'executed' as const,
            result: capOutput(exec.result),
            ...edited,
          }
        : {
            ...base,
            args: action.args,
            actionId: action.id,
            status: 'failed' as const,
            error: exec.error,
            ...edited,
          };
    });
  }

  /**
   * A replayed proposal (the card already existed): the worker that created it may have died before counting
   * it, so the counter is raised to the number of cards still waiting (never lowered here: decisions do that).
   */
  private async recountPending(conversationId: string) {
    const waiting = (await this.deps.actions.listByConversation(conversationId)).filter(
      (a) => a.status === 'PENDING',
    ).length;
    const counted = (await this.deps.conversations.get(conversationId))?.pendingCount ?? 0;
    if (waiting > counted) await this.deps.conversations.adjustPending(conversationId, waiting - counted);
  }

  /** Responder: the answer goes where the person is — the web chat, their phone (team members), or a team note. */
  async respond(text: string, isError = false): Promise<void> {
    const { deps, durable } = this;
    await durable.step('response', async () => {
      await this.ensureConversation();
      const trigger = this.trigger ?? this.start.trigger;
      if (trigger.kind === 'chat' && trigger.channel === 'sms' && deps.registry.has('reply_to_sender')) {
        // A team member texting the company line gets the answer by text from the assistant's line; the
        // autonomy rule "reply in the channel the person chose" lets this one write skip the approval card.
        const exec = await this.execute(trigger, {
          name: 'reply_to_sender',
          args: { text: text.slice(0, 1500) },
          reason: 'Answer the team member by text',
        });
        if ('paused' in exec) return { text, delivered: 'awaiting approval' };
      }
      await deps.conversations.appendMessage({
        id: `m_${durable.run.id}_${durable.nextSeq}`,
        conversationId: this.convId,
        role: 'assistant',
        text,
        createdAt: deps.clock().toISOString(),
        author: { kind: 'assistant', name: 'Switchboard' },
        runId: durable.run.id,
        channel: trigger.kind === 'chat' ? (trigger.channel === 'sms' ? 'sms' : 'web') : undefined,
      });
      await deps.audit.append({
        conversationId: this.convId,
        type: isError ? 'run.error' : 'run.response',
        actor: 'switchboard',
        data: { text: text.slice(0, 500) },
      });
      if (trigger.kind !== 'chat')
        await this.notify('alert', this.conversation?.title ?? 'Switchboard', text);
      return { text };
    });
  }

  private async fallback(why: string): Promise<Step> {
    await this.respond(`I could not finish this: ${why} A team member should take it from here.`);
    return { kind: 'done', outcome: `fallback: ${why}` };
  }

  async notify(kind: NotifyPayload['kind'], title: string, body: string, actionId?: string) {
    const at = this.deps.clock().toISOString();
    await this.deps.queue.send({
      // Deterministic id: a replayed step re-sends the same event, which the worker's ledger de-duplicates.
      id: `notify_${actionId ?? `${this.durable.run.id}_${this.durable.nextSeq}`}`,
      type: 'notify',
      correlationId: `conv:${this.convId}`,
      key: `notify:${this.convId}`,
      occurredAt: at,
      payload: {
        kind,
        conversationId: this.convId,
        title: title.slice(0, 120),
        body: body.slice(0, 500),
        ...(actionId ? { actionId } : {}),
        ...(this.conversation?.contact
          ? { contact: { name: this.conversation.contact.name, phone: this.conversation.contact.phone } }
          : {}),
      },
    });
  }
}

/**
 * Failures a later attempt may not meet: our retryable errors, and AWS SDK / network errors that are
 * throttling, server-side or a dropped connection (after the SDK's own retries). The worker rethrows them so
 * SQS redelivers the event and the durable run continues; anything else ends the run with a message.
 */
export function isTransient(e: unknown): boolean {
  if (isAppError(e)) return e.retryable;
  if (typeof e !== 'object' || e === null) return false;
  const err = e as {
    name?: string;
    code?: string;
    $fault?: string;
    $retryable?: unknown;
    $metadata?: { httpStatusCode?: number };
  };
  return (
    err.$fault === 'server' ||
    err.$retryable !== undefined ||
    (err.$metadata?.httpStatusCode ?? 0) >= 500 ||
    /Throttl|ProvisionedThroughputExceeded|RequestLimitExceeded|TooManyRequests|ServiceUnavailable|InternalServerError|TimeoutError/.test(
      err.name ?? '',
    ) ||
    ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN'].includes(err.code ?? '')
  );
}

function previewOf(t: Trigger) {
  const text =
    t.kind === 'chat'
      ? t.text
      : t.kind === 'inbound_sms'
        ? t.texts.join(' ')
        : `${t.email.subject}: ${t.email.text}`;
  return text.slice(0, 40);
}

function summarizeArgs(args: Record<string, unknown>) {
  return Object.fromEntries(
    Object.entries(args).map(([k, v]) => [
      k,
      typeof v === 'string' && v.length > 200 ? `${v.slice(0, 200)}…` : v,
    ]),
  );
}
