import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type NotificationChoices, notificationChoices } from '../../contracts/notification-choices';
import type { NotificationChoicesStore } from '../../ports/notification-choices';
import type { DynamoTable } from './base';

const PK = 'NOTIFYCHOICES';

/**
 * pk `NOTIFYCHOICES`, sk the user id: a small team's choices sit in one partition, so the sender reads all of
 * them with one Query. A stored record that no longer parses is skipped (that person gets the defaults).
 */
export function dynamoNotificationChoicesStore(t: DynamoTable): NotificationChoicesStore {
  const parse = (item: Record<string, unknown> | undefined) => {
    const r = notificationChoices.safeParse(item?.choices);
    return r.success ? r.data : undefined;
  };
  return {
    async get(userId) {
      const res = await t.doc.send(
        new GetCommand({ TableName: t.tableName, Key: { pk: PK, sk: userId }, ConsistentRead: true }),
      );
      return parse(res.Item);
    },
    async put(userId, choices, meta) {
      await t.doc.send(
        new PutCommand({
          TableName: t.tableName,
          Item: { pk: PK, sk: userId, choices, updatedBy: meta.by, updatedAt: meta.at },
        }),
      );
    },
    async all() {
      const out = new Map<string, NotificationChoices>();
      let start: Record<string, unknown> | undefined;
      do {
        const page = await t.doc.send(
          new QueryCommand({
            TableName: t.tableName,
            KeyConditionExpression: 'pk = :p',
            ExpressionAttributeValues: { ':p': PK },
            ConsistentRead: true,
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        );
        for (const item of page.Items ?? []) {
          const c = parse(item);
          if (c) out.set(String(item.sk), c);
        }
        start = page.LastEvaluatedKey;
      } while (start);
      return out;
    },
  };
}
