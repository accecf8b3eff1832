import type { ActionStatus, PendingAction } from '../contracts/conversations';

/** What a transition writes besides the status. `claim: null` takes a claim off ("Release", cards #18). */
export type ActionPatch = Omit<Partial<PendingAction>, 'claim'> & { claim?: PendingAction['claim'] | null };

/** The action with a patch applied as the stores apply it: undefined leaves a field, null removes it. */
export function applyActionPatch(action: PendingAction, patch: ActionPatch): PendingAction {
  const next: Record<string, unknown> = { ...action };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete next[k];
    else if (v !== undefined) next[k] = v;
  }
  return next as PendingAction;
}

export interface ActionStore {
  create(a: PendingAction): Promise<void>;
  get(conversationId: string, actionId: string): Promise<PendingAction | undefined>;
  listByConversation(conversationId: string): Promise<PendingAction[]>;
  /**
   * Moves an action from one of `from` to `to` with a conditional write on status and version, applying
   * `patch` (a null field is removed). Returns the updated action, or undefined when the condition failed (someone else moved it first).
   */
  transition(
    conversationId: string,
    actionId: string,
    from: ActionStatus[],
    to: ActionStatus,
    patch?: ActionPatch,
  ): Promise<PendingAction | undefined>;
}
