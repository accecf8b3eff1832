import { z } from 'zod';

/**
 * Queue messages. Every message on the events queue is one of these envelopes; the worker validates it
 * before doing anything, and a message that fails validation is dead-lettered (never retried forever).
 * `key` is the cooldown/coalescing key (`sms:+1415…`, `email:<threadId>`, `conv:<id>`).
 */
const base = {
  id: z.string().min(1).max(200),
  correlationId: z.string().min(1).max(200),
  key: z.string().min(1).max(300),
  occurredAt: z.string().datetime(),
};

/** A photo or file on a text: the provider's URL and MIME type (fetched through our API, never shown raw). */
export const mediaItem = z.object({ url: z.string().max(2000), type: z.string().max(200).nullable() });

export const smsReceivedPayload = z.object({
  messageId: z.string(),
  from: z.string(),
  to: z.string(),
  text: z.string(),
  phoneNumberId: z.string().optional(),
  conversationId: z.string().optional(),
  receivedAt: z.string(),
  urgent: z.boolean().default(false),
  /** Photos and files on the text (absent on events queued before media was kept). */
  media: z.array(mediaItem).max(50).optional(),
});

/**
 * A text our line sent, seen through Quo's webhooks: `sms.outgoing` is an outgoing copy (a message sent from
 * the Quo app or by us, delivered as `message.received` with direction outgoing), `sms.delivered` is Quo's
 * `message.delivered`. Recorded now; the cards issue uses them to withdraw drafts a person already answered.
 */
export const smsCopyPayload = z.object({
  messageId: z.string(),
  from: z.string(),
  to: z.array(z.string()).max(20),
  text: z.string(),
  media: z.array(mediaItem).max(50).default([]),
  status: z.string().nullable(),
  phoneNumberId: z.string().optional(),
  conversationId: z.string().optional(),
  userId: z.string().optional(),
  createdAt: z.string(),
});

const callScope = {
  callId: z.string(),
  /** The outside parties of the call. */
  participants: z.array(z.string()).max(20),
  phoneNumberId: z.string().optional(),
  conversationId: z.string().optional(),
  userId: z.string().optional(),
};

/** Quo's `call.completed` (answered or not; a voicemail may follow). */
export const callCompletedPayload = z.object({
  ...callScope,
  direction: z.enum(['incoming', 'outgoing']),
  status: z.string().nullable(),
  durationSeconds: z.number().nullable(),
  hasVoicemail: z.boolean().nullable(),
  createdAt: z.string(),
  answeredAt: z.string().nullable(),
  completedAt: z.string().nullable(),
});

/** Quo's `call.summary.completed`; it may arrive before or after the transcript. */
export const callSummarizedPayload = z.object({
  ...callScope,
  status: z.string().nullable(),
  summary: z.array(z.string()).max(100),
  nextSteps: z.array(z.string()).max(100),
});

/** Quo's `call.transcript.completed`; a long dialogue is cut (`truncated`) — the full one is a read away. */
export const callTranscribedPayload = z.object({
  ...callScope,
  status: z.string().nullable(),
  durationSeconds: z.number().nullable(),
  truncated: z.boolean().default(false),
  dialogue: z
    .array(
      z.object({
        speaker: z.string().nullable(),
        userId: z.string().nullable(),
        text: z.string(),
        startSeconds: z.number(),
        endSeconds: z.number(),
      }),
    )
    .max(5000),
});

export const emailReceivedPayload = z.object({
  messageId: z.string(),
  threadId: z.string(),
  from: z.string(),
  to: z.string(),
  subject: z.string(),
  date: z.string(),
  text: z.string(),
  labels: z.array(z.string()).default([]),
  source: z.enum(['general', 'leads']),
  messageIdHeader: z.string().optional(),
  references: z.string().optional(),
});

export const chatMessagePayload = z.object({
  conversationId: z.string(),
  messageId: z.string(),
  text: z.string().min(1).max(8000),
  user: z.object({ id: z.string(), email: z.string(), name: z.string().optional() }),
});

export const approvalDecidedPayload = z.object({
  conversationId: z.string(),
  actionId: z.string(),
  runId: z.string(),
});

export const runResumePayload = z.object({
  conversationId: z.string(),
  runId: z.string(),
  reason: z.string().default('resume'),
});

export const notifyPayload = z.object({
  kind: z.enum(['approval', 'alert']),
  conversationId: z.string(),
  title: z.string(),
  body: z.string(),
  actionId: z.string().optional(),
  contact: z.object({ name: z.string().optional(), phone: z.string().optional() }).optional(),
  preview: z.string().optional(),
});

export const pingPayload = z.object({ note: z.string().default('ping') });

/** A one-time timer came due (EventBridge Scheduler put it on the queue); `kind` says what it is for. */
export const timerFiredPayload = z.object({
  kind: z.enum(['card.expire', 'card.renotify']),
  conversationId: z.string(),
  actionId: z.string(),
  runId: z.string(),
  /** When the timer was set to fire (the scheduler, not the worker's clock, decides that it is due). */
  dueAt: z.string().datetime(),
});

export const eventEnvelope = z.discriminatedUnion('type', [
  z.object({ ...base, type: z.literal('sms.received'), payload: smsReceivedPayload }),
  z.object({ ...base, type: z.literal('email.received'), payload: emailReceivedPayload }),
  z.object({ ...base, type: z.literal('sms.outgoing'), payload: smsCopyPayload }),
  z.object({ ...base, type: z.literal('sms.delivered'), payload: smsCopyPayload }),
  z.object({ ...base, type: z.literal('call.completed'), payload: callCompletedPayload }),
  z.object({ ...base, type: z.literal('call.summarized'), payload: callSummarizedPayload }),
  z.object({ ...base, type: z.literal('call.transcribed'), payload: callTranscribedPayload }),
  z.object({ ...base, type: z.literal('chat.message'), payload: chatMessagePayload }),
  z.object({ ...base, type: z.literal('approval.decided'), payload: approvalDecidedPayload }),
  z.object({ ...base, type: z.literal('run.resume'), payload: runResumePayload }),
  z.object({ ...base, type: z.literal('notify'), payload: notifyPayload }),
  z.object({ ...base, type: z.literal('system.ping'), payload: pingPayload }),
  z.object({ ...base, type: z.literal('timer.fired'), payload: timerFiredPayload }),
]);

export type EventEnvelope = z.infer<typeof eventEnvelope>;
export type EventType = EventEnvelope['type'];
export type EventOf<T extends EventType> = Extract<EventEnvelope, { type: T }>;
export type SmsReceived = z.infer<typeof smsReceivedPayload>;
export type EmailReceived = z.infer<typeof emailReceivedPayload>;
export type SmsCopy = z.infer<typeof smsCopyPayload>;
export type NotifyPayload = z.infer<typeof notifyPayload>;
export type TimerFired = z.infer<typeof timerFiredPayload>;
