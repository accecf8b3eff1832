import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type EventEnvelope, eventEnvelope } from '../../contracts/events';
import type { CooldownStore } from '../../ports/cooldown-store';
import { type DynamoTable, isConditionFailed } from './base';

const key = (k: string) => ({ pk: `COOLDOWN#${k}`, sk: 'COOLDOWN' });

export function dynamoCooldownStore(t: DynamoTable): CooldownStore {
  return {
    async tryStart(k, windowSeconds, now) {
      const until = new Date(now.getTime() + windowSeconds * 1000);
      try {
        await t.doc.send(
          new UpdateCommand({
            TableName: t.tableName,
            Key: key(k),
            UpdateExpression: 'SET #until = :until, startedAt = :now',
            ConditionExpression: 'attribute_not_exists(#until) OR #until <= :now',
            ExpressionAttributeNames: { '#until': 'until' },
            ExpressionAttributeValues: { ':until': until.toISOString(), ':now': now.toISOString() },
          }),
        );
        return { acquired: true, until };
      } catch (e) {
        if (!isConditionFailed(e)) throw e;
        const current = await t.doc.send(
          new UpdateCommand({
            TableName: t.tableName,
            Key: key(k),
            UpdateExpression: 'SET lastSeenAt = :now',
            ExpressionAttributeValues: { ':now': now.toISOString() },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return { acquired: false, until: new Date(String(current.Attributes?.until ?? now.toISOString())) };
      }
    },
    async park(k, event) {
      // A map keyed by event id: parking the same event twice (redelivery) stays one entry.
      await t.doc.send(
        new UpdateCommand({
          TableName: t.tableName,
          Key: key(k),
          UpdateExpression: 'SET parked = if_not_exists(parked, :empty)',
          ExpressionAttributeValues: { ':empty': {} },
        }),
      );
      await t.doc.send(
        new UpdateCommand({
          TableName: t.tableName,
          Key: key(k),
          UpdateExpression: 'SET parked.#id = :ev',
          ExpressionAttributeNames: { '#id': event.id },
          ExpressionAttributeValues: { ':ev': JSON.stringify(event) },
        }),
      );
    },
    async isParked(k, eventId) {
      const res = await t.doc.send(
        new GetCommand({
          TableName: t.tableName,
          Key: key(k),
          ConsistentRead: true,
          ProjectionExpression: 'parked.#id',
          ExpressionAttributeNames: { '#id': eventId },
        }),
      );
      return Boolean((res.Item?.parked as Record<string, unknown> | undefined)?.[eventId]);
    },
    async takeParked(k) {
      try {
        const res = await t.doc.send(
          new UpdateCommand({
            TableName: t.tableName,
            Key: key(k),
            UpdateExpression: 'REMOVE parked',
            ConditionExpression: 'attribute_exists(parked)',
            ReturnValues: 'ALL_OLD',
          }),
        );
        const parked = (res.Attributes?.parked ?? {}) as Record<string, string>;
        const events: EventEnvelope[] = [];
        for (const raw of Object.values(parked)) {
          const parsed = eventEnvelope.safeParse(JSON.parse(raw));
          if (parsed.success) events.push(parsed.data);
        }
        return events.sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
      } catch (e) {
        if (isConditionFailed(e)) return [];
        throw e;
      }
    },
  };
}
