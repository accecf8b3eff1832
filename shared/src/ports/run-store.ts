import type { Run, RunStep } from '../contracts/runs';

/**
 * Durable runs (SPEC §2): every step is written before the next is taken, with a conditional write on its
 * sequence number, so a redelivered worker replays the stored steps instead of redoing them.
 */
export interface RunStore {
  create(run: Run): Promise<void>;
  get(conversationId: string, runId: string): Promise<Run | undefined>;
  update(conversationId: string, runId: string, patch: Partial<Run>): Promise<void>;
  /** False when a step with this sequence number already exists (another worker got there first). */
  appendStep(conversationId: string, step: RunStep): Promise<boolean>;
  listSteps(conversationId: string, runId: string): Promise<RunStep[]>;
  /** The run that is paused on an approval in this conversation, if any. */
  findActive(conversationId: string): Promise<Run | undefined>;
}
