import type { Plan, PlannerInput } from '../types';

export type Slots = Record<string, unknown>;

/**
 * One chat intent of the rules planner: how a new request is recognised, which slots it needs before it can
 * act (the planner asks for the first one missing), and the next step once they are filled. The planner
 * tries the intents of `CHAT_INTENTS` in order; a classifier can be put in front of that table by giving
 * `chat()` its own detector.
 */
export interface ChatIntent {
  name: string;
  /** The slots a new request's text carries, or undefined when the text is not this intent. */
  detect(text: string, input: PlannerInput): Slots | undefined;
  required: string[];
  /** The next step once every required slot is filled: a call, or the answer once the calls are observed. */
  plan(input: PlannerInput, slots: Slots): Plan;
}
