import type { PendingAction } from '../contracts/conversations';
import type { ConversationStore } from '../ports/conversation-store';
import { capOutput } from '../tools/tool';
import { executeApprovedAction } from './execute-action';
import type { RunContext } from './run-context';
import type { CallScope } from './tool-step';
import type { Observation } from './types';

/**
 * "Urgent · on-call paged at 14:02" (inbox #19): the page went out, so the conversation says when. In a turn
 * the conversation is the one the turn holds, so this is folded into the turn's own write.
 */
async function markPaged(
  deps: { conversations: ConversationStore; clock: () => Date },
  conversationId: string,
  action: PendingAction,
) {
  const at = deps.clock().toISOString();
  const c = await deps.conversations.get(conversationId);
  const reason = typeof action.args.reason === 'string' ? action.args.reason : action.summary;
  await deps.conversations.setInboxFields(conversationId, {
    urgent: { ...(c?.urgent ?? { at, reason }), pagedAt: at },
  });
}

/**
 * A decided card, one durable `tool_result` step: denied or expired becomes an observation the planner
 * answers; approved is executed exactly once (execute-action.ts) and its result shown in the conversation.
 */
export function approvedStep(ctx: RunContext, action: PendingAction, scope: CallScope): Promise<Observation> {
  const { deps } = ctx;
  const { base } = scope;
  return ctx.durable.step('tool_result', async () => {
    if (action.status === 'DENIED' || action.status === 'EXPIRED' || action.status === 'SUPERSEDED') {
      return {
        ...base,
        actionId: action.id,
        status: 'denied' as const,
        ...(action.denyReason || action.supersededReason
          ? { error: action.denyReason ?? action.supersededReason }
          : {}),
      };
    }
    const exec = await executeApprovedAction(
      { ...deps, staleExecutingMs: deps.settings.staleExecutingMs },
      { conversationId: ctx.convId, actionId: action.id },
      scope.toolCtx,
    );
    if (exec.ok && action.tool === 'escalate') await markPaged(deps, ctx.convId, action);
    await deps.conversations.appendMessage({
      id: `m_${action.id}_result`,
      conversationId: ctx.convId,
      role: 'tool',
      text: exec.ok ? `Done: ${action.summary}` : `Failed: ${action.summary} — ${exec.error}`,
      createdAt: deps.clock().toISOString(),
      author: { kind: 'assistant', name: 'Switchboard' },
      runId: ctx.runId,
      actionId: action.id,
      tool: {
        name: action.tool,
        args: action.args,
        ...(exec.ok ? { result: capOutput(exec.result, 2000) } : { error: exec.error }),
      },
    });
    const done = {
      ...base,
      args: action.args,
      actionId: action.id,
      ...(action.edit ? { edited: true } : {}),
    };
    return exec.ok
      ? { ...done, status: 'executed' as const, result: capOutput(exec.result) }
      : { ...done, status: 'failed' as const, error: exec.error };
  });
}
