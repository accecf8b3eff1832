import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface DynamoTable {
  doc: DynamoDBDocumentClient;
  tableName: string;
}

export function isConditionFailed(e: unknown): boolean {
  return (
    typeof e === 'object' &&
    e !== null &&
    'name' in e &&
    ((e as { name: string }).name === 'ConditionalCheckFailedException' ||
      (e as { name: string }).name === 'TransactionCanceledException')
  );
}

export const epochSeconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** Strips the key attributes so stored items parse back into domain records. */
export function stripKeys<T>(item: Record<string, unknown> | undefined): T | undefined {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, expiresAt: _e, ...rest } = item;
  return rest as T;
}
