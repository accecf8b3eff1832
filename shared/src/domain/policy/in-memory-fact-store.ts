import { type FactStore, type FactValue, factHolds, type StoredFact } from './facts';

/** Copies on the way in and out, as a real store would: callers cannot change what is stored by mutation. */
const copy = (f: StoredFact): StoredFact => ({ ...f, args: [...f.args], provenance: { ...f.provenance } });

/** FactStore for unit tests and benchmarks: the same contract as the DynamoDB adapter, in a Map. */
export class InMemoryFactStore implements FactStore {
  private readonly data = new Map<string, Map<string, StoredFact>>();
  /** Counts store calls so tests can see what the engine read and wrote. */
  readonly calls = { list: 0, put: 0, delete: 0 };

  private conv(id: string) {
    let m = this.data.get(id);
    if (!m) {
      m = new Map();
      this.data.set(id, m);
    }
    return m;
  }

  private static key(predicate: string, args: FactValue[]) {
    return `${predicate}|${JSON.stringify(args)}`;
  }

  async list(conversationId: string, opts: { now: Date; predicate?: string }): Promise<StoredFact[]> {
    this.calls.list++;
    return [...this.conv(conversationId).values()]
      .filter(
        (f) => (opts.predicate === undefined || f.predicate === opts.predicate) && factHolds(f, opts.now),
      )
      .map(copy);
  }

  async put(conversationId: string, facts: StoredFact[]): Promise<void> {
    this.calls.put++;
    const m = this.conv(conversationId);
    for (const f of facts) m.set(InMemoryFactStore.key(f.predicate, f.args), copy(f));
  }

  async delete(conversationId: string, predicate: string, args: FactValue[]): Promise<void> {
    this.calls.delete++;
    this.conv(conversationId).delete(InMemoryFactStore.key(predicate, args));
  }

  /** Everything stored, expired items included (DynamoDB also keeps them until its lazy TTL sweep). */
  dump(conversationId: string): StoredFact[] {
    return [...this.conv(conversationId).values()];
  }
}
