import type { TriageLabel } from './labels';

/** One labelled example of the triage corpus (scripts/triage/corpus.ts reads them from triage-corpus/). */
export interface Example {
  text: string;
  label: TriageLabel;
  file: string;
  line: number;
  /**
   * Who wrote it: set by a `# @source <name>` comment line for the lines after it (default "original"), so
   * the bench can report examples written later, e.g. to grow the corpus, apart from the first ones.
   */
  source: string;
}
