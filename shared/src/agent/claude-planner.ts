import type { Message } from '../contracts/conversations';
import { canonicalJson } from '../domain/args-hash';
import {
  isServerContent,
  type Model,
  type ModelContent,
  type ModelMessage,
  type ModelUsage,
  type ServerContent,
} from '../ports/model';
import type { ModelToolDef } from '../tools/registry';
import { compactHistory } from './history';
import type { Observation, Plan, PlannedCall, Trigger } from './types';

export interface Round {
  plan: Plan;
  observations: Observation[];
}

export interface ClaudePlanInput {
  trigger: Trigger;
  history: Message[];
  rounds: Round[];
  system: { stable: string; dynamic: string };
  tools: ModelToolDef[];
  /** The trigger's photos (base64), placed before its text in the current turn. */
  images?: Array<{ type: string; data: string }>;
}

export interface ClaudePlan {
  plan: Plan;
  usage: ModelUsage;
  model: string;
}

function triggerText(t: Trigger): string {
  return t.redraft ? `${baseTriggerText(t)}\n\n${redraftText(t.redraft)}` : baseTriggerText(t);
}

/** The person's instruction (or deny reason) and the draft it is about: the model drafts again with it. */
function redraftText(r: NonNullable<Trigger['redraft']>): string {
  const asked =
    r.kind === 'answer'
      ? 'answered the open questions on it (the answers are now established facts; ask the policy again)'
      : r.kind === 'deny'
        ? `denied it with this reason: “${r.instruction ?? ''}”`
        : `asked for a new draft: “${r.instruction ?? ''}”`;
  return `<team_redraft>Your earlier draft (${r.previous.tool} ${canonicalJson(r.previous.args)}) was not sent: ${r.by.name} ${asked}. Propose the corrected draft now.</team_redraft>`;
}

function baseTriggerText(t: Trigger): string {
  switch (t.kind) {
    case 'chat':
      return t.text;
    case 'inbound_sms':
      return `Inbound text from ${t.from}${t.urgent ? ' (flagged URGENT by keyword rules)' : ''}:\n<inbound_text>\n${t.texts.join('\n---\n')}\n</inbound_text>`;
    case 'call':
      return callText(t);
    case 'inbound_email':
      return `Inbound email (${t.email.source} inbox) from ${t.email.from} to ${t.email.to}, subject “${t.email.subject}”, thread ${t.email.threadId}:\n<inbound_email>\n${t.email.text}\n</inbound_email>`;
  }
}

function callText(t: Extract<Trigger, { kind: 'call' }>): string {
  const who = t.contactName ? `${t.contactName} (${t.from})` : t.from;
  const mins = t.durationSeconds ? `, ${Math.round(t.durationSeconds / 60)} min` : '';
  return [
    `A phone call ${t.direction === 'outgoing' ? 'to' : 'from'} ${who} ended${mins} (call ${t.callId}).`,
    'Write what matters from it to the memory notes (write_file/edit_file, no approval needed), then propose the follow-ups it needs (create_task for work, send_message for a text to the caller) — each becomes a card for the team. Propose nothing if nothing is needed.',
    t.summary.length ? `<call_summary>\n${t.summary.join('\n')}\n</call_summary>` : '',
    t.nextSteps.length ? `<call_next_steps>\n${t.nextSteps.join('\n')}\n</call_next_steps>` : '',
    t.transcript.length ? `<call_transcript>\n${t.transcript.join('\n')}\n</call_transcript>` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

/** Rebuilds the Messages API conversation from stored state, so a replayed run sends the same request. */
export function buildMessages(
  input: Pick<ClaudePlanInput, 'trigger' | 'history' | 'rounds' | 'images'>,
): ModelMessage[] {
  const messages: ModelMessage[] = [];
  const prior = input.history.filter(
    (m) => m.role === 'user' || m.role === 'assistant' || m.role === 'inbound',
  );
  for (const m of prior) {
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const text =
      m.role === 'inbound' ? `<inbound_text from="${m.author.name}">${m.text}</inbound_text>` : m.text;
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.content.push({ type: 'text', text });
    else messages.push({ role, content: [{ type: 'text', text }] });
  }
  const current: ModelContent[] = [
    ...(input.images ?? []).map((i) => ({
      type: 'image' as const,
      source: { type: 'base64' as const, media_type: i.type, data: i.data },
    })),
    { type: 'text', text: triggerText(input.trigger) },
  ];
  const last = messages[messages.length - 1];
  if (last?.role === 'user') last.content.push(...current);
  else messages.push({ role: 'user', content: current });
  for (const round of input.rounds) {
    if (round.plan.kind !== 'calls') continue;
    messages.push({
      role: 'assistant',
      content: [
        ...(round.plan.note ? [{ type: 'text' as const, text: round.plan.note }] : []),
        // The API ran these itself in the same turn; it needs them back, before our tool calls.
        ...(round.plan.server ?? []),
        ...round.plan.calls.map((c, i) => ({
          type: 'tool_use' as const,
          id: c.toolUseId ?? `tu_${i}`,
          name: c.name,
          input: c.args,
        })),
      ],
    });
    messages.push({
      role: 'user',
      content: round.plan.calls.map((c, i) => {
        const o = round.observations.find((x) => x.toolUseId === c.toolUseId) ?? round.observations[i];
        // Canonical JSON, so a result replayed from the store (keys in another order) is the same bytes and
        // the prompt prefix stays cached; a person's edit is part of it, so the model never reports its own
        // draft as what was sent.
        const body = o
          ? canonicalJson({
              status: o.status,
              result: o.result,
              error: o.error,
              ...(o.edited ? { edited_by_team: true, args_used: o.args } : {}),
            })
          : '{"status":"not_run"}';
        return {
          type: 'tool_result' as const,
          tool_use_id: c.toolUseId ?? `tu_${i}`,
          content: body,
          is_error: o ? !['ok', 'executed'].includes(o.status) : true,
        };
      }),
    });
  }
  return messages;
}

/** Model planning (SPEC §3.2 step 4): the model proposes tool calls (a plan), never executes anything itself. */
export async function claudePlan(
  model: Model,
  input: ClaudePlanInput,
  budgetTokens: number,
): Promise<ClaudePlan> {
  const history = await compactHistory(model, buildMessages(input), budgetTokens);
  const res = await model.complete({
    system: input.system,
    tools: input.tools,
    messages: history.messages,
    maxTokens: 1024,
  });
  const usage = { ...res.usage };
  if (history.usage) {
    usage.inputTokens += history.usage.inputTokens;
    usage.outputTokens += history.usage.outputTokens;
  }
  const calls: PlannedCall[] = res.content
    .filter((c): c is Extract<ModelContent, { type: 'tool_use' }> => c.type === 'tool_use')
    .map((c) => ({ name: c.name, args: c.input, reason: 'model plan', toolUseId: c.id }));
  const text = res.content
    .filter((c): c is Extract<ModelContent, { type: 'text' }> => c.type === 'text')
    .map((c) => c.text)
    .join('\n')
    .trim();
  const server = res.content.filter((c): c is ServerContent => isServerContent(c));
  if (calls.length)
    return {
      plan: { kind: 'calls', calls, ...(text ? { note: text } : {}), ...(server.length ? { server } : {}) },
      usage,
      model: res.model,
    };
  if (/^NO_ACTION_NEEDED\b/.test(text))
    return { plan: { kind: 'no_action', reason: text }, usage, model: res.model };
  return { plan: { kind: 'respond', text: text || 'Done.' }, usage, model: res.model };
}
