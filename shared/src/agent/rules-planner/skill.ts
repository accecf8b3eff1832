import { type RulesModeSkill, rulesModeSkill, skillAdditions } from '../../domain/skills';
import type { PlannedCall, PlannerInput } from '../types';
import { find } from './helpers';

/**
 * Rules mode follows the team's skills (follow #20): a skill whose front matter says `intent: <trigger
 * kind>` (`inbound_sms`, `inbound_email`) is loaded with `load_skill` in the triage's read round — a read of
 * the git working copy, shown in the run's activity, no DynamoDB request — and its `## Rules mode` lines
 * (domain/skills.ts) shape the draft: sentences added, or no reply for a class.
 */
export function skillRead(input: PlannerInput, intent: string): PlannedCall[] {
  if (!input.hasTool('load_skill') || find(input.observations, 'load_skill')) return [];
  return [{ name: 'load_skill', args: { intent }, reason: `Load the team's skill for ${intent}, if any` }];
}

/** The loaded skill's rules-mode lines, or undefined (none refines this intent, or the read failed). */
export function loadedSkill(input: PlannerInput): RulesModeSkill | undefined {
  const o = find(input.observations, 'load_skill');
  const r = o?.status === 'ok' ? (o.result as { found?: boolean; name?: string; text?: string }) : undefined;
  return r?.found && r.name && r.text ? rulesModeSkill({ name: r.name, body: r.text }) : undefined;
}

/** The skill says not to answer this class: the reason for the run's NO_ACTION, else undefined. */
export function skillSaysNoReply(skill: RulesModeSkill | undefined, triageClass: string | undefined) {
  return skill && triageClass && skill.noReplyWhen.includes(triageClass)
    ? `skill “${skill.name}”: no reply when ${triageClass}`
    : undefined;
}

/**
 * The reply with the skill's sentences for this class added to its body — before a closing paragraph
 * ("Best regards,\nThe team"), so the sign-off stays last — and the card's note saying the skill was followed.
 */
export function followSkill(
  text: string,
  skill: RulesModeSkill | undefined,
  triageClass: string | undefined,
): { text: string; note: string } {
  const adds = skill ? skillAdditions(skill, triageClass) : [];
  if (!skill || !adds.length) return { text, note: '' };
  const parts = text.split(/\n\s*\n/);
  const closing = parts.length > 2 ? parts.pop() : undefined;
  const body = parts.pop() ?? '';
  const next = [...parts, `${body} ${adds.join(' ')}`, ...(closing ? [closing] : [])].join('\n\n');
  return { text: next, note: ` · following skill “${skill.name}”` };
}
