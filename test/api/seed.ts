import type { Core } from '../../shared/src/composition/core';
import type { Conversation, Message, PendingAction } from '../../shared/src/contracts/conversations';
import type { Run } from '../../shared/src/contracts/runs';
import { argsHash } from '../../shared/src/domain/args-hash';
import { newId } from '../../shared/src/ids';

/**
 * Writes what the agent worker writes when an inbound text needs a reply: the conversation, the inbound
 * message, tool activity, the assistant's note, a PENDING card and the run paused on it. Tests use it until
 * (and besides) the real worker, so the PWA and API are exercised against the same records.
 */
export type SeedStores = Pick<Core, 'conversations' | 'actions' | 'runs' | 'audit'>;

const iso = (d: Date) => d.toISOString();

export async function seedInboundSms(
  core: SeedStores,
  opts: {
    contact?: { name: string; phone: string };
    text?: string;
    draft?: string;
    at?: Date;
    policyWhy?: string[];
  } = {},
) {
  const contact = opts.contact ?? { name: 'Maria Lopez', phone: '+14155550111' };
  const text = opts.text ?? 'Hi, the heater in 12 Oak St #2 stopped working last night. Can someone come by?';
  const draft =
    opts.draft ??
    'Hi Maria, thanks for letting us know. We are arranging a technician and will confirm a time today.';
  const t0 = opts.at ?? new Date(Date.now() - 60_000);
  const at = (ms: number) => iso(new Date(t0.getTime() + ms));
  const conversationId = newId('c_');
  const runId = newId('r_');
  const conversation: Conversation = {
    id: conversationId,
    title: `Text from ${contact.name}`,
    source: 'sms',
    contact: { name: contact.name, phone: contact.phone, internal: false },
    preview: text,
    createdAt: at(0),
    updatedAt: at(0),
    lastMessageAt: at(0),
    createdBy: 'system',
    triggerKey: `sms:${contact.phone}`,
    pendingCount: 0,
    readBy: {},
  };
  await core.conversations.create(conversation);
  const messages: Message[] = [
    {
      id: newId('m_'),
      conversationId,
      role: 'inbound',
      text,
      createdAt: at(0),
      author: { kind: 'contact', name: contact.name },
      channel: 'sms',
    },
    {
      id: newId('m_'),
      conversationId,
      role: 'tool',
      text: 'search_contacts',
      createdAt: at(1000),
      runId,
      author: { kind: 'assistant', name: 'Switchboard' },
      tool: {
        name: 'search_contacts',
        args: { query: contact.phone },
        result: { count: 1, contacts: [{ name: contact.name, phone: contact.phone }] },
      },
    },
    {
      id: newId('m_'),
      conversationId,
      role: 'assistant',
      text: `${contact.name} needs an answer. I drafted a reply for your approval.`,
      createdAt: at(2000),
      runId,
      author: { kind: 'assistant', name: 'Switchboard' },
    },
  ];
  const run: Run = {
    id: runId,
    conversationId,
    status: 'running',
    mode: 'rules',
    trigger: { type: 'sms.received', key: `sms:${contact.phone}`, eventIds: [newId('ev_')] },
    iteration: 1,
    nextSeq: 3,
    usage: {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0,
      modelCalls: 0,
    },
    createdAt: at(500),
    updatedAt: at(500),
  };
  await core.runs.create(run);
  for (const m of messages) await core.conversations.appendMessage(m);
  const action = await seedPendingAction(core, {
    conversationId,
    runId,
    tool: 'send_message',
    args: { to: contact.phone, text: draft },
    summary: `Text ${contact.name}: “${draft.slice(0, 60)}…”`,
    at: at(2500),
    ...(opts.policyWhy ? { policyWhy: opts.policyWhy } : {}),
  });
  await core.runs.update(conversationId, runId, {
    status: 'awaiting_approval',
    awaitingActionId: action.id,
    updatedAt: at(2600),
  });
  return { conversation, run, action, messages };
}

export async function seedPendingAction(
  core: SeedStores,
  opts: {
    conversationId: string;
    runId: string;
    tool: string;
    args: Record<string, unknown>;
    summary: string;
    at?: string;
    policyWhy?: string[];
  },
): Promise<PendingAction> {
  const at = opts.at ?? new Date().toISOString();
  const action: PendingAction = {
    id: newId('a_'),
    conversationId: opts.conversationId,
    runId: opts.runId,
    tool: opts.tool,
    args: opts.args,
    argsHash: argsHash(opts.tool, opts.args),
    summary: opts.summary,
    status: 'PENDING',
    proposedBy: 'planner',
    reason: 'A tenant reported a maintenance issue; acknowledge it.',
    review: {
      plan: {
        score: 8,
        relevance: 9,
        completeness: 7,
        safety: 9,
        quality: 8,
        issues: ['No time window offered yet'],
        reviewer: 'rules',
      },
    },
    policy: {
      why: opts.policyWhy ?? [
        'send_message(+14155550111) requires known_contact(+14155550111)',
        'known_contact(+14155550111) — found by search_contacts',
      ],
    },
    createdAt: at,
    updatedAt: at,
    version: 1,
  };
  await core.actions.create(action);
  await core.conversations.adjustPending(opts.conversationId, 1);
  await core.audit.append({
    conversationId: opts.conversationId,
    type: 'approval.requested',
    actor: 'system',
    at,
    data: { actionId: action.id, tool: action.tool },
  });
  return action;
}

/** What the worker does after an approval: EXECUTING, then EXECUTED (or FAILED) with the provider's answer. */
export async function settleAction(
  core: SeedStores,
  action: Pick<PendingAction, 'conversationId' | 'id'>,
  outcome: { ok: true; result: unknown } | { ok: false; error: string },
) {
  const at = new Date().toISOString();
  await core.actions.transition(action.conversationId, action.id, ['APPROVED'], 'EXECUTING', {
    updatedAt: at,
  });
  return core.actions.transition(
    action.conversationId,
    action.id,
    ['EXECUTING'],
    outcome.ok ? 'EXECUTED' : 'FAILED',
    outcome.ok
      ? { result: outcome.result, executedAt: at, updatedAt: at }
      : { error: outcome.error, updatedAt: at },
  );
}
