import { createHash } from 'node:crypto';
import type { EventEnvelope } from '../contracts/events';
import type { OpenPhoneWebhookEvent, OpenPhoneWebhookTranscript } from '../contracts/openphone';
import { reactionOf } from '../domain/reaction';
import { judgeUrgency } from '../domain/urgency';

/**
 * What one parsed Quo delivery becomes: an event for the queue, or a skip with its reason (which the caller
 * records in the event ledger — SPEC §6.3, nothing dropped silently). Pure; the webhook use case does the I/O.
 *
 * - `message.received`, incoming: `sms.received` (with its media), unless it is a reaction — recognised by what
 *   it is (a tapback phrase or a text that is exactly one emoji), never by how it begins;
 * - `message.received`, outgoing (an outgoing copy): `sms.outgoing`; `message.delivered`: `sms.delivered`;
 * - `call.completed`, `call.summary.completed`, `call.transcript.completed`: `call.completed`,
 *   `call.summarized`, `call.transcribed` — recorded by the worker; later issues act on them;
 * - any other type: skipped ("needs no run").
 * Keys are `sms:<the outside party>` so these events sit with the text conversation of the same person.
 */
export type DeliveryPlan =
  | { action: 'enqueue'; event: EventEnvelope; urgent: boolean }
  | { action: 'skip'; eventId: string; type: string; key: string; reason: string };

/** Provider ids are short in practice; an unusually long one is hashed so our ids stay within bounds. */
export function boundedId(id: string): string {
  return id.length <= 120 ? id : `h_${createHash('sha256').update(id).digest('hex')}`;
}

/** Keeps a transcript within what one queue message carries; the full one is a read away. */
const MAX_TRANSCRIPT_CHARS = 60_000;

export function planOpenPhoneDelivery(
  event: OpenPhoneWebhookEvent,
  ctx: { deliveryId: string; urgentKeywords: string[]; now: Date },
): DeliveryPlan {
  const base = {
    correlationId: `openphone:${boundedId(ctx.deliveryId)}`,
    occurredAt: ctx.now.toISOString(),
  };
  const eid = boundedId(event.eventId);
  switch (event.kind) {
    case 'message.received':
    case 'message.delivered':
      return planMessage(event, { ...base, eid, urgentKeywords: ctx.urgentKeywords });
    case 'call.completed': {
      const c = event.call;
      const { participants, ...rest } = scopeOf(c);
      return enqueue({
        ...base,
        id: `call_${eid}`,
        type: 'call.completed',
        key: keyOf(participants, c.id),
        payload: {
          ...rest,
          participants,
          callId: c.id,
          direction: c.direction,
          status: c.status,
          durationSeconds: c.durationSeconds,
          hasVoicemail: c.hasVoicemail,
          createdAt: c.createdAt,
          answeredAt: c.answeredAt,
          completedAt: c.completedAt,
        },
      });
    }
    case 'call.summary.completed': {
      const s = event.summary;
      return enqueue({
        ...base,
        id: `callsum_${eid}`,
        type: 'call.summarized',
        key: keyOf(s.participants, s.callId),
        payload: {
          ...scopeOf(s),
          callId: s.callId,
          status: s.status,
          summary: s.summary,
          nextSteps: s.nextSteps,
        },
      });
    }
    case 'call.transcript.completed': {
      const t = event.transcript;
      return enqueue({
        ...base,
        id: `calltx_${eid}`,
        type: 'call.transcribed',
        key: keyOf(t.participants, t.callId),
        payload: {
          ...scopeOf(t),
          callId: t.callId,
          status: t.status,
          durationSeconds: t.durationSeconds,
          ...cut(t),
        },
      });
    }
    case 'other':
      return {
        action: 'skip',
        eventId: `openphone_${eid}`,
        type: `openphone.${event.vendorType}`,
        key: `openphone:${event.vendorType}`,
        reason: `Quo event type ${event.vendorType} needs no run`,
      };
  }
}

function planMessage(
  event: Extract<OpenPhoneWebhookEvent, { kind: 'message.received' | 'message.delivered' }>,
  ctx: { eid: string; correlationId: string; occurredAt: string; urgentKeywords: string[] },
): DeliveryPlan {
  const m = event.message;
  const { eid, correlationId, occurredAt } = ctx;
  const ids = {
    ...(m.phoneNumberId ? { phoneNumberId: m.phoneNumberId } : {}),
    ...(m.conversationId ? { conversationId: m.conversationId } : {}),
  };
  if (event.kind === 'message.delivered' || m.direction === 'outgoing') {
    const type = event.kind === 'message.delivered' ? 'sms.delivered' : 'sms.outgoing';
    return enqueue({
      id: `${type === 'sms.delivered' ? 'smsdlv' : 'smsout'}_${eid}`,
      type,
      correlationId,
      occurredAt,
      key: `sms:${m.to[0] ?? m.from}`,
      payload: {
        messageId: m.id,
        from: m.from,
        to: m.to,
        text: m.text,
        media: m.media,
        status: m.status,
        createdAt: m.createdAt,
        ...ids,
        ...(m.userId ? { userId: m.userId } : {}),
      },
    });
  }
  const key = `sms:${m.from}`;
  const reaction = reactionOf(m.text);
  if (reaction && m.media.length === 0) {
    const what = reaction.form === 'emoji' ? `a lone emoji ${reaction.emoji}` : 'a tapback';
    return { action: 'skip', eventId: `sms_${eid}`, type: 'sms.received', key, reason: `reaction (${what})` };
  }
  const urgency = judgeUrgency(m.text, ctx.urgentKeywords);
  return enqueue(
    {
      id: `sms_${eid}`,
      type: 'sms.received',
      correlationId,
      occurredAt,
      key,
      payload: {
        messageId: m.id,
        from: m.from,
        to: m.to[0] ?? '',
        text: m.text,
        receivedAt: m.createdAt,
        urgent: urgency.urgent,
        media: m.media,
        ...ids,
      },
    },
    urgency.urgent,
  );
}

function enqueue(event: EventEnvelope, urgent = false): DeliveryPlan {
  return { action: 'enqueue', event, urgent };
}

function keyOf(participants: string[], callId: string) {
  return participants[0] ? `sms:${participants[0]}` : `call:${boundedId(callId)}`;
}

function scopeOf(s: {
  participants: string[];
  phoneNumberId: string | null;
  conversationId: string | null;
  userId: string | null;
}) {
  return {
    participants: s.participants,
    ...(s.phoneNumberId ? { phoneNumberId: s.phoneNumberId } : {}),
    ...(s.conversationId ? { conversationId: s.conversationId } : {}),
    ...(s.userId ? { userId: s.userId } : {}),
  };
}

function cut(t: OpenPhoneWebhookTranscript) {
  let total = 0;
  const dialogue = [];
  for (const d of t.dialogue) {
    total += d.text.length;
    if (total > MAX_TRANSCRIPT_CHARS) return { dialogue, truncated: true };
    dialogue.push(d);
  }
  return { dialogue, truncated: false };
}
