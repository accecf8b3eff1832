import * as z from 'zod/mini';
import { boundedString, listOf } from '../zod-mini';

/**
 * Queue messages. Every message on the events queue is one of these envelopes; the worker validates it
 * before doing anything, and a message that fails validation is dead-lettered (never retried forever).
 * `key` is the cooldown/coalescing key (`sms:+1415…`, `email:<threadId>`, `conv:<id>`).
 */
const base = {
  id: boundedString(1, 200),
  correlationId: boundedString(1, 200),
  key: boundedString(1, 300),
  occurredAt: z.iso.datetime(),
};

/** A photo or file on a text: the provider's URL and MIME type (fetched through our API, never shown raw). */
export const mediaItem = z.object({ url: boundedString(0, 2000), type: z.nullable(boundedString(0, 200)) });

export const smsReceivedPayload = z.object({
  messageId: z.string(),
  from: z.string(),
  to: z.string(),
  text: z.string(),
  phoneNumberId: z.optional(z.string()),
  conversationId: z.optional(z.string()),
  receivedAt: z.string(),
  urgent: z._default(z.boolean(), false),
  /** Photos and files on the text (absent on events queued before media was kept). */
  media: z.optional(listOf(mediaItem, 50)),
});

/**
 * A text our line sent, seen through Quo's webhooks: `sms.outgoing` is an outgoing copy (a message sent from
 * the Quo app or by us, delivered as `message.received` with direction outgoing), `sms.delivered` is Quo's
 * `message.delivered`. Recorded now; the cards issue uses them to withdraw drafts a person already answered.
 */
export const smsCopyPayload = z.object({
  messageId: z.string(),
  from: z.string(),
  to: listOf(z.string(), 20),
  text: z.string(),
  media: z._default(listOf(mediaItem, 50), []),
  status: z.nullable(z.string()),
  phoneNumberId: z.optional(z.string()),
  conversationId: z.optional(z.string()),
  userId: z.optional(z.string()),
  createdAt: z.string(),
});

const callScope = {
  callId: z.string(),
  /** The outside parties of the call. */
  participants: listOf(z.string(), 20),
  phoneNumberId: z.optional(z.string()),
  conversationId: z.optional(z.string()),
  userId: z.optional(z.string()),
};

/** Quo's `call.completed` (answered or not; a voicemail may follow). */
export const callCompletedPayload = z.object({
  ...callScope,
  direction: z.enum(['incoming', 'outgoing']),
  status: z.nullable(z.string()),
  durationSeconds: z.nullable(z.number()),
  hasVoicemail: z.nullable(z.boolean()),
  createdAt: z.string(),
  answeredAt: z.nullable(z.string()),
  completedAt: z.nullable(z.string()),
});

/** Quo's `call.summary.completed`; it may arrive before or after the transcript. */
export const callSummarizedPayload = z.object({
  ...callScope,
  status: z.nullable(z.string()),
  summary: listOf(z.string(), 100),
  nextSteps: listOf(z.string(), 100),
});

/** Quo's `call.transcript.completed`; a long dialogue is cut (`truncated`) — the full one is a read away. */
export const callTranscribedPayload = z.object({
  ...callScope,
  status: z.nullable(z.string()),
  durationSeconds: z.nullable(z.number()),
  truncated: z._default(z.boolean(), false),
  dialogue: listOf(
    z.object({
      speaker: z.nullable(z.string()),
      userId: z.nullable(z.string()),
      text: z.string(),
      startSeconds: z.number(),
      endSeconds: z.number(),
    }),
    5000,
  ),
});

export const emailReceivedPayload = z.object({
  messageId: z.string(),
  threadId: z.string(),
  from: z.string(),
  to: z.string(),
  subject: z.string(),
  date: z.string(),
  text: z.string(),
  labels: z._default(z.array(z.string()), []),
  /** 'sent': the team's own sent mail (cards #18: a reply from Gmail withdraws the thread's drafts). */
  source: z.enum(['general', 'leads', 'sent']),
  messageIdHeader: z.optional(z.string()),
  references: z.optional(z.string()),
  /** Gmail's DMARC verdict for the visible From domain (issue 17: team mail is authenticated mail). */
  dmarc: z.optional(z.object({ result: boundedString(0, 32), headerFrom: boundedString(0, 255) })),
});

export const chatMessagePayload = z.object({
  conversationId: z.string(),
  messageId: z.string(),
  text: boundedString(1, 8000),
  user: z.object({
    id: z.string(),
    email: z.string(),
    name: z.optional(z.string()),
    /**
     * The person's own settings (follow #20), read by the API when it stores the message, so both planners
     * plan in them without a read of their own in the budgeted turn.
     */
    preferences: z.optional(
      z.object({ timezone: z.optional(boundedString(1, 64)), eventMinutes: z.optional(z.number()) }),
    ),
  }),
});

export const approvalDecidedPayload = z.object({
  conversationId: z.string(),
  actionId: z.string(),
  runId: z.string(),
});

export const runResumePayload = z.object({
  conversationId: z.string(),
  runId: z.string(),
  reason: z._default(z.string(), 'resume'),
});

export const notifyPayload = z.object({
  kind: z.enum(['approval', 'alert']),
  conversationId: z.string(),
  title: z.string(),
  body: z.string(),
  actionId: z.optional(z.string()),
  /** An approval card's argument hash and expiry: its notification gets Approve / Deny (cards #18). */
  argsHash: z.optional(z.string()),
  expiresAt: z.optional(z.string()),
  contact: z.optional(z.object({ name: z.optional(z.string()), phone: z.optional(z.string()) })),
  preview: z.optional(z.string()),
  /** Only this member's devices (follow #20's daily digest is personal); absent = the whole team. */
  userId: z.optional(boundedString(1, 200)),
  /** An urgent matter (issue 19): reaches whoever chose urgent, quiet hours or not; never waits for an assignee. */
  urgent: z.optional(z.boolean()),
  /**
   * An approval routed to its assignee first (issue 19): `assignee` stage goes to their devices only; the
   * `team` stage, APPROVAL_TEAM_DELAY_MINUTES later if the card still waits, to everyone else.
   */
  route: z.optional(z.object({ assignee: boundedString(1, 200), stage: z.enum(['assignee', 'team']) })),
});

/**
 * A card replaced by a new draft (cards #18): "Redraft…" with an instruction, a deny with a reason, or the
 * card's open questions answered. The API already moved the card to SUPERSEDED; the worker records the
 * answers as facts (with who answered), ends the old run and runs the same trigger again.
 */
export const cardRedraftPayload = z.object({
  conversationId: z.string(),
  actionId: z.string(),
  runId: z.string(),
  kind: z.enum(['redraft', 'deny', 'answer']),
  instruction: z.optional(boundedString(1, 1000)),
  answers: z.optional(listOf(z.object({ recordAs: boundedString(1, 500), holds: z.boolean() }), 10)),
  user: z.object({ id: z.string(), email: z.string(), name: z.optional(z.string()) }),
});
export type CardRedraftPayload = z.infer<typeof cardRedraftPayload>;

export const pingPayload = z.object({ note: z._default(z.string(), 'ping') });

/** A one-time timer came due (EventBridge Scheduler put it on the queue); `kind` says what it is for. */
export const timerFiredPayload = z.object({
  /** `followup`: a scheduled conditional send (follow #20); `digest`: a person's daily digest (follow #20). */
  /** `card.notify-team`: an approval its assignee has not decided goes to everyone (issue 19; `userId` = assignee). */
  kind: z.enum(['card.expire', 'card.renotify', 'card.notify-team', 'followup', 'digest', 'lead.check']),
  conversationId: z.string(),
  actionId: z.string(),
  runId: z.string(),
  /** When the timer was set to fire (the scheduler, not the worker's clock, decides that it is due). */
  dueAt: z.iso.datetime(),
  /** `followup`: which follow-up of the conversation (the card that approved it is `actionId`). */
  followupId: z.optional(boundedString(1, 200)),
  /** `digest`: whose digest (a user id); the conversation/action/run ids are then placeholders. */
  userId: z.optional(boundedString(1, 200)),
  /** `lead.check`: the lead state's `updatedAt` when the check was set; a later change makes it moot. */
  leadSince: z.optional(boundedString(1, 40)),
});

/**
 * One step of one research node (issue 21): `run` plans or executes it, `aggregate` combines its finished
 * children, `replan` re-plans the root from a person's edits, `propose` turns a writing node's draft into an
 * approval card (a run in the task's conversation), `tell` texts a team member who asked by SMS the plan to
 * review or the result. Each READY node is its own message.
 */
export const researchNodePayload = z.object({
  taskId: boundedString(1, 100),
  nodeId: boundedString(1, 100),
  step: z.enum(['run', 'aggregate', 'replan', 'propose', 'tell']),
  attempt: z._default(z.number(), 0),
});

export const eventEnvelope = z.discriminatedUnion('type', [
  z.object({ ...base, type: z.literal('sms.received'), payload: smsReceivedPayload }),
  z.object({ ...base, type: z.literal('email.received'), payload: emailReceivedPayload }),
  z.object({ ...base, type: z.literal('email.sent'), payload: emailReceivedPayload }),
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
  z.object({ ...base, type: z.literal('card.redraft'), payload: cardRedraftPayload }),
  z.object({ ...base, type: z.literal('research.node'), payload: researchNodePayload }),
]);

export type EventEnvelope = z.infer<typeof eventEnvelope>;
export type EventType = EventEnvelope['type'];
export type EventOf<T extends EventType> = Extract<EventEnvelope, { type: T }>;
export type SmsReceived = z.infer<typeof smsReceivedPayload>;
export type EmailReceived = z.infer<typeof emailReceivedPayload>;
export type SmsCopy = z.infer<typeof smsCopyPayload>;
export type NotifyPayload = z.infer<typeof notifyPayload>;
export type TimerFired = z.infer<typeof timerFiredPayload>;
export type ResearchNodeStep = z.infer<typeof researchNodePayload>;
