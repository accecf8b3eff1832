import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { LiveConnection, LiveConnections } from '../../ports/live-updates';
import { type DynamoTable, epochSeconds, queryAll, stripKeys } from './base';

const PK = 'LIVE';
const sk = (id: string) => `CONN#${id}`;
/** API Gateway closes a WebSocket after 2 hours at most; TTL sweeps any item whose $disconnect was lost. */
const CONNECTION_MAX_SECONDS = 2 * 60 * 60;

/**
 * Open sockets in the single table: pk `LIVE`, sk `CONN#<connectionId>`. A team has a handful of open apps,
 * so "everyone" is one Query of one partition. An item outliving its socket is harmless: posting to it
 * answers 410 and the publisher deletes it.
 */
export function dynamoLiveConnections(t: DynamoTable, clock: () => Date = () => new Date()): LiveConnections {
  return {
    async put(c) {
      await t.doc.send(
        new PutCommand({
          TableName: t.tableName,
          Item: {
            pk: PK,
            sk: sk(c.connectionId),
            ...c,
            expiresAt: epochSeconds(clock()) + CONNECTION_MAX_SECONDS,
          },
        }),
      );
    },
    async get(connectionId) {
      const res = await t.doc.send(
        new GetCommand({ TableName: t.tableName, Key: { pk: PK, sk: sk(connectionId) } }),
      );
      return stripKeys<LiveConnection>(res.Item);
    },
    async delete(connectionId) {
      await t.doc.send(new DeleteCommand({ TableName: t.tableName, Key: { pk: PK, sk: sk(connectionId) } }));
    },
    async list() {
      const now = epochSeconds(clock());
      const items = await queryAll<LiveConnection & { expiresAt?: number }>(t, {
        KeyConditionExpression: 'pk = :p',
        // TTL deletes lazily: an expired item is skipped here, not posted to.
        FilterExpression: 'expiresAt > :now',
        ExpressionAttributeValues: { ':p': PK, ':now': now },
      });
      return items;
    },
  };
}
