import type { Conversation } from '../contracts/conversations';
import type { PlanItem, ResearchNode, ResearchTask } from '../contracts/research';
import { enqueueStep, type ResearchDeps } from './engine-deps';

/** An SMS is short: the plan or the report's opening, then where the rest is. */
const TEXT_MAX = 1400;

/** The team member's phone when the conversation is theirs by text (their research is answered by text too). */
export function textedBy(conv: Conversation | undefined): string | undefined {
  if (conv?.source !== 'sms' || !conv.contact?.internal) return undefined;
  return conv.contact.phone;
}

/**
 * A team member who asked for research by text cannot see the PWA's plan or report: when the plan waits for
 * review and when the task ends, a `tell` step is queued (its id fixed by task and `at`, so a repeat is a
 * ledger duplicate) and `use-cases/tell-research-by-text` texts them through a one-step run. Decided by the
 * task (`askedByText`, set by the start_research call of a turn by text), not by its conversation: the
 * planner may reach the review before the turn that started the task has written its new conversation.
 */
export async function queueTextUpdate(
  deps: Pick<ResearchDeps, 'queue' | 'clock'>,
  task: Pick<ResearchTask, 'id' | 'askedByText'>,
  at: string,
): Promise<void> {
  if (!task.askedByText) return;
  await enqueueStep(deps, { taskId: task.id, id: 'r' }, 'tell', { attempt: Date.parse(at) });
}

/** The plan waiting for review, as a text: numbered steps and how to answer by text. */
export function reviewText(task: ResearchTask, items: readonly PlanItem[]): string {
  const steps = items.map(
    (i, n) => `${n + 1}. ${i.goal}${i.subtasks?.length ? ` (${i.subtasks.length} steps)` : ''}`,
  );
  const head = `Research plan for “${task.goal}” waits for you${task.reviewReason ? ` — ${task.reviewReason}` : ''}:`;
  const tail = 'Reply RUN IT to run it, CANCEL to drop it, or REMOVE and step numbers (e.g. REMOVE 2 4).';
  return fitText([head, ...steps, tail].join('\n'), tail);
}

/** The finished task, as a text: the report's own opening, and where the whole report is. */
export function endText(task: ResearchTask, root: ResearchNode | undefined): string {
  if (task.status === 'failed') return `Research could not run: ${task.error ?? 'the plan failed'}.`;
  if (task.status === 'cancelled') return `Research cancelled: ${task.goal}.`;
  // Not the report's path: its long dashed name reads as a token to the sensitive-content guard (issue 12),
  // which then holds the text for approval (seen on `npm start`); the conversation links the report.
  const where = 'The whole report is in the app, in this conversation.';
  const summary = plain(root?.output?.summary ?? '');
  const head = `Research finished: ${task.goal}${task.degraded ? ' (some steps failed; the report says which)' : ''}.`;
  return fitText([head, summary, where].filter(Boolean).join('\n\n'), where);
}

/** Markdown read aloud: no heading marks, bold or table pipes in a text message. */
function plain(md: string): string {
  return md
    .replace(/^#+\s*/gm, '')
    .replace(/\*\*|__|`/g, '')
    .replace(/^\s*[-*]\s+/gm, '• ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Cut to the SMS budget, keeping the closing line (how to answer, where the rest is) whole. */
function fitText(text: string, keep: string): string {
  if (text.length <= TEXT_MAX) return text;
  const room = TEXT_MAX - keep.length - 3;
  return `${text.slice(0, room).trimEnd()}…\n${keep}`;
}
