import { repairSubject } from '../domain/repair-subject';
import type { TriageClassifier } from '../domain/triage/classifier';
import type { TriageClass } from '../domain/triage/labels';
import type { TriageNote } from './types';

/** What handle-events needs to triage an inbound message; absent → the keyword rules alone, as before. */
export interface InboundTriageDeps {
  triage?: TriageClassifier;
  urgentKeywords?: readonly string[];
}

/** Classes whose message is about a thing in the home that the reply and the card can name. */
const SUBJECT_CLASSES = new Set<TriageClass>(['maintenance', 'emergency']);

/**
 * Classifies an inbound text or email before its run starts. A classifier failure is logged by the caller
 * and the run goes on without a note (the keyword urgency still stands): triage never loses an event.
 */
export async function triageInbound(deps: InboundTriageDeps, text: string): Promise<TriageNote | undefined> {
  if (!deps.triage) return undefined;
  const t = await deps.triage.classify(text, deps.urgentKeywords ?? []);
  const subject = SUBJECT_CLASSES.has(t.triageClass) ? repairSubject(text) : undefined;
  return {
    triageClass: t.triageClass,
    ...(t.kind ? { kind: t.kind } : {}),
    confidence: Math.round(t.confidence * 100) / 100,
    cues: t.cues,
    byKeywordFloor: t.byKeywordFloor,
    ...(subject ? { subject } : {}),
  };
}

/** The text an email is classified on: its subject and the start of its body. */
export const emailTriageText = (subject: string, body: string) => `${subject}. ${body.slice(0, 800)}`;

/** triageInbound that never throws: a failed classification is logged and the run goes on without a note. */
export async function safeTriageNote(
  deps: InboundTriageDeps & { log: { warn(m: string, f?: Record<string, unknown>): void } },
  text: string,
): Promise<TriageNote | undefined> {
  if (!text.trim()) return undefined;
  try {
    return await triageInbound(deps, text);
  } catch (e) {
    deps.log.warn('triage.failed', { error: String(e) });
    return undefined;
  }
}
