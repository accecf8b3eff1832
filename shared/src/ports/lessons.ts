import type { Lesson, LessonAspect } from '../domain/lessons';

/** One decision's correction, to be counted into its lesson. `ref` (the card id) makes a replay a no-op. */
export interface LessonObservation {
  tool: string;
  aspect: LessonAspect;
  text: string;
  /** A phrasing lesson: the template's sentence `text` replaces. */
  from?: string;
  example: string;
  ref: string;
  conversationId: string;
}

/** Where lessons live (cards #18): learned from decisions, read by the planners. */
export interface LessonBook {
  learn(o: LessonObservation): Promise<Lesson>;
  /** The lessons in force, cached per container for up to a minute (a local working-copy read). */
  active(): Promise<Lesson[]>;
}
