import type { EventOf } from '../contracts/events';
import type { FollowUp } from '../contracts/followups';
import { conditionText } from '../domain/followups';
import type { AuditLog } from '../ports/audit-log';
import type { EventQueue } from '../ports/event-queue';
import type { FollowUpStore } from '../ports/followup-store';
import type { Log } from '../ports/logger';
import type { ToolRegistry } from '../tools/registry';
import { type ConditionDeps, checkFollowUpCondition } from './check-followup-condition';
import type { AgentOutcome } from './run-event-group';

export interface FollowUpFireDeps extends ConditionDeps {
  followups: FollowUpStore;
  registry: ToolRegistry;
  queue: EventQueue;
  audit: AuditLog;
  log: Log;
  clock: () => Date;
}

/**
 * A follow-up's time has come (`timer.fired`, kind `followup`). Primary course: the condition still holds →
 * scheduled → sending (conditional, so a cancel that lands first wins) → the approved text goes out through
 * `send_message` (or the reminder as a push) → sent, and the conversation says so. If the condition no
 * longer holds it is cancelled with a note saying why. A redelivery after a crash mid-send reconciles with
 * the provider (the tool's reconcile) instead of sending twice.
 */
export async function runFollowUp(
  deps: FollowUpFireDeps,
  event: EventOf<'timer.fired'>,
): Promise<AgentOutcome> {
  const p = event.payload;
  if (!p.followupId) return { outcome: 'timer without a follow-up id' };
  let f = await deps.followups.get(p.conversationId, p.followupId);
  if (!f) return { outcome: `no follow-up ${p.followupId}` };
  const at = deps.clock().toISOString();
  const resumed = f.status === 'sending';
  if (f.status === 'scheduled') {
    const check = await checkFollowUpCondition(deps, f);
    if (!check.holds) return cancelled(deps, f, check.why);
    const moved = await deps.followups.transition(f.conversationId, f.id, ['scheduled'], 'sending', {
      sendingSince: at,
      updatedAt: at,
    });
    if (!moved) return { outcome: `follow-up ${f.id} was cancelled first` };
    f = moved;
  }
  if (f.status !== 'sending') return { outcome: `follow-up ${f.id} already ${f.status}` };
  const note = await deliver(deps, f, resumed);
  await deps.followups.transition(f.conversationId, f.id, ['sending'], 'sent', { note, updatedAt: at });
  await say(deps, f, `Scheduled follow-up done: ${note}`, 'sent');
  return { outcome: `follow-up ${f.id} sent` };
}

async function deliver(deps: FollowUpFireDeps, f: FollowUp, resumed: boolean): Promise<string> {
  if (f.kind === 'reminder') {
    await deps.queue.send({
      id: `notify_${f.id}`,
      type: 'notify',
      correlationId: `conv:${f.conversationId}`,
      key: `notify:${f.conversationId}`,
      occurredAt: deps.clock().toISOString(),
      payload: {
        kind: 'alert',
        conversationId: f.conversationId,
        title: `Reminder for ${f.toName ?? f.to}`.slice(0, 120),
        body: f.text.slice(0, 500),
      },
    });
    return `reminded ${f.toName ?? f.to} by push: “${f.text}”`;
  }
  const tool = deps.registry.get('send_message');
  const args = { to: f.to, text: f.text };
  const ctx = {
    conversationId: f.conversationId,
    runId: `followup_${f.id}`,
    actionId: f.id,
    now: new Date(f.sendingSince ?? deps.clock().toISOString()),
    timezone: deps.timezone,
  };
  // A redelivery after a crash mid-send: ask the provider first, so the text goes out once.
  const found = resumed ? await tool.reconcile?.(args, ctx) : undefined;
  if (!found) await tool.run(args, ctx);
  return `texted ${f.toName ?? f.to}: “${f.text}”`;
}

async function cancelled(deps: FollowUpFireDeps, f: FollowUp, why: string): Promise<AgentOutcome> {
  const at = deps.clock().toISOString();
  const moved = await deps.followups.transition(f.conversationId, f.id, ['scheduled'], 'cancelled', {
    note: `Not sent: ${why}`,
    updatedAt: at,
  });
  if (!moved) return { outcome: `follow-up ${f.id} already handled` };
  await say(
    deps,
    f,
    `Scheduled ${f.kind === 'text' ? 'text to' : 'reminder for'} ${f.toName ?? f.to} not sent (${conditionText(f.condition, deps.timezone)}): ${why}.`,
    'cancelled',
  );
  return { outcome: `follow-up ${f.id} cancelled: ${why}` };
}

async function say(deps: FollowUpFireDeps, f: FollowUp, text: string, status: string) {
  const at = deps.clock().toISOString();
  await deps.conversations.appendMessage({
    id: `m_${f.id}_${status}`,
    conversationId: f.conversationId,
    role: 'assistant',
    text,
    createdAt: at,
    ...(f.kind === 'text' && status === 'sent' ? { channel: 'sms' as const } : {}),
    author: { kind: 'assistant', name: 'Switchboard' },
    actionId: f.actionId,
  });
  await deps.audit.append({
    conversationId: f.conversationId,
    type: `followup.${status}`,
    actor: 'switchboard',
    data: { followupId: f.id, text },
  });
}
