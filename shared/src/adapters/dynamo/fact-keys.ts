import { createHash } from 'node:crypto';

/**
 * Where a policy fact lives in the single table: one partition per conversation, one item per predicate and
 * arguments. Kept apart from the fact store (and its zod schemas) so the turn commit, which every function's
 * core carries, can address facts without bundling zod classic into the webhook (issue 16).
 */
export const factPk = (conversationId: string) => `FACTS#${conversationId}`;

/** Stable across processes: the same predicate and arguments always address the same item. */
export function factSk(predicate: string, args: ReadonlyArray<string | number>): string {
  const hash = createHash('sha256').update(JSON.stringify(args)).digest('base64url').slice(0, 22);
  return `FACT#${predicate}#${hash}`;
}
