import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { InstructionsStore, InstructionsVersion } from '../../ports/instructions-store';
import type { DynamoTable } from './base';

export function dynamoInstructionsStore(t: DynamoTable): InstructionsStore {
  const pick = (i: Record<string, unknown>): InstructionsVersion => ({
    text: String(i.text),
    updatedAt: String(i.updatedAt),
    updatedBy: String(i.updatedBy),
  });
  return {
    async current() {
      const res = await t.doc.send(
        new GetCommand({
          TableName: t.tableName,
          Key: { pk: 'INSTRUCTIONS', sk: 'CURRENT' },
          ConsistentRead: true,
        }),
      );
      return res.Item ? pick(res.Item) : undefined;
    },
    async put(text, by, at) {
      const v = { text, updatedAt: at, updatedBy: by };
      await t.doc.send(
        new PutCommand({ TableName: t.tableName, Item: { pk: 'INSTRUCTIONS', sk: `VERSION#${at}`, ...v } }),
      );
      await t.doc.send(
        new PutCommand({ TableName: t.tableName, Item: { pk: 'INSTRUCTIONS', sk: 'CURRENT', ...v } }),
      );
      return v;
    },
    async history(limit = 20) {
      const res = await t.doc.send(
        new QueryCommand({
          TableName: t.tableName,
          KeyConditionExpression: 'pk = :p AND begins_with(sk, :v)',
          ExpressionAttributeValues: { ':p': 'INSTRUCTIONS', ':v': 'VERSION#' },
          ScanIndexForward: false,
          Limit: limit,
        }),
      );
      return (res.Items ?? []).map(pick);
    },
  };
}
