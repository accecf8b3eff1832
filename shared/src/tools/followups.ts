import { z } from 'zod';
import { followUpCondition } from '../contracts/followups';
import { whenText } from '../domain/followups';
import { scheduleName } from '../domain/schedule-name';
import { ValidationError } from '../errors';
import type { FollowUpStore } from '../ports/followup-store';
import type { Timers } from '../ports/timers';
import { lazyInput, type Tool } from './tool';

export interface FollowUpToolDeps {
  followups: FollowUpStore;
  timers: Timers;
}

export const scheduleFollowUpInput = lazyInput(() =>
  z.object({
    kind: z
      .enum(['text', 'reminder'])
      .describe("'text': an SMS to a contact; 'reminder': a push to the team"),
    to: z
      .string()
      .min(3)
      .max(200)
      .describe("For 'text' the contact's phone (E.164); for 'reminder' the team member"),
    toName: z.string().max(120).optional(),
    text: z.string().min(1).max(1600).describe('Exactly what will be sent at that time'),
    at: z.string().datetime({ offset: true }).describe('When, ISO 8601 with offset, in the future'),
    condition: followUpCondition
      .optional()
      .describe('Sent only if this still holds at that time; otherwise cancelled with a note'),
  }),
);
export type ScheduleFollowUpInput = z.infer<typeof scheduleFollowUpInput>;

export const followUpTimerName = (conversationId: string, id: string) =>
  scheduleName('followup', `${conversationId}#${id}`);

/**
 * A timed, conditional text or reminder. The approval of THIS card binds the text, the time and the condition
 * (they are its arguments, hashed); executing it only records the follow-up and sets its timer. At that time
 * (use-cases/run-followup.ts) it is sent if the condition still holds, else cancelled with a note.
 */
export const scheduleFollowUp: Tool<typeof scheduleFollowUpInput, FollowUpToolDeps> = {
  name: 'schedule_followup',
  group: 'followups',
  kind: 'write',
  description:
    'Schedule a text to a contact (or a reminder push to a team member) at a time, sent only if a condition still holds then: no reply from a person since a time, no message mentioning a word, a task still open, an event not confirmed. Needs approval; the approval covers the text, the time and the condition.',
  input: scheduleFollowUpInput,
  async run(deps, i, ctx) {
    const at = new Date(i.at);
    if (at.getTime() <= ctx.now.getTime()) throw new ValidationError(`The time ${i.at} has already passed.`);
    const id = `fu_${ctx.actionId ?? ctx.runId}`;
    const now = ctx.now.toISOString();
    await deps.followups.create({
      id,
      conversationId: ctx.conversationId,
      actionId: ctx.actionId ?? '',
      kind: i.kind,
      to: i.to,
      ...(i.toName ? { toName: i.toName } : {}),
      text: i.text,
      at: at.toISOString(),
      ...(i.condition ? { condition: i.condition } : {}),
      status: 'scheduled',
      createdAt: now,
      updatedAt: now,
    });
    await deps.timers.scheduleAt(followUpTimerName(ctx.conversationId, id), at, {
      id: `timer_${id}`,
      type: 'timer.fired',
      correlationId: `conv:${ctx.conversationId}`,
      key: `followup:${id}`,
      occurredAt: now,
      payload: {
        kind: 'followup',
        conversationId: ctx.conversationId,
        actionId: ctx.actionId ?? '',
        runId: ctx.runId,
        dueAt: at.toISOString(),
        followupId: id,
      },
    });
    return { followupId: id, at: at.toISOString(), status: 'scheduled', when: whenText(i.at, ctx.timezone) };
  },
  summarize: (i) =>
    `Scheduled ${i.kind === 'text' ? 'text to' : 'reminder for'} ${i.toName ?? i.to} at ${i.at}${i.condition ? ' (conditional)' : ''}: “${i.text.length > 80 ? `${i.text.slice(0, 80)}…` : i.text}”`,
};
