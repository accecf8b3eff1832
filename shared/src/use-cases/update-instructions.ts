import type { InstructionsResponse } from '../contracts/api';
import type { InstructionsStore } from '../ports/instructions-store';

export interface InstructionsDeps {
  instructions: InstructionsStore;
  clock: () => Date;
}

const HISTORY = 20;

/** The system instructions the agent runs with, and the versions before them (newest first). */
export async function getInstructions(deps: InstructionsDeps): Promise<InstructionsResponse> {
  const [current, history] = await Promise.all([
    deps.instructions.current(),
    deps.instructions.history(HISTORY),
  ]);
  return { current: current ?? null, history };
}

/**
 * An admin replaces the instructions. Every version is kept (the store writes a new version item), so a bad
 * edit can be seen and undone from the history; an unchanged text writes nothing.
 */
export async function updateInstructions(
  deps: InstructionsDeps,
  input: { text: string; by: string },
): Promise<InstructionsResponse> {
  const current = await deps.instructions.current();
  if (current?.text !== input.text) {
    await deps.instructions.put(input.text, input.by, deps.clock().toISOString());
  }
  return getInstructions(deps);
}
