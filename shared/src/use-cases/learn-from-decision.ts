import type { PendingAction } from '../contracts/conversations';
import type { EventEnvelope } from '../contracts/events';
import { greetingCorrection, phrasingCorrection, signOffCorrection } from '../domain/style-corrections';
import type { ActionStore } from '../ports/action-store';
import type { LessonBook, LessonObservation } from '../ports/lessons';
import type { Log } from '../ports/logger';

export interface LearnDeps {
  lessons?: LessonBook;
  actions: ActionStore;
  log: Log;
}

const TEXT_FIELDS = ['text', 'body'];
const clip = (s: string, n = 120) => (s.length > n ? `${s.slice(0, n - 1)}…` : s).replace(/\s+/g, ' ');

type Seen = Omit<LessonObservation, 'conversationId'>;

/**
 * What one decided card teaches: the style an approved edit corrected (sign-off, greeting, one sentence of
 * the template said another way), or the reason it was denied.
 */
export function observationsOf(card: PendingAction): Seen[] {
  const by = card.decidedByName ?? card.decidedBy ?? 'someone';
  const out: Seen[] = [];
  for (const f of TEXT_FIELDS) {
    const from = card.edit?.from[f];
    const to = card.edit?.to[f];
    if (typeof from !== 'string' || typeof to !== 'string') continue;
    const seen = {
      tool: card.tool,
      ref: card.id,
      example: `${by} approved “${clip(to)}” (drafted “${clip(from)}”)`,
    };
    const sign = signOffCorrection(from, to);
    if (sign) out.push({ ...seen, aspect: 'sign-off', text: sign });
    const greeting = greetingCorrection(from, to);
    if (greeting) out.push({ ...seen, aspect: 'greeting', text: greeting });
    const phrasing = phrasingCorrection(from, to);
    if (phrasing) out.push({ ...seen, aspect: 'phrasing', text: phrasing.to, from: phrasing.from });
  }
  const reason = card.status === 'DENIED' ? card.denyReason?.trim() : undefined;
  if (reason)
    out.push({
      tool: card.tool,
      aspect: 'note',
      text: reason,
      ref: card.id,
      example: `${by} denied “${clip(card.summary)}”`,
    });
  return out;
}

/**
 * Learning from the team (cards #18), before the worker handles a decision: an approved edit, a deny reason
 * (`approval.decided`) or a redraft instruction (`card.redraft`) is counted into its lesson in the memory
 * workspace. Best effort: a lesson that cannot be written is logged and never holds up the decision.
 */
export async function learnFromDecision(deps: LearnDeps, event: EventEnvelope): Promise<void> {
  if (!deps.lessons || (event.type !== 'approval.decided' && event.type !== 'card.redraft')) return;
  const p = event.payload;
  try {
    const card = await deps.actions.get(p.conversationId, p.actionId);
    if (!card) return;
    const seen =
      event.type === 'card.redraft' ? redraftObservation(card, event.payload) : observationsOf(card);
    for (const o of seen) await deps.lessons.learn({ ...o, conversationId: card.conversationId });
  } catch (e) {
    deps.log.warn('lessons.not_learned', { actionId: p.actionId, error: String(e) });
  }
}

function redraftObservation(
  card: PendingAction,
  p: Extract<EventEnvelope, { type: 'card.redraft' }>['payload'],
): Array<Omit<LessonObservation, 'conversationId'>> {
  if ((p.kind !== 'redraft' && p.kind !== 'deny') || !p.instruction?.trim()) return [];
  const by = p.user.name ?? p.user.email;
  return [
    {
      tool: card.tool,
      aspect: 'note',
      text: p.instruction.trim(),
      ref: card.id,
      example: `${by} asked for another draft of “${clip(card.summary)}”`,
    },
  ];
}
