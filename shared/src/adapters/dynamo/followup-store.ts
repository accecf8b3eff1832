import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { FollowUp } from '../../contracts/followups';
import type { FollowUpStore } from '../../ports/followup-store';
import { type DynamoTable, isConditionFailed, queryAll, stripKeys } from './base';

const key = (conversationId: string, id: string) => ({ pk: `CONV#${conversationId}`, sk: `FOLLOWUP#${id}` });

/**
 * Follow-ups live in their conversation's partition (listed with it); while scheduled they are also on gsi1
 * (`FOLLOWUPS` / `<at>#<id>`) so the digest finds what is due without a scan. A finished one leaves the index.
 */
export function dynamoFollowUpStore(t: DynamoTable): FollowUpStore {
  return {
    async create(f) {
      await t.doc
        .send(
          new PutCommand({
            TableName: t.tableName,
            Item: { ...key(f.conversationId, f.id), gsi1pk: 'FOLLOWUPS', gsi1sk: `${f.at}#${f.id}`, ...f },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        )
        .catch((e) => {
          if (!isConditionFailed(e)) throw e;
        });
    },
    async get(conversationId, id) {
      const res = await t.doc.send(new GetCommand({ TableName: t.tableName, Key: key(conversationId, id) }));
      return stripKeys<FollowUp>(res.Item);
    },
    listByConversation(conversationId) {
      return queryAll<FollowUp>(t, {
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)',
        ExpressionAttributeValues: { ':p': `CONV#${conversationId}`, ':s': 'FOLLOWUP#' },
      });
    },
    async listDue(before) {
      const res = await t.doc.send(
        new QueryCommand({
          TableName: t.tableName,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :p AND gsi1sk < :b',
          ExpressionAttributeValues: { ':p': 'FOLLOWUPS', ':b': before },
          Limit: 100,
        }),
      );
      return (res.Items ?? []).map((i) => stripKeys<FollowUp>(i) as FollowUp);
    },
    async transition(conversationId, id, from, to, fields = {}) {
      const names: Record<string, string> = { '#s': 'status' };
      const values: Record<string, unknown> = { ':to': to };
      from.forEach((f, i) => {
        values[`:f${i}`] = f;
      });
      const sets = ['#s = :to'];
      for (const [k, v] of Object.entries(fields)) {
        if (v === undefined) continue;
        names[`#${k}`] = k;
        values[`:${k}`] = v;
        sets.push(`#${k} = :${k}`);
      }
      const stillDue = to === 'scheduled' || to === 'sending';
      try {
        const res = await t.doc.send(
          new UpdateCommand({
            TableName: t.tableName,
            Key: key(conversationId, id),
            UpdateExpression: `SET ${sets.join(', ')}${stillDue ? '' : ' REMOVE gsi1pk, gsi1sk'}`,
            ConditionExpression: `attribute_exists(pk) AND #s IN (${from.map((_, i) => `:f${i}`).join(', ')})`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
          }),
        );
        return stripKeys<FollowUp>(res.Attributes);
      } catch (e) {
        if (isConditionFailed(e)) return undefined;
        throw e;
      }
    },
  };
}
