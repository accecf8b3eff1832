import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isTriageLabel, type TriageLabel } from './labels';
import { isHeldApart } from './split';

/**
 * The labelled corpus in `triage-corpus/`: one file per label (`emergency-water.txt`, `vendor-confirmation.txt`),
 * one example a line, `#` starts a comment. Read by the training script, the bench and the tests only; the
 * runtime loads the generated model, never this.
 */
export interface Example {
  text: string;
  label: TriageLabel;
  file: string;
  line: number;
}

export const CORPUS_DIR = join(import.meta.dirname, 'triage-corpus');

export function labelOfFile(file: string): TriageLabel {
  const stem = file.replace(/\.txt$/, '');
  const label = stem.startsWith('emergency-')
    ? `emergency.${stem.slice('emergency-'.length)}`
    : stem.replace(/-/g, '_');
  if (!isTriageLabel(label)) throw new Error(`triage-corpus/${file}: no such label "${label}"`);
  return label;
}

export function loadCorpus(dir = CORPUS_DIR): Example[] {
  const out: Example[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .sort()) {
    const label = labelOfFile(file);
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .forEach((raw, i) => {
        const text = raw.trim();
        if (text && !text.startsWith('#')) out.push({ text, label, file, line: i + 1 });
      });
  }
  return out;
}

export function splitCorpus(examples: readonly Example[]): { training: Example[]; heldApart: Example[] } {
  const training: Example[] = [];
  const heldApart: Example[] = [];
  for (const e of examples) (isHeldApart(e.text) ? heldApart : training).push(e);
  return { training, heldApart };
}
