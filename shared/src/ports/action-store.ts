import type { ActionStatus, PendingAction } from '../contracts/conversations';

export interface ActionStore {
  create(a: PendingAction): Promise<void>;
  get(conversationId: string, actionId: string): Promise<PendingAction | undefined>;
  listByConversation(conversationId: string): Promise<PendingAction[]>;
  /**
   * Moves an action from one of `from` to `to` with a conditional write on status and version, applying
   * `patch`. Returns the updated action, or undefined when the condition failed (someone else moved it first).
   */
  transition(
    conversationId: string,
    actionId: string,
    from: ActionStatus[],
    to: ActionStatus,
    patch?: Partial<PendingAction>,
  ): Promise<PendingAction | undefined>;
}
