import type { SearchResponse } from '../contracts/api';
import { visibleTo } from '../domain/visibility';
import { type ConversationCorpus, snippet } from '../tools/db-search';
import { toSummary } from './list-conversations';

/** Conversations shown for one search, best first. */
const MAX_RESULTS = 25;

/**
 * The inbox's search box (issue 19): the same full-text corpus the agent's search tool keeps (MiniSearch
 * over the most recent conversations, refreshed from DynamoDB on use), grouped by conversation with the
 * matching snippets and the matched terms, so the app can highlight them.
 */
export async function searchInbox(
  deps: { corpus: ConversationCorpus },
  input: { query: string; userId: string },
): Promise<SearchResponse> {
  await deps.corpus.refresh();
  const { hits } = deps.corpus.search(input.query);
  const convs = new Map(deps.corpus.conversations().map((c) => [c.id, c]));
  const groups = new Map<string, { score: number; hits: typeof hits }>();
  const terms = new Set<string>();
  for (const h of hits) {
    const g = groups.get(h.doc.conversationId) ?? { score: 0, hits: [] };
    g.score += h.result.score;
    g.hits.push(h);
    groups.set(h.doc.conversationId, g);
    for (const t of h.result.terms) terms.add(t);
  }
  const results = [...groups.entries()]
    .sort((a, b) => b[1].score - a[1].score)
    .flatMap(([id, g]) => {
      const c = convs.get(id);
      if (!c || !visibleTo(c, input.userId)) return [];
      const matches = g.hits
        .sort((a, b) => b.result.score - a.result.score)
        .slice(0, 3)
        .map(({ doc, result }) => ({
          messageId: doc.messageId,
          at: doc.at,
          author: doc.author,
          snippet: snippet(doc.text, result.terms),
        }));
      return [{ conversation: toSummary(c, input.userId), matches }];
    })
    .slice(0, MAX_RESULTS);
  const coverage = deps.corpus.coverage();
  return {
    query: input.query,
    terms: [...terms],
    results,
    searched: { conversations: coverage.conversations, complete: coverage.complete },
  };
}
