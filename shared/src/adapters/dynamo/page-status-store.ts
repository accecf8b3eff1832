import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { PageStatusStore } from '../../ports/page-status-store';
import type { TwilioStatusUpdate } from '../twilio-webhooks';
import { type DynamoTable, epochSeconds, stripKeys } from './base';

export function dynamoPageStatusStore(t: DynamoTable): PageStatusStore {
  return {
    async record(u, at) {
      await t.doc.send(
        new PutCommand({
          TableName: t.tableName,
          Item: {
            pk: `PAGE#${u.sid}`,
            sk: `STATUS#${String(u.sequence ?? 0).padStart(4, '0')}#${u.status}`,
            ...u,
            at,
            expiresAt: epochSeconds(new Date(at)) + 90 * 24 * 3600,
          },
        }),
      );
    },
    async get(sid) {
      const res = await t.doc.send(
        new QueryCommand({
          TableName: t.tableName,
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': `PAGE#${sid}` },
        }),
      );
      return (res.Items ?? []).map(
        (i) => stripKeys<TwilioStatusUpdate & { at: string }>(i) as TwilioStatusUpdate & { at: string },
      );
    },
  };
}
