import type { PendingAction } from '../contracts/conversations';
import { cardArgsHash } from '../domain/args-hash';
import { AppError, UpstreamError } from '../errors';
import type { ActionStore } from '../ports/action-store';
import type { AuditLog } from '../ports/audit-log';
import type { Log } from '../ports/logger';
import type { Model } from '../ports/model';
import type { ToolRegistry } from '../tools/registry';
import type { ToolContext } from '../tools/tool';
import { modelReview, withRuleFloor } from './model-reviewer';
import { reviewExecution } from './reviewer';

export interface ExecuteDeps {
  actions: ActionStore;
  registry: ToolRegistry;
  audit: AuditLog;
  log: Log;
  clock: () => Date;
  /** How long an EXECUTING action may belong to a live worker before it is reconciled (≥ worker timeout). */
  staleExecutingMs: number;
  /** Claude mode: the helper model reviews the execution too (agent/model-reviewer.ts). */
  reviewModel?: Model;
}

export type Execution = { ok: true; result: unknown } | { ok: false; error: string };

/**
 * Runs an approved action exactly once (SPEC §6.1, §6.2). Primary course: the stored arguments must hash
 * to the approved hash and pass the tool's schema (else FAILED with the reason) → conditional APPROVED →
 * EXECUTING → call the tool → EXECUTED with the result.
 * Redelivery finds EXECUTED and returns the stored result. A crash that left EXECUTING is reconciled by
 * asking the provider whether the write happened (never a blind resend); a tool that cannot be reconciled
 * is marked FAILED with "outcome unknown" for a person to check.
 */
export async function executeApprovedAction(
  deps: ExecuteDeps,
  ref: { conversationId: string; actionId: string },
  ctx: Omit<ToolContext, 'actionId'>,
): Promise<Execution> {
  const action = await deps.actions.get(ref.conversationId, ref.actionId);
  if (!action) return { ok: false, error: `action ${ref.actionId} not found` };
  switch (action.status) {
    case 'EXECUTED':
      await ensureAudited(deps, action, ['action.executed', 'action.reconciled']);
      return { ok: true, result: action.result };
    case 'FAILED':
      await ensureAudited(deps, action, ['action.failed']);
      return { ok: false, error: action.error ?? 'failed' };
    case 'APPROVED':
      return start(deps, action, ctx);
    case 'EXECUTING':
      return recover(deps, action, ctx);
    default:
      return { ok: false, error: `action is ${action.status}, not approved` };
  }
}

async function start(
  deps: ExecuteDeps,
  action: PendingAction,
  ctx: Omit<ToolContext, 'actionId'>,
): Promise<Execution> {
  if (cardArgsHash(action, action.args) !== action.argsHash) {
    await fail(deps, action, 'APPROVED', 'refused: the arguments differ from what was approved');
    return { ok: false, error: 'refused: the arguments differ from what was approved' };
  }
  // The tool's own schema again, just before anything runs: a card stored or edited around the decision's
  // check must end FAILED with the reason, never throw in the worker until it dead-letters.
  const valid = deps.registry.validateArgs(action.tool, action.args);
  if (!valid.ok) {
    const error = `refused: the arguments are not valid for ${action.tool}: ${valid.reason}`;
    await fail(deps, action, 'APPROVED', error);
    return { ok: false, error };
  }
  const now = deps.clock().toISOString();
  const claimed = await deps.actions.transition(action.conversationId, action.id, ['APPROVED'], 'EXECUTING', {
    executingSince: now,
    updatedAt: now,
  });
  if (!claimed) {
    // Another worker moved it first; follow whatever state it is in now.
    return executeApprovedAction(deps, { conversationId: action.conversationId, actionId: action.id }, ctx);
  }
  return invoke(deps, claimed, ctx);
}

async function invoke(
  deps: ExecuteDeps,
  action: PendingAction,
  ctx: Omit<ToolContext, 'actionId'>,
): Promise<Execution> {
  const tool = deps.registry.get(action.tool);
  const valid = deps.registry.validateArgs(action.tool, action.args);
  let result: unknown;
  try {
    if (!valid.ok) throw new Error(`the arguments are not valid for ${action.tool}: ${valid.reason}`);
    const approvedBy = action.decidedBy
      ? { email: action.decidedBy, ...(action.decidedByName ? { name: action.decidedByName } : {}) }
      : undefined;
    result = await tool.run(valid.args, {
      ...ctx,
      actionId: action.id,
      ...(approvedBy ? { approvedBy } : {}),
    });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const outcomeUnknown = (e as { outcomeUnknown?: boolean }).outcomeUnknown === true;
    if (outcomeUnknown || (e instanceof AppError && e.retryable && !tool.reconcile)) {
      // Leave it EXECUTING: the redelivered worker reconciles with the provider before anything is resent.
      throw new UpstreamError(`Outcome of ${action.tool} unknown: ${message}`, { cause: e });
    }
    await fail(deps, action, 'EXECUTING', message);
    return { ok: false, error: message };
  }
  const execution = await executionReview(deps, action, { ok: true, result });
  const at = deps.clock().toISOString();
  await deps.actions.transition(action.conversationId, action.id, ['EXECUTING'], 'EXECUTED', {
    result,
    executedAt: at,
    updatedAt: at,
    review: { ...action.review, execution },
  });
  await deps.audit.append({
    conversationId: action.conversationId,
    type: 'action.executed',
    actor: 'switchboard',
    at,
    data: { actionId: action.id, tool: action.tool, result },
  });
  deps.log.info('action.executed', { actionId: action.id, tool: action.tool });
  return { ok: true, result };
}

async function recover(
  deps: ExecuteDeps,
  action: PendingAction,
  ctx: Omit<ToolContext, 'actionId'>,
): Promise<Execution> {
  const since = action.executingSince ? Date.parse(action.executingSince) : 0;
  if (deps.clock().getTime() - since < deps.staleExecutingMs) {
    throw new UpstreamError(`Action ${action.id} is being executed by another worker`, {
      code: 'action_in_flight',
    });
  }
  const tool = deps.registry.get(action.tool);
  if (!tool.reconcile) {
    const error = `outcome unknown after an interruption; check ${action.tool} at the provider before retrying`;
    await fail(deps, action, 'EXECUTING', error);
    return { ok: false, error };
  }
  // Reconcile from the moment execution started, so an older identical write is not taken for this one.
  const found = await tool.reconcile(action.args, { ...ctx, now: new Date(since), actionId: action.id });
  deps.log.warn('action.reconciled', {
    actionId: action.id,
    tool: action.tool,
    happened: found !== undefined,
  });
  if (found !== undefined) {
    const at = deps.clock().toISOString();
    await deps.actions.transition(action.conversationId, action.id, ['EXECUTING'], 'EXECUTED', {
      result: found,
      executedAt: at,
      updatedAt: at,
    });
    await deps.audit.append({
      conversationId: action.conversationId,
      type: 'action.reconciled',
      actor: 'switchboard',
      at,
      data: { actionId: action.id, result: found },
    });
    return { ok: true, result: found };
  }
  // The provider has no trace of it: sending now is the first send, not a repeat.
  return invoke(deps, action, ctx);
}

/**
 * The execution review, stored in the same write as the outcome (no request of its own): the rule reviewer
 * (did it succeed), and in Claude mode the helper model's review on top, the rules as its floor.
 */
async function executionReview(
  deps: ExecuteDeps,
  action: PendingAction,
  outcome: { ok: boolean; result?: unknown; error?: string },
) {
  const rules = reviewExecution(outcome.ok, outcome.error);
  if (!deps.reviewModel) return rules;
  return withRuleFloor(
    rules,
    await modelReview(deps.reviewModel, { kind: 'execution', tool: action.tool, args: action.args, outcome }),
  );
}

async function fail(deps: ExecuteDeps, action: PendingAction, from: 'APPROVED' | 'EXECUTING', error: string) {
  const at = deps.clock().toISOString();
  await deps.actions.transition(action.conversationId, action.id, [from], 'FAILED', {
    error,
    updatedAt: at,
    review: { ...action.review, execution: reviewExecution(false, error) },
  });
  await deps.audit.append({
    conversationId: action.conversationId,
    type: 'action.failed',
    actor: 'switchboard',
    at,
    data: { actionId: action.id, error },
  });
}

/**
 * Reached again only by a redelivery: a worker that died between the final transition and its audit entry
 * left the log without the outcome, so the outcome is written now (the audit log is append-only, so check first).
 */
async function ensureAudited(deps: ExecuteDeps, action: PendingAction, types: string[]) {
  const log = await deps.audit.list(action.conversationId);
  if (log.some((e) => types.includes(e.type) && (e.data as { actionId?: string })?.actionId === action.id))
    return;
  await deps.audit.append({
    conversationId: action.conversationId,
    type: types[0] as string,
    actor: 'switchboard',
    at: action.executedAt ?? action.updatedAt,
    data:
      action.status === 'EXECUTED'
        ? { actionId: action.id, tool: action.tool, result: action.result }
        : { actionId: action.id, error: action.error },
  });
}
