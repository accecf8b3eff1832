import { safeTriageNote } from '../agent/inbound-triage';
import { driveRun } from '../agent/run-agent';
import type { CallTrigger } from '../agent/types';
import type { Conversation, Message } from '../contracts/conversations';
import type { EventOf } from '../contracts/events';
import { callTranscriptLines } from '../domain/calls';
import { whenText } from '../domain/followups';
import type { CallPatch, CallRecord, CallStore } from '../ports/call-store';
import { leadWroteUs } from './lead-tracking';
import type { AgentOutcome, RunEventGroupDeps } from './run-event-group';
import { supersedePending } from './supersede-drafts';

type CallEvent = EventOf<'call.completed'> | EventOf<'call.summarized'> | EventOf<'call.transcribed'>;

export interface CallEventDeps extends RunEventGroupDeps {
  calls?: CallStore;
}

/**
 * Quo's three call events, in any order, become ONE entry in the caller's conversation — who, how long, the
 * summary — rewritten as each part arrives. Once the call is over and something was said (a summary or a
 * transcript), one run starts (claimed once per call): it writes notes to memory (no card) and proposes the
 * follow-ups as cards (agent/rules-planner/triage-call.ts; Claude mode reads the same trigger).
 */
export async function handleCallEvent(deps: CallEventDeps, event: CallEvent): Promise<AgentOutcome> {
  if (!deps.calls) return { outcome: 'calls are not kept on this deployment' };
  const p = event.payload;
  const party = p.participants[0];
  const rec = await deps.calls.merge(p.callId, patchOf(event), event.occurredAt);
  if (!party) return { outcome: `call ${p.callId} recorded (no outside party)` };
  const contact = await deps.directory?.byPhone(party).catch(() => undefined);
  const conv = await callConversation(deps, party, contact?.name, contact?.internal ?? false, rec);
  await deps.conversations.replaceMessage(callMessage(conv.id, rec, contact?.name ?? party));

  const said = (rec.summary?.length ?? 0) + (rec.transcript?.length ?? 0) > 0;
  if (!rec.completed || !said) return { outcome: `call ${p.callId} entry updated` };
  if (!(await deps.calls.claimRun(p.callId, event.id)))
    return { outcome: `call ${p.callId} entry updated; its run already started` };
  const callerWords = (rec.transcript ?? []).filter((l) => l.startsWith('caller:')).join(' ');
  const triage = await safeTriageNote(deps, callerWords || (rec.summary ?? []).join(' '));
  const trigger: CallTrigger = {
    kind: 'call',
    callId: p.callId,
    from: party,
    ...(contact?.name ? { contactName: contact.name } : {}),
    ...(contact?.internal ? { internal: true } : {}),
    ...(rec.direction ? { direction: rec.direction } : {}),
    durationSeconds: rec.durationSeconds ?? null,
    summary: rec.summary ?? [],
    nextSteps: rec.nextSteps ?? [],
    transcript: rec.transcript ?? [],
    ...(triage ? { triage } : {}),
  };
  const out = await driveRun(deps, {
    conversation: { id: conv.id, create: () => conv, inbound: [] },
    trigger,
    runId: `run_${event.id}`,
    eventIds: [event.id],
    key: event.key,
  });
  // Lead state from calls (follow #20): a lead who called us is waiting on us. Once per call (the claimed
  // run), after the run, which creates a new caller's conversation.
  if (rec.direction !== 'outgoing' && !contact?.internal) {
    await leadWroteUs(deps, {
      conversationId: conv.id,
      before: conv.lead,
      isLead: triage?.triageClass === 'lead',
      by: 'switchboard',
    });
    // A text withdraws every waiting draft (cards #18); a call withdraws the nudge asking them to get in touch.
    if (conv.pendingCount > 0)
      await supersedePending(
        deps,
        conv.id,
        `${contact?.name ?? party} called on ${whenText(rec.firstSeenAt, deps.settings.timezone)}: no nudge needed.`,
        (a) => Boolean(a.whileLead),
      );
  }
  return out;
}

function patchOf(event: CallEvent): CallPatch {
  const party = event.payload.participants[0];
  const base = party ? { party } : {};
  switch (event.type) {
    case 'call.completed': {
      const c = event.payload;
      return {
        ...base,
        direction: c.direction,
        status: c.status,
        durationSeconds: c.durationSeconds,
        completed: true,
      };
    }
    case 'call.summarized':
      return { ...base, summary: event.payload.summary, nextSteps: event.payload.nextSteps };
    case 'call.transcribed': {
      const t = event.payload;
      return {
        ...base,
        transcript: callTranscriptLines(t.dialogue),
        transcriptTruncated: t.truncated,
        ...(t.durationSeconds !== null ? { durationSeconds: t.durationSeconds } : {}),
      };
    }
  }
}

/** The caller's conversation (the one their texts feed), created for a first contact by phone. */
async function callConversation(
  deps: CallEventDeps,
  party: string,
  name: string | undefined,
  internal: boolean,
  rec: CallRecord,
): Promise<Conversation> {
  const key = `sms:${party}`;
  const existing = await deps.conversations.findByTriggerKey(key);
  if (existing) return existing;
  const at = rec.firstSeenAt;
  const c: Conversation = {
    id: `c_call_${rec.callId}`,
    title: name ?? party,
    source: 'sms',
    contact: { name: name ?? party, phone: party, internal },
    preview: `Call with ${name ?? party}`,
    createdAt: at,
    updatedAt: at,
    lastMessageAt: at,
    createdBy: 'system',
    triggerKey: key,
    pendingCount: 0,
    readBy: {},
  };
  await deps.conversations.create(c).catch(() => undefined);
  return (await deps.conversations.findByTriggerKey(key)) ?? c;
}

export function callMessage(conversationId: string, rec: CallRecord, who: string): Message {
  const dir = rec.direction === 'outgoing' ? 'Outgoing call to' : 'Call from';
  const length = rec.durationSeconds ? ` · ${formatDuration(rec.durationSeconds)}` : '';
  const missed = rec.completed && !rec.durationSeconds ? ' · not answered' : '';
  const summary = rec.summary?.length ? `\n${rec.summary.join(' ')}` : '';
  return {
    id: `m_call_${rec.callId}`,
    conversationId,
    role: 'system',
    text: `${dir} ${who}${length}${missed}${summary}`,
    createdAt: rec.firstSeenAt,
    author: { kind: 'system', name: 'Phone call' },
    call: {
      callId: rec.callId,
      ...(rec.direction ? { direction: rec.direction } : {}),
      ...(rec.party ? { with: rec.party } : {}),
      ...(rec.status !== undefined ? { status: rec.status } : {}),
      ...(rec.durationSeconds !== undefined ? { durationSeconds: rec.durationSeconds } : {}),
      ...(rec.summary ? { summary: rec.summary } : {}),
      ...(rec.nextSteps ? { nextSteps: rec.nextSteps } : {}),
      ...(rec.transcript ? { transcript: rec.transcript.slice(0, 200) } : {}),
      ...(rec.transcriptTruncated ? { transcriptTruncated: true } : {}),
    },
  };
}

export function formatDuration(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds % 60);
  return m ? `${m} min ${s} s` : `${s} s`;
}
