import { type FactStore, type FactValue, factHolds, type StoredFact } from '../ports/fact-store';

/** Where a held conversation's fact writes go instead of the store: the open turn's commit. */
export interface StagedFactWrites {
  put(facts: StoredFact[]): void;
  delete(predicate: string, args: FactValue[]): void;
}

/** A fact store that can hold one conversation's facts in memory for the length of a turn. */
export interface TurnFactCache extends FactStore {
  /**
   * Reads of this conversation are served from one load until the returned release is called; with
   * `writes`, its fact writes are staged there (committed with the turn) instead of sent one by one.
   * `readNow` starts the load at once, so it goes alongside the turn's other reads instead of after them.
   */
  hold(conversationId: string, writes?: StagedFactWrites, opts?: { readNow?: boolean }): () => void;
}

/** A fact's identity in the held map (the store hashes it into a sort key; a map needs no hash). */
const keyOf = (predicate: string, args: FactValue[]) => `${predicate}#${JSON.stringify(args)}`;

/**
 * The policy engine reads a conversation's facts several times a turn (the prompt's summary before each model
 * call, the guard for each call). While a turn holds the conversation, the first read loads every fact once
 * and later reads are answered from memory; writes go to the store and to the held copy, so the turn sees
 * its own facts. Nothing is cached outside a turn: a person's answer recorded by the API between turns is
 * read fresh by the next one (issue 14's budget keeps its correctness).
 */
export function turnFactCache(store: FactStore): TurnFactCache {
  const held = new Map<
    string,
    { holders: number; facts?: Promise<Map<string, StoredFact>>; writes?: StagedFactWrites }
  >();

  const load = (conversationId: string) => {
    const h = held.get(conversationId);
    if (!h) return undefined;
    h.facts ??= store
      .list(conversationId, { now: new Date(0) })
      .then((all) => new Map(all.map((f) => [keyOf(f.predicate, f.args), f])));
    // A failed load is not kept: the next read tries the store again.
    h.facts.catch(() => {
      if (h.facts) delete h.facts;
    });
    return h.facts;
  };

  return {
    hold(conversationId, writes, opts) {
      const h = held.get(conversationId) ?? { holders: 0 };
      h.holders++;
      if (writes) h.writes = writes;
      held.set(conversationId, h);
      // Not awaited here: a failed early read is dropped (load's own catch) and the first use reads again.
      if (opts?.readNow) load(conversationId);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (--h.holders === 0) held.delete(conversationId);
      };
    },
    async list(conversationId, opts) {
      const facts = await load(conversationId);
      if (!facts) return store.list(conversationId, opts);
      return [...(await facts).values()].filter(
        (f) => factHolds(f, opts.now) && (opts.predicate === undefined || f.predicate === opts.predicate),
      );
    },
    async put(conversationId, facts) {
      const h = held.get(conversationId);
      // A staged write must be visible to the turn's later reads, so the held copy is loaded first.
      const m = h?.writes ? await load(conversationId) : await h?.facts?.catch(() => undefined);
      if (h?.writes) h.writes.put(facts);
      else await store.put(conversationId, facts);
      for (const f of m ? facts : []) m?.set(keyOf(f.predicate, f.args), f);
    },
    async delete(conversationId, predicate, args) {
      const h = held.get(conversationId);
      const m = h?.writes ? await load(conversationId) : await h?.facts?.catch(() => undefined);
      if (h?.writes) h.writes.delete(predicate, args);
      else await store.delete(conversationId, predicate, args);
      m?.delete(keyOf(predicate, args));
    },
  };
}
