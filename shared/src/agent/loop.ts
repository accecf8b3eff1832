import { Checker } from './checker';
import type { Round } from './claude-planner';
import { planStep } from './plan-step';
import { fallback, respond, type Step } from './respond';
import type { RunContext, RunInput } from './run-context';
import { executeCall } from './tool-step';
import type { Observation, Plan, PlannedCall, Trigger } from './types';

/**
 * The bounded loop (SPEC §3.2). Primary course: replay or record the input → up to N rounds of { plan
 * (plan-step) → run each call through the guard (tool-step: reads run; writes become pending actions and
 * pause the run; approved ones execute exactly once) → check for repeated failures and no progress
 * (checker) } → respond (respond.ts), or fall back with a clear message.
 */
export async function runLoop(ctx: RunContext): Promise<Step> {
  const input = await recordInput(ctx);
  const trigger = input.trigger;
  const pendingIntent = input.pendingIntent ?? undefined;
  if (input.reply !== undefined) {
    await respond(ctx, input.reply);
    return { kind: 'done', outcome: 'replied' };
  }
  if (input.proposal) return proposeOnly(ctx, trigger, input.proposal);
  const rounds: Round[] = [];
  const checker = new Checker();
  for (let iteration = 0; iteration < ctx.deps.settings.maxIterations; iteration++) {
    const plan = await planStep(ctx, trigger, rounds, pendingIntent);
    if (plan.kind !== 'calls') return finish(ctx, plan, trigger, pendingIntent !== undefined);
    const repeated = checker.repeated(plan.calls);
    if (repeated) return fallback(ctx, repeated);
    const observations: Observation[] = [];
    for (const call of plan.calls) {
      const outcome = await executeCall(ctx, trigger, call);
      if ('paused' in outcome) return { kind: 'paused', actionId: outcome.paused };
      observations.push(outcome);
      const stop = checker.observed(call, outcome);
      if (stop) return fallback(ctx, stop);
    }
    const stop = checker.afterRound();
    if (stop) return fallback(ctx, stop);
    rounds.push({ plan, observations });
  }
  return fallback(ctx, `I reached the limit of ${ctx.deps.settings.maxIterations} planning rounds.`);
}

/**
 * The run's input step. The pending intent is read inside it: a run resumed after the intent's expiry (an
 * approval that came later than the TTL) must still finish the request it started with.
 */
async function recordInput(ctx: RunContext): Promise<RunInput> {
  const { deps, start } = ctx;
  const stored = await ctx.durable.step<RunInput | Trigger>('input', async () => ({
    trigger: start.trigger,
    pendingIntent:
      start.reply === undefined ? ((await deps.intents.get(ctx.convId, deps.clock())) ?? null) : null,
    ...(start.reply !== undefined ? { reply: start.reply } : {}),
    ...(start.proposal ? { proposal: start.proposal } : {}),
    messageIds: [...(start.messageIds ?? []), ...start.conversation.inbound.map((m) => m.id)],
  }));
  // Runs recorded before the input step held more than the trigger.
  const input: RunInput = 'trigger' in stored ? stored : { trigger: stored, pendingIntent: null };
  ctx.trigger = input.trigger;
  ctx.triggerMessageIds = new Set(input.messageIds ?? []);
  return input;
}

/**
 * A write decided elsewhere (a research task's writing step): one call through the executor, so the guard,
 * the reviewer and the card are the same as for any planned write; approved, it runs exactly once (the
 * resumed run replays this step). No planner is asked.
 */
async function proposeOnly(ctx: RunContext, trigger: Trigger, call: PlannedCall): Promise<Step> {
  const outcome = await executeCall(ctx, trigger, call);
  if ('paused' in outcome) return { kind: 'paused', actionId: outcome.paused };
  const what = ctx.deps.registry.has(call.name)
    ? ctx.deps.registry.get(call.name).summarize(outcome.args)
    : call.name;
  const text =
    outcome.status === 'executed'
      ? `Done: ${what}.`
      : outcome.status === 'denied'
        ? `Not sent: ${what}${outcome.error ? ` — ${outcome.error}` : ''}.`
        : `I could not propose ${what}: ${outcome.error ?? outcome.status}.`;
  await respond(ctx, text);
  return { kind: 'done', outcome: `proposal ${outcome.status}` };
}

/** A plan that ends the round: nothing to do, a question for a missing slot, or the answer. */
async function finish(
  ctx: RunContext,
  plan: Exclude<Plan, { kind: 'calls' }>,
  trigger: Trigger,
  hadPendingIntent: boolean,
): Promise<Step> {
  const { deps } = ctx;
  if (plan.kind === 'no_action') {
    deps.log.info('run.no_action', { runId: ctx.runId, reason: plan.reason, preview: previewOf(trigger) });
    return { kind: 'done', outcome: 'NO_ACTION_NEEDED' };
  }
  if (plan.kind === 'ask') {
    const at = deps.clock();
    await deps.intents.put({
      conversationId: ctx.convId,
      ...plan.intent,
      createdAt: at.toISOString(),
      expiresAt: new Date(at.getTime() + deps.settings.intentTtlMinutes * 60_000).toISOString(),
    });
    await respond(ctx, plan.text);
    return { kind: 'done', outcome: `asked: ${plan.intent.intent} needs ${plan.intent.missing.join(', ')}` };
  }
  if (hadPendingIntent) await deps.intents.clear(ctx.convId);
  await respond(ctx, plan.text);
  return { kind: 'done', outcome: 'responded' };
}

function previewOf(t: Trigger) {
  const text =
    t.kind === 'chat'
      ? t.text
      : t.kind === 'inbound_sms'
        ? t.texts.join(' ')
        : t.kind === 'call'
          ? `Call with ${t.contactName ?? t.from}`
          : `${t.email.subject}: ${t.email.text}`;
  return text.slice(0, 40);
}
