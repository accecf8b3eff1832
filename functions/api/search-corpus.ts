import type { Core } from '../../shared/src/composition/core';
import type { ConversationCorpus } from '../../shared/src/tools/db-search';

const corpora = new WeakMap<Core, Promise<ConversationCorpus>>();
/**
 * One search corpus per composed core (per cold start): warm calls only re-read what changed. Built on the
 * first search or delete, with the tool deps module (the search index, fuzzy matching and the tools' schemas:
 * a third of the zod schemas the api would otherwise construct at cold start, issue 16).
 */
export function corpusFor(core: Core): Promise<ConversationCorpus> {
  let corpus = corpora.get(core);
  if (!corpus) {
    corpus = import('../../shared/src/composition/tool-deps').then(
      (m) => m.buildDbSearchToolDeps(core.config, core.table).corpus,
    );
    corpora.set(core, corpus);
  }
  return corpus;
}
