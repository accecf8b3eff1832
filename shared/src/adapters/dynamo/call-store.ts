import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CallRecord, CallStore } from '../../ports/call-store';
import { type DynamoTable, isConditionFailed, stripKeys } from './base';

const key = (callId: string) => ({ pk: `CALL#${callId}`, sk: 'CALL' });

/** One item per call; each Quo event SETs only its own fields, so arrival order does not matter. */
export function dynamoCallStore(t: DynamoTable): CallStore {
  return {
    async merge(callId, patch, at) {
      const names: Record<string, string> = { '#first': 'firstSeenAt', '#id': 'callId' };
      const values: Record<string, unknown> = { ':at': at, ':id': callId };
      const sets = ['#first = if_not_exists(#first, :at)', '#id = :id'];
      for (const [k, v] of Object.entries(patch)) {
        if (v === undefined) continue;
        names[`#${k}`] = k;
        values[`:${k}`] = v;
        sets.push(`#${k} = :${k}`);
      }
      const res = await t.doc.send(
        new UpdateCommand({
          TableName: t.tableName,
          Key: key(callId),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return stripKeys<CallRecord>(res.Attributes) as CallRecord;
    },
    async claimRun(callId, eventId) {
      try {
        await t.doc.send(
          new UpdateCommand({
            TableName: t.tableName,
            Key: key(callId),
            UpdateExpression: 'SET runBy = :e',
            ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(runBy) OR runBy = :e)',
            ExpressionAttributeValues: { ':e': eventId },
          }),
        );
        return true;
      } catch (e) {
        if (isConditionFailed(e)) return false;
        throw e;
      }
    },
  };
}
