import { type AgentDeps, driveRun } from '../agent/run-agent';
import type { Conversation } from '../contracts/conversations';
import type { EventOf } from '../contracts/events';
import type { NudgeDraft } from '../domain/lead-nudge';
import type { AgentOutcome } from './run-event-group';

export type NudgeDeps = AgentDeps;

/**
 * A silent lead's nudge becomes an approval card (follow #20) through a run of its own, as a research task's
 * drafted write does: the same guard, reviewer, styling (the assignee's signature) and card as any planned
 * write, so nothing reaches the lead until a person approves it, and an approved nudge is sent exactly once.
 * The run id is fixed by the check's event: a redelivered check replays the same run, never a second card.
 */
export function draftLeadNudge(
  deps: NudgeDeps,
  conv: Conversation,
  nudge: NudgeDraft,
  event: EventOf<'timer.fired'>,
): Promise<AgentOutcome> {
  return driveRun(deps, {
    conversation: { id: conv.id, create: () => conv, inbound: [] },
    // The draft is for the conversation's assignee (their signature); else the team's, signed by no one.
    trigger: {
      kind: 'chat',
      channel: 'web',
      text: nudge.reason,
      user: { id: conv.assignee ?? 'switchboard', email: '' },
    },
    runId: `run_${event.id}`,
    eventIds: [event.id],
    key: event.key,
    proposal: nudge,
  });
}
