import type { PendingIntent } from '../contracts/conversations';
import { isImage } from '../domain/media';
import { isAppError } from '../errors';
import { claudePlan, type Round } from './claude-planner';
import { buildInstructions } from './instructions';
import type { RunContext } from './run-context';
import { isTransient } from './transient';
import type { Plan, PlannerInput, Trigger } from './types';

/**
 * The rules planner (its intents, slot filling, chrono-node and libphonenumber) loads with the first rules-mode
 * plan: a Claude-mode worker needs it only when the model is down (issue 16: not at every cold start's init).
 */
let loadingRules: Promise<typeof import('./rules-planner').rulesPlan> | undefined;
/** Imported once per container: each `import()` still resolves the specifier again (under tsx, a loader-thread
 * round trip per rules-mode plan, most of a triage turn's own CPU in the bench). */
const rulesPlanner = () => {
  loadingRules ??= import('./rules-planner').then((m) => m.rulesPlan);
  // A failed load is not kept: the next plan tries again.
  loadingRules.catch(() => {
    loadingRules = undefined;
  });
  return loadingRules;
};

/** How many of the newest messages a prompt's history is made from (compacted in claude-planner). */
export const PROMPT_HISTORY = 30;

/**
 * Planner: one durable `plan` step — Claude when the run is in Claude mode (the rules planner takes over on a
 * model outage), the rules planner otherwise. The model's usage is added to the run, and a run over its
 * token budget stops with a message instead of planning on.
 */
export async function planStep(
  ctx: RunContext,
  trigger: Trigger,
  rounds: Round[],
  pendingIntent: PendingIntent | undefined,
): Promise<Plan> {
  const { deps, durable } = ctx;
  // A team member's own zone and defaults apply to what they ask in chat (follow #20): carried on a PWA
  // chat's event (the API read them); a texted request reads them here, in rules mode only (one cached read
  // per container per minute, outside the Claude turn's budget).
  const rules = ctx.mode !== 'claude' || !deps.model;
  const prefs =
    trigger.kind !== 'chat'
      ? undefined
      : (trigger.user.preferences ??
        (rules ? await deps.personalPreferences?.(trigger.user.id).catch(() => undefined) : undefined));
  const rulesInput: PlannerInput = {
    trigger,
    observations: rounds.flatMap((r) => r.observations),
    now: deps.clock(),
    timezone: prefs?.timezone ?? deps.settings.timezone,
    ...(prefs ? { preferences: prefs } : {}),
    hasTool: (n: string) => deps.registry.has(n),
    ...(pendingIntent ? { pendingIntent } : {}),
  };
  const step = await durable.step('plan', async () => {
    if (ctx.mode !== 'claude' || !deps.model)
      return { plan: (await rulesPlanner())(rulesInput), mode: 'rules' as const };
    try {
      const planned = await modelPlan(ctx, trigger, rounds);
      await keepNote(ctx, trigger, planned.plan);
      return planned;
    } catch (e) {
      // A store that failed while the prompt was built is not a model outage: redeliver, stay in Claude mode.
      if (isTransient(e) && !(isAppError(e) && e.code === 'model_unavailable')) throw e;
      // Model outage: the deterministic planner takes over so the team is still alerted (SPEC §3.1).
      deps.log.warn('model.unavailable', { runId: durable.run.id, error: String(e) });
      return {
        plan: (await rulesPlanner())(rulesInput),
        mode: 'rules' as const,
        fallback: String(e).slice(0, 300),
      };
    }
  });
  ctx.mode = step.mode;
  if ('usage' in step && step.usage && ctx.addUsage(step.usage, step.model ?? '')) {
    return {
      kind: 'respond',
      text: 'This request used up its token budget; I stopped here. Please narrow it down.',
    };
  }
  return step.plan;
}

/**
 * What the model wrote before its tool calls ("Let me check the lease first…") streamed to the person in the
 * PWA as it was written (issue 19); it is kept as an assistant message so a reload shows what they read.
 * Written inside the plan step, so a replay neither asks the model again nor writes it twice; in a turn it is
 * one more item of the turn's one transaction, not a request. Texted chats and inbound triage never showed it.
 */
async function keepNote(ctx: RunContext, trigger: Trigger, plan: Plan) {
  if (plan.kind !== 'calls' || !plan.note || trigger.kind !== 'chat' || trigger.channel !== 'web') return;
  const { deps, durable } = ctx;
  await ctx.ensureConversation();
  await deps.conversations.appendMessage({
    id: `m_${durable.run.id}_${durable.nextSeq}_note`,
    conversationId: ctx.convId,
    role: 'assistant',
    text: plan.note,
    createdAt: deps.clock().toISOString(),
    author: { kind: 'assistant', name: 'Switchboard' },
    runId: durable.run.id,
    channel: 'web',
  });
}

/** The prompt (instructions, memory, facts, history before this run) and one call to Claude. */
async function modelPlan(ctx: RunContext, trigger: Trigger, rounds: Round[]) {
  const { deps, durable } = ctx;
  const model = deps.model as NonNullable<typeof deps.model>;
  // Read together (one round trip): with a turn open, the facts and the history window are its two reads
  // after the turn's own (agent/turn.ts).
  const [admin, memory, facts, stored] = await Promise.all([
    deps.adminInstructions?.(),
    deps.memory?.context(),
    deps.policy?.summary(ctx.convId, deps.clock()),
    deps.conversations.listMessages(ctx.convId, { limit: PROMPT_HISTORY }),
  ]);
  const own = trigger.kind === 'chat' ? trigger.user.preferences : undefined;
  const system = buildInstructions({
    teamName: deps.settings.teamName,
    timezone: own?.timezone ?? deps.settings.timezone,
    ...(own?.eventMinutes ? { eventMinutes: own.eventMinutes } : {}),
    now: durable.run.createdAt ? new Date(durable.run.createdAt) : deps.clock(),
    trigger,
    ...(admin ? { adminInstructions: admin } : {}),
    ...(memory ? { memory } : {}),
    ...(facts ? { facts } : {}),
  });
  // Only what was said before this run, without the trigger's own messages (sent as the current turn):
  // the prompt is then the same on every replay and after a resume, and it stays a cacheable prefix.
  const history = stored.filter(
    (m) => m.createdAt < durable.run.createdAt && !ctx.triggerMessageIds.has(m.id),
  );
  const images = await triggerImages(ctx, trigger);
  const out = await claudePlan(
    model,
    { trigger, history, rounds, system, tools: deps.registry.toModelTools(), ...(images ? { images } : {}) },
    deps.settings.tokenBudget,
  );
  return { plan: out.plan, usage: out.usage, model: out.model, mode: 'claude' as const };
}

/** Anthropic's supported image types; anything else stays "[photo]" in the text. */
const MODEL_IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const MAX_IMAGES = 4;

/**
 * The photos of an inbound text, fetched through the same proxy as the PWA's. A photo that cannot be fetched
 * is left out (its "[photo]" note stays in the text) and logged: a lost image must not stop the triage.
 */
async function triggerImages(ctx: RunContext, trigger: Trigger) {
  if (trigger.kind !== 'inbound_sms' || !trigger.media?.length || !ctx.deps.mediaFetcher) return undefined;
  const out: Array<{ type: string; data: string }> = [];
  for (const m of trigger.media.filter((x) => isImage(x.type)).slice(0, MAX_IMAGES)) {
    try {
      const got = await ctx.deps.mediaFetcher.fetch(m.id);
      const type = got.type.toLowerCase().split(';')[0]?.trim() ?? '';
      if (MODEL_IMAGE_TYPES.has(type)) out.push({ type, data: got.data.toString('base64') });
    } catch (e) {
      ctx.deps.log.warn('media.unavailable', { mediaId: m.id, error: String(e) });
    }
  }
  return out.length ? out : undefined;
}
