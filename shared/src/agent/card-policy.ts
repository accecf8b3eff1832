import type { PendingAction } from '../contracts/conversations';
import type { GuardVerdict } from '../ports/tool-guard';
import type { PolicyBasis } from './types';

/**
 * The approval card's "why" and "what is missing": first the policy answer the draft rests on (the planner
 * asked `ask_policy` and wrote the draft from its answer — a lead qualified, declined, or waiting on
 * something), then the guard's own verdict on the tool call. Only the deterministic planner supplies a basis,
 * and only copied from an ask_policy observation of the same run: a model's plan cannot put lines on a card.
 */
export function cardPolicy(
  basis: PolicyBasis | undefined,
  verdict: GuardVerdict,
): NonNullable<PendingAction['policy']> {
  const why = [...(basis?.why ?? []), ...(verdict.why ?? [verdict.reason])];
  const tools = [...new Set([...(basis?.missing?.tools ?? []), ...(verdict.missing?.tools ?? [])])];
  const questions = [
    ...new Set([...(basis?.missing?.questions ?? []), ...(verdict.missing?.questions ?? [])]),
  ];
  return {
    why,
    ...(basis?.missing || verdict.missing ? { missing: { tools, questions } } : {}),
    ...(basis?.questions?.length ? { questions: basis.questions } : {}),
  };
}
