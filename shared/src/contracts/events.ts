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

export const smsReceivedPayload = z.object({
  messageId: z.string(),
  from: z.string(),
  to: z.string(),
  text: z.string(),
  phoneNumberId: z.string().optional(),
  conversationId: z.string().optional(),
  receivedAt: z.string(),
  urgent: z.boolean().default(false),
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
export type NotifyPayload = z.infer<typeof notifyPayload>;
export type TimerFired = z.infer<typeof timerFiredPayload>;
