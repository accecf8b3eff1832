import type { CardRedraft, PendingAction, ReviewScore } from '../contracts/conversations';
import { argsHash } from '../domain/args-hash';
import { type Signature, styleDraft } from '../domain/draft-style';
import { ConflictError } from '../errors';
import type { GuardVerdict } from '../ports/tool-guard';
import { cardPeopleSafe } from './card-people';
import { cardPolicy } from './card-policy';
import { scheduleCardTimers, scheduleTeamNotify } from './card-timers';
import { modelReview, withRuleFloor } from './model-reviewer';
import { REVIEW_THRESHOLD, reviewPlan } from './reviewer';
import type { RunContext } from './run-context';
import type { CallScope } from './tool-step';
import type { PlannedCall, RedraftNote, Trigger } from './types';

type Proposal = { status: 'refused'; error: string } | { status: 'created'; actionId: string };

/**
 * A write, one durable `approval_requested` step: the guard, the reviewer, then the card (pending, or
 * approved by the policy), its audit entry and message, and the approval push. Refused writes never
 * become cards.
 */
export function proposeAction(
  ctx: RunContext,
  trigger: Trigger,
  call: PlannedCall,
  scope: CallScope,
  redraft?: RedraftApplied,
): Promise<Proposal> {
  const { deps } = ctx;
  return ctx.durable.step('approval_requested', async () => {
    // Rules mode writes the team's style lessons into its template drafts (Claude reads them in MEMORY.md).
    const styled = await styleWithLessons(ctx, trigger, call.name, scope);
    scope = { ...scope, args: styled.args };
    const verdict = await deps.guard.check(
      { tool: call.name, kind: 'write', args: scope.args, origin: scope.origin, conversationId: ctx.convId },
      scope.env,
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
    const review = await planReview(ctx, trigger, call, scope);
    if (review.score < REVIEW_THRESHOLD) {
      await deps.audit.append({
        conversationId: ctx.convId,
        type: 'plan.rejected_by_review',
        actor: 'reviewer',
        data: { tool: call.name, review },
      });
      return {
        status: 'refused' as const,
        error: `reviewer scored the draft ${review.score}/10: ${review.issues.join(' ')}`,
      };
    }
    const action = await createCard(
      ctx,
      trigger,
      call,
      scope,
      verdict,
      review,
      needsAnswer,
      redraft,
      styled.applied,
    );
    return { status: 'created' as const, actionId: action.id };
  });
}

/** The card, counted once even when the step is replayed after a crash, with its audit entry and message. */
async function createCard(
  ctx: RunContext,
  trigger: Trigger,
  call: PlannedCall,
  scope: CallScope,
  verdict: GuardVerdict,
  review: ReviewScore,
  needsAnswer: boolean,
  redraft: RedraftApplied | undefined,
  lessons: string[] = [],
): Promise<PendingAction> {
  const { deps, durable } = ctx;
  const { args, origin } = scope;
  const conversation = await ctx.ensureConversation();
  const at = deps.clock().toISOString();
  const auto = verdict.decision === 'allow';
  const people = await cardPeopleSafe(deps.cardPeople, call.name, args, conversation);
  const action: PendingAction = {
    id: `act_${durable.run.id.replace(/^run_/, '')}_${durable.nextSeq}`,
    conversationId: conversation.id,
    runId: durable.run.id,
    tool: call.name,
    args,
    argsHash: argsHash(call.name, args),
    summary: scope.tool.summarize(args),
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
    ...(trigger.redraft ? { redraft: redraftOf(trigger.redraft, redraft) } : {}),
    ...(people ? { people } : {}),
    ...(lessons.length ? { lessons } : {}),
    ...(call.whileLead ? { whileLead: call.whileLead } : {}),
  };
  // A replayed step (crash after the create) must not count the same card twice.
  const created = await deps.actions.create(action).then(
    () => true,
    (e) => {
      if (!(e instanceof ConflictError)) throw e;
      return false;
    },
  );
  if (!auto && created) await deps.conversations.adjustPending(conversation.id, 1);
  if (trigger.redraft) await linkReplaced(ctx, trigger.redraft.fromActionId, action.id);
  else if (!auto) await recountPending(ctx, conversation.id);
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
  if (!auto) await announceCard(ctx, trigger, call, action);
  return action;
}

/** A card waiting for a person: push it (with its expiry, for the notification's action token) and set its timers. */
async function announceCard(ctx: RunContext, trigger: Trigger, call: PlannedCall, action: PendingAction) {
  const { deps } = ctx;
  const expiresAt = deps.cardTimers
    ? new Date(Date.parse(action.createdAt) + deps.cardTimers.expiryMinutes * 60_000).toISOString()
    : undefined;
  const urgent = (trigger.kind === 'inbound_sms' && trigger.urgent) || call.name === 'escalate';
  // Issue 19: a card in someone's conversation goes to them first, and to everyone if it still waits.
  const assignee = urgent ? undefined : ctx.conversation?.assignee;
  const routed = assignee ? await scheduleTeamNotify(deps, action, assignee) : false;
  await ctx.notify('approval', `Approve: ${action.summary}`.slice(0, 120), call.reason, action.id, {
    argsHash: action.argsHash,
    ...(expiresAt ? { expiresAt } : {}),
    urgent,
    ...(routed && assignee ? { route: { assignee, stage: 'assignee' as const } } : {}),
  });
  await scheduleCardTimers(deps, action, { urgent });
}

/**
 * The plan review: the rule reviewer always; in Claude mode a model-drafted write is also reviewed by the
 * helper model (agent/model-reviewer.ts), the rule review as its floor — the regexes alone never score it.
 */
async function planReview(ctx: RunContext, trigger: Trigger, call: PlannedCall, scope: CallScope) {
  const rules = reviewPlan({ ...call, args: scope.args }, trigger);
  const model = ctx.deps.reviewModel;
  if (ctx.mode !== 'claude' || scope.origin !== 'model' || !model) return rules;
  return withRuleFloor(
    rules,
    await modelReview(model, {
      kind: 'plan',
      tool: call.name,
      args: scope.args,
      context: triggerText(trigger),
    }),
  );
}

/** What a write answers, for the reviewer's relevance score. */
function triggerText(t: Trigger): string | undefined {
  if (t.kind === 'inbound_sms') return t.texts.join('\n');
  if (t.kind === 'inbound_email') return `${t.email.subject}\n\n${t.email.text}`;
  if (t.kind === 'chat') return t.text;
  return undefined;
}

/**
 * The team's style lessons and the person's signature applied to a draft, by the one function that decides
 * a draft's closing (domain/draft-style.ts: a person's signature preference wins over a learned sign-off).
 * Lessons apply to rules-mode template drafts (Claude reads them in MEMORY.md); the signature to any draft
 * to someone outside the team, of the person the draft is for — who asked for it in chat or asked for the
 * redraft, else the conversation's assignee. A model's draft keeps a last line that does not open with closing
 * words (`strict`). The preference is one cached Query per container per minute (DESIGN §2); a lessons or
 * preferences outage costs only the styling.
 */
async function styleWithLessons(
  ctx: RunContext,
  trigger: Trigger,
  tool: string,
  scope: CallScope,
): Promise<{ args: Record<string, unknown>; applied: string[] }> {
  const templated = ctx.mode === 'rules' && scope.origin === 'planner';
  const lessons = templated ? ((await ctx.deps.lessons?.active().catch(() => [])) ?? []) : [];
  const signature = SIGNED(tool, scope.args) ? await signatureFor(ctx, trigger) : undefined;
  if (!templated && !signature) return { args: scope.args, applied: [] };
  return styleDraft(lessons, tool, scope.args, { signature, strict: scope.origin === 'model' });
}

/** Writes to people outside the team, which carry a signature (a reminder push to a team member does not). */
const SIGNED = (tool: string, args: Record<string, unknown>) =>
  tool === 'send_message' ||
  tool === 'send_email' ||
  (tool === 'schedule_followup' && args.kind !== 'reminder');

async function signatureFor(ctx: RunContext, trigger: Trigger): Promise<Signature | undefined> {
  const prefs = ctx.deps.personalPreferences;
  if (!prefs) return undefined;
  const person =
    trigger.redraft?.by ??
    (trigger.kind === 'chat'
      ? { id: trigger.user.id, name: trigger.user.name ?? trigger.user.email }
      : await ctx.ensureConversation().then((c) => (c.assignee ? { id: c.assignee, name: '' } : undefined)));
  if (!person) return undefined;
  const text = (await prefs(person.id).catch(() => undefined))?.signature;
  return text ? { text, owner: person.name || 'the assignee' } : undefined;
}

export interface RedraftApplied {
  applied: string[];
  notApplied: string[];
}

function redraftOf(r: RedraftNote, applied: RedraftApplied | undefined): CardRedraft {
  return {
    fromActionId: r.fromActionId,
    kind: r.kind,
    ...(r.instruction ? { instruction: r.instruction } : {}),
    by: r.by,
    applied: applied?.applied ?? [],
    notApplied: applied?.notApplied ?? [],
  };
}

/** The replaced card points at its successor, so the PWA can say "replaced by the draft below". */
async function linkReplaced(ctx: RunContext, fromActionId: string, toActionId: string) {
  const old = await ctx.deps.actions.get(ctx.convId, fromActionId);
  if (!old || old.supersededBy || (old.status !== 'SUPERSEDED' && old.status !== 'DENIED')) return;
  await ctx.deps.actions.transition(ctx.convId, fromActionId, [old.status], old.status, {
    supersededBy: toActionId,
  });
}

/**
 * A replayed proposal (the card already existed): the worker that created it may have died before counting
 * it, so the counter is raised to the number of cards still waiting (never lowered here: decisions do that).
 */
async function recountPending(ctx: RunContext, conversationId: string) {
  const { deps } = ctx;
  const waiting = (await deps.actions.listByConversation(conversationId)).filter(
    (a) => a.status === 'PENDING',
  ).length;
  const counted = (await deps.conversations.get(conversationId))?.pendingCount ?? 0;
  if (waiting > counted) await deps.conversations.adjustPending(conversationId, waiting - counted);
}
