import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PendingAction } from '../../contracts/conversations';
import type { ActionStore } from '../../ports/action-store';
import { actionTransitionUpdate } from './action-update';
import { conflictOnConditionFailed, type DynamoTable, isConditionFailed, stripKeys } from './base';

const key = (c: string, a: string) => ({ pk: `CONV#${c}`, sk: `ACTION#${a}` });

export function dynamoActionStore(t: DynamoTable): ActionStore {
  return {
    async create(a) {
      await t.doc
        .send(
          new PutCommand({
            TableName: t.tableName,
            Item: { ...key(a.conversationId, a.id), ...a },
            ConditionExpression: 'attribute_not_exists(sk)',
          }),
        )
        .catch(conflictOnConditionFailed(`Action ${a.id} exists`));
    },
    async get(c, a) {
      const res = await t.doc.send(
        new GetCommand({ TableName: t.tableName, Key: key(c, a), ConsistentRead: true }),
      );
      return stripKeys<PendingAction>(res.Item);
    },
    async listByConversation(c) {
      const res = await t.doc.send(
        new QueryCommand({
          TableName: t.tableName,
          KeyConditionExpression: 'pk = :p AND begins_with(sk, :a)',
          ExpressionAttributeValues: { ':p': `CONV#${c}`, ':a': 'ACTION#' },
          ConsistentRead: true,
        }),
      );
      return (res.Items ?? []).map((i) => stripKeys<PendingAction>(i) as PendingAction);
    },
    async transition(c, a, from, to, patch = {}) {
      try {
        const res = await t.doc.send(
          new UpdateCommand({
            TableName: t.tableName,
            Key: key(c, a),
            ...actionTransitionUpdate(from, to, patch),
            ReturnValues: 'ALL_NEW',
          }),
        );
        return stripKeys<PendingAction>(res.Attributes);
      } catch (e) {
        if (isConditionFailed(e)) return undefined;
        throw e;
      }
    },
  };
}
