import { dynamoPageBudgetStore } from '../adapters/dynamo/page-budget-store';
import type { Core } from '../composition/core';
import type { ContactDirectory } from './contact-directory';
import type { PageBudgetDeps } from './page-budget';

/** The escalate tool's budget from the composed core: the DynamoDB store, the settings, and the lookups. */
export function pageBudgetDeps(core: Core, directory: ContactDirectory | undefined): PageBudgetDeps {
  const c = core.config;
  return {
    store: dynamoPageBudgetStore(core.table),
    settings: {
      perHour: c.PAGE_BUDGET_PER_HOUR,
      perSenderPerHour: c.PAGES_PER_SENDER_PER_HOUR,
      unknownWindowMinutes: c.UNKNOWN_SENDER_PAGE_WINDOW_MINUTES,
    },
    sender: async (ctx) => {
      const conv = await core.conversations.get(ctx.conversationId);
      return conv?.source === 'sms' ? conv.contact?.phone : undefined;
    },
    isKnown: async (phone) => Boolean(directory && (await directory.byPhone(phone))),
    decidedBy: async (ctx) =>
      ctx.actionId ? (await core.actions.get(ctx.conversationId, ctx.actionId))?.decidedBy : undefined,
    alertTeam: async (ctx, title, body) => {
      const at = core.clock().toISOString();
      await core.conversations.appendMessage({
        id: `m_page_budget_${ctx.actionId ?? ctx.runId}`,
        conversationId: ctx.conversationId,
        role: 'system',
        text: `${title}. ${body}`,
        createdAt: at,
        author: { kind: 'system', name: 'Switchboard' },
        runId: ctx.runId,
        ...(ctx.actionId ? { actionId: ctx.actionId } : {}),
      });
      await core.queue.send({
        id: `notify_page_budget_${ctx.actionId ?? ctx.runId}`,
        type: 'notify',
        correlationId: `conv:${ctx.conversationId}`,
        key: `notify:${ctx.conversationId}`,
        occurredAt: at,
        payload: { kind: 'alert', conversationId: ctx.conversationId, title, body: body.slice(0, 500) },
      });
    },
  };
}
