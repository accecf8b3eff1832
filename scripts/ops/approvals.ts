import type { PendingAction } from '../../shared/src/contracts/conversations';
import type { OpsContext } from './context';

export interface PendingApproval {
  conversationId: string;
  conversationTitle: string;
  actionId: string;
  tool: string;
  summary: string;
  createdAt: string;
  ageMinutes: number;
  runId: string;
}

/**
 * Cards waiting for a person, oldest first, across the most recent `window` conversations. Only
 * conversations whose pending counter is above zero are opened (the same counter the inbox badge shows),
 * so this is one query for the list plus one per conversation with something waiting.
 */
export async function pendingApprovals(ctx: OpsContext, window: number): Promise<PendingApproval[]> {
  const now = ctx.clock().getTime();
  const conversations = (await ctx.conversations.list({ limit: window })).filter((c) => c.pendingCount > 0);
  const perConversation = await Promise.all(
    conversations.map(async (c) => {
      const actions = await ctx.actions.listByConversation(c.id);
      return actions.filter((a) => a.status === 'PENDING').map((a) => toPending(a, c.title, now));
    }),
  );
  return perConversation.flat().sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

function toPending(a: PendingAction, title: string, now: number): PendingApproval {
  return {
    conversationId: a.conversationId,
    conversationTitle: title,
    actionId: a.id,
    tool: a.tool,
    summary: a.summary,
    createdAt: a.createdAt,
    ageMinutes: Math.max(0, Math.round((now - Date.parse(a.createdAt)) / 60_000)),
    runId: a.runId,
  };
}
