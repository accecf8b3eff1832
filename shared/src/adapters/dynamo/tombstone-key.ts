/**
 * A deleted conversation's tombstone (issue 19): written by the eraser before it erases anything, checked by
 * every turn commit (turn-store.ts). Its own tiny module so the turn store, in every function's core, does not
 * load the deletion contracts.
 */
export const tombstoneKey = (conversationId: string) => ({
  pk: `TOMBSTONE#${conversationId}`,
  sk: 'TOMBSTONE',
});
