import { z } from 'zod';

/**
 * The conditions a scheduled follow-up checks when its time comes (follow #20). The send happens only if the
 * condition still holds; otherwise the follow-up is cancelled with a note saying why.
 */
export const followUpCondition = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('no_reply'),
    /** The person whose reply would make the follow-up unnecessary: a phone number or an email address. */
    from: z.string().min(3).max(200),
    name: z.string().max(120).optional(),
    since: z.string().datetime({ offset: true }),
  }),
  z.object({
    kind: z.literal('no_mention'),
    word: z.string().min(2).max(60),
    since: z.string().datetime({ offset: true }),
  }),
  z.object({
    kind: z.literal('task_open'),
    taskId: z.string().min(1).max(100),
    name: z.string().max(200).optional(),
  }),
  z.object({
    kind: z.literal('event_unconfirmed'),
    eventId: z.string().min(1).max(300),
    name: z.string().max(200).optional(),
  }),
]);
export type FollowUpCondition = z.infer<typeof followUpCondition>;

export const followUpStatus = z.enum(['scheduled', 'sending', 'sent', 'cancelled', 'failed']);

export const followUp = z.object({
  id: z.string(),
  conversationId: z.string(),
  /** The card whose approval bound the text, the time and the condition. */
  actionId: z.string(),
  /** 'text': an SMS to a contact; 'reminder': a push to the team naming the person it is for. */
  kind: z.enum(['text', 'reminder']),
  to: z.string(),
  toName: z.string().optional(),
  text: z.string(),
  at: z.string(),
  condition: followUpCondition.optional(),
  status: followUpStatus,
  /** Why it was cancelled or failed, or what was sent. */
  note: z.string().optional(),
  approvedBy: z.string().optional(),
  sendingSince: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type FollowUp = z.infer<typeof followUp>;
