import { containerBootstrap } from '@nlpjs/core';
import { LangEn } from '@nlpjs/lang-en-min';
import { NluNeural } from '@nlpjs/nlu';

/**
 * One NLP.js neural NLU with the English pipeline (normalise → tokenise → stem), the same for training and
 * for the runtime so the features agree. `useNoneFeature` lets words the corpus never saw pull toward
 * "None" (read as class `other`) instead of toward whichever class shares one common word.
 */
export const NLU_SETTINGS = { locale: 'en', log: false, useNoneFeature: true, spellCheck: false } as const;

export function newNlu(): NluNeural {
  const container = containerBootstrap();
  container.use(LangEn);
  return new NluNeural({ ...NLU_SETTINGS, container });
}
