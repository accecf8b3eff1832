import type { RunContext } from './run-context';
import { executeCall } from './tool-step';

export type Step = { kind: 'done'; outcome: string } | { kind: 'paused'; actionId: string };

/** Responder: the answer goes where the person is — the web chat, their phone (team members), or a team note. */
export async function respond(ctx: RunContext, text: string, isError = false): Promise<void> {
  const { deps, durable } = ctx;
  await durable.step('response', async () => {
    await ctx.ensureConversation();
    const trigger = ctx.trigger ?? ctx.start.trigger;
    if (trigger.kind === 'chat' && trigger.channel === 'sms' && deps.registry.has('reply_to_sender')) {
      // A team member texting the company line gets the answer by text from the assistant's line; the
      // autonomy rule "reply in the channel the person chose" lets this one write skip the approval card.
      const exec = await executeCall(ctx, trigger, {
        name: 'reply_to_sender',
        args: { text: text.slice(0, 1500) },
        reason: 'Answer the team member by text',
      });
      if ('paused' in exec) return { text, delivered: 'awaiting approval' };
    }
    await deps.conversations.appendMessage({
      id: `m_${durable.run.id}_${durable.nextSeq}`,
      conversationId: ctx.convId,
      role: 'assistant',
      text,
      createdAt: deps.clock().toISOString(),
      author: { kind: 'assistant', name: 'Switchboard' },
      runId: durable.run.id,
      channel: trigger.kind === 'chat' ? (trigger.channel === 'sms' ? 'sms' : 'web') : undefined,
    });
    await deps.audit.append({
      conversationId: ctx.convId,
      type: isError ? 'run.error' : 'run.response',
      actor: 'switchboard',
      data: { text: text.slice(0, 500) },
    });
    if (trigger.kind !== 'chat') await ctx.notify('alert', ctx.conversation?.title ?? 'Switchboard', text);
    return { text };
  });
}

/** The run could not finish: say why and hand it to the team. */
export async function fallback(ctx: RunContext, why: string): Promise<Step> {
  await respond(ctx, `I could not finish this: ${why} A team member should take it from here.`);
  return { kind: 'done', outcome: `fallback: ${why}` };
}
