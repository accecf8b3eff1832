import type { ReviewScore } from '../contracts/conversations';
import type { PlannedCall, Trigger } from './types';

/** Below this a draft is not offered for approval: it goes back to the planner once, then to the fallback. */
export const REVIEW_THRESHOLD = 6;

const INJECTION = [
  /ignore (all |any |your )?(previous |prior )?(instructions|rules)/i,
  /system prompt/i,
  /\b(password|passcode|ssn|social security|credit card number|bank account)\b/i,
  /https?:\/\/(?!([a-z0-9-]+\.)*(oakproperties\.example|google\.com|calendar\.google\.com))/i,
];
const PLACEHOLDER = /\[(name|date|time|address)\]|\{\{|\}\}|lorem ipsum|TODO/i;

const textOf = (args: Record<string, unknown>) =>
  [args.text, args.body, args.subject, args.summary, args.name, args.description]
    .filter((v) => typeof v === 'string')
    .join('\n');

/**
 * The rule-based plan reviewer (SPEC §3.3): scores a drafted write 1–10 on relevance, completeness,
 * safety and quality, with the issues it found. It runs in both modes, so a model-drafted message that
 * repeats an injected instruction, leaks a secret-looking value, links to an unknown site or still holds a
 * placeholder is stopped before a person is even asked.
 */
export function reviewPlan(call: PlannedCall, trigger: Trigger): ReviewScore {
  const issues: string[] = [];
  const text = textOf(call.args);
  let relevance = 9;
  if (trigger.kind === 'inbound_sms' && call.name === 'send_message' && call.args.to !== trigger.from) {
    relevance = 6;
    issues.push('The draft goes to someone other than the sender of the text.');
  }
  let completeness = 9;
  if (!text.trim()) {
    completeness = 2;
    issues.push('The draft has no text.');
  } else if (text.trim().length < 8) {
    completeness = 5;
    issues.push('The draft is very short.');
  }
  let safety = 10;
  for (const p of INJECTION) {
    if (p.test(text)) {
      safety = 2;
      issues.push(`The draft contains something unsafe (${p.source.slice(0, 40)}…).`);
    }
  }
  let quality = 9;
  if (PLACEHOLDER.test(text)) {
    quality = 3;
    issues.push('The draft still holds a placeholder.');
  }
  if (call.name === 'send_message' && text.length > 480) {
    quality = Math.min(quality, 6);
    issues.push('Long for a text message.');
  }
  const score = Math.max(1, Math.min(safety, Math.round((relevance + completeness + safety + quality) / 4)));
  return { score, relevance, completeness, safety, quality, issues, reviewer: 'rules' };
}

/** The execution reviewer: did the write do what was approved? */
export function reviewExecution(ok: boolean, error?: string): ReviewScore {
  return ok
    ? { score: 10, relevance: 10, completeness: 10, safety: 10, quality: 10, issues: [], reviewer: 'rules' }
    : {
        score: 2,
        relevance: 5,
        completeness: 2,
        safety: 10,
        quality: 2,
        issues: [error ?? 'failed'],
        reviewer: 'rules',
      };
}
