import * as z from 'zod/mini';
import '../../zod-mini';

/**
 * Working memory of the policy engine (SPEC §3.6): ground facts per conversation, each with where it came
 * from and how long it stays true. Derived facts are never stored — the solver re-derives them on every call,
 * so a derivation can never outlive a fact it rests on.
 */
// zod/mini: the webhook's composition reaches this file through the core's stores, and classic zod alone
// would take its bundle past 300 KB (issue 16). zod 4 numbers are finite already.
export const factValueSchema = z.union([z.string(), z.number()]);
export type FactValue = z.infer<typeof factValueSchema>;

export const factProvenanceSchema = z.object({
  /** `tool`: a data tool's result; `person`: a person's answer to an askable question; `seed`: set at run start. */
  kind: z.enum(['tool', 'person', 'seed']),
  /** Which tool call, who answered, which setting — shown on the approval card next to the fact. */
  detail: z.string(),
});
export type FactProvenance = z.infer<typeof factProvenanceSchema>;

export const storedFactSchema = z.object({
  predicate: z.string().check(z.minLength(1)),
  args: z.array(factValueSchema),
  /** Epoch seconds after which the fact no longer holds; absent = holds for the whole conversation. */
  expiresAt: z.optional(z.int()),
  /** Epoch seconds when it was established. */
  establishedAt: z.int(),
  provenance: factProvenanceSchema,
});
export type StoredFact = z.infer<typeof storedFactSchema>;

export interface FactStore {
  /**
   * The facts of a conversation that still hold at `now` (expired ones are skipped by the store itself:
   * DynamoDB's TTL deletion is lazy). `predicate` narrows the read to one predicate.
   */
  list(conversationId: string, opts: { now: Date; predicate?: string }): Promise<StoredFact[]>;
  /** Upserts: a fact with the same predicate and arguments replaces the stored one. */
  put(conversationId: string, facts: StoredFact[]): Promise<void>;
  delete(conversationId: string, predicate: string, args: FactValue[]): Promise<void>;
}

/** True while the fact holds at `now`. */
export function factHolds(fact: Pick<StoredFact, 'expiresAt'>, now: Date): boolean {
  return fact.expiresAt === undefined || fact.expiresAt * 1000 > now.getTime();
}
