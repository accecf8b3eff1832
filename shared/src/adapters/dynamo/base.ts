import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../../errors';

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

/** A conditional create that lost (the item exists) becomes our ConflictError; anything else is rethrown. */
export function conflictOnConditionFailed(message: string) {
  return (e: unknown): never => {
    if (isConditionFailed(e)) throw new ConflictError(message);
    throw e;
  };
}

export const epochSeconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** Strips the key attributes so stored items parse back into domain records. */
export function stripKeys<T>(item: Record<string, unknown> | undefined): T | undefined {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, expiresAt: _e, ...rest } = item;
  return rest as T;
}

/** Every item a query matches, following LastEvaluatedKey, with the key attributes stripped. */
export async function queryAll<T>(
  t: DynamoTable,
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): Promise<T[]> {
  const out: T[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const res = await t.doc.send(
      new QueryCommand({ ...input, TableName: t.tableName, ExclusiveStartKey: start }),
    );
    for (const i of res.Items ?? []) out.push(stripKeys<T>(i) as T);
    start = res.LastEvaluatedKey;
  } while (start);
  return out;
}
