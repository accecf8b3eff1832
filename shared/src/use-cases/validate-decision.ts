import type { PendingAction } from '../contracts/conversations';
import { canonicalJson, cardArgsHash } from '../domain/args-hash';
import { AppError, PreconditionError, ValidationError } from '../errors';

import type { ArgsCheck, DecisionCheck } from '../ports/decision-checks';

export type { ArgsCheck, DecisionCheck };

export interface ValidateDecisionDeps {
  /** The tool's own zod schema; an unknown tool is refused (never approved unchecked). */
  validateArgs(tool: string, args: unknown): ArgsCheck | Promise<ArgsCheck>;
  /**
   * The policy's preconditions for the whole card at the moment of the decision (known recipient, allowed
   * line, …). Absent only in unit tests of the state machine.
   */
  checkDecision?(card: PendingAction, args: Record<string, unknown>): Promise<DecisionCheck>;
  /**
   * Whether the card still fits the state it was drafted against (a policy proposal made against a file an
   * admin has saved since); the refusal when it does not. Absent: nothing a card can be stale against.
   */
  staleness?(card: PendingAction, args: Record<string, unknown>): Promise<string | undefined>;
}

/**
 * What an approval is checked against before the card changes state (SPEC §6.7, issue 12 items 3, 4, 7):
 * the arguments that will run — the edit, or the draft as stored — must pass the tool's schema (a 400
 * naming the field; the schemas bound every size), and the policy's preconditions must hold for them now
 * (a 422 with the reason), and a card drafted against a file saved since is a 409 (it would undo that
 * save), so nothing fails later in the worker that could have been refused here.
 * Returns the patch an edit makes (new args, new hash, the edit recorded).
 */
export async function validateDecision(
  deps: ValidateDecisionDeps,
  action: PendingAction,
  editedArgs: Record<string, unknown> | undefined,
): Promise<Partial<PendingAction>> {
  const edited = editedArgs !== undefined && canonicalJson(editedArgs) !== canonicalJson(action.args);
  const checked = await deps.validateArgs(action.tool, edited ? editedArgs : action.args);
  if (!checked.ok) {
    throw new ValidationError(
      edited
        ? `The edited draft is not valid: ${checked.reason}`
        : `This draft is not valid as it stands; edit it first: ${checked.reason}`,
    );
  }
  // An unedited draft keeps its stored arguments: the schema may normalise (trim), which would change the hash.
  const args = edited ? checked.args : action.args;
  const stale = await deps.staleness?.(action, args);
  if (stale) throw new AppError(stale, { code: 'stale_proposal', status: 409 });
  if (deps.checkDecision) {
    const verdict = await deps.checkDecision(action, args);
    if (!verdict.ok) {
      throw new PreconditionError(`This draft cannot be approved now: ${verdict.reason}`, {
        missing: verdict.missing ?? [],
      });
    }
  }
  if (!edited) return {};
  return { args, argsHash: cardArgsHash(action, args), edit: { from: action.args, to: args } };
}
