import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';

/**
 * One table for everything (single-table design; access patterns in docs/ARCHITECTURE.md).
 * pk/sk is the primary key; gsi1 lists things across partitions (conversations by recency, events by day,
 * push subscriptions of the team). `expiresAt` (epoch seconds) is the TTL attribute — DynamoDB deletes
 * lazily, so every read and every conditional write that cares about expiry checks it itself.
 */
export const TABLE_KEYS = {
  pk: 'pk',
  sk: 'sk',
  gsi1: 'gsi1',
  gsi1pk: 'gsi1pk',
  gsi1sk: 'gsi1sk',
  ttl: 'expiresAt',
};

export function tableDefinition(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'S' },
      { AttributeName: 'gsi1pk', AttributeType: 'S' },
      { AttributeName: 'gsi1sk', AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: 'gsi1',
        KeySchema: [
          { AttributeName: 'gsi1pk', KeyType: 'HASH' },
          { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
  };
}

/** Creates the table if it does not exist (local stack and tests; on AWS the CDK stack owns it). */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new CreateTableCommand(tableDefinition(tableName)));
    await client
      .send(
        new UpdateTimeToLiveCommand({
          TableName: tableName,
          TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        }),
      )
      .catch((e: unknown) => {
        // dynalite (the local stack without Java) has no TTL API; nothing expires locally either way.
        if ((e as { name?: string }).name !== 'UnknownOperationException') throw e;
      });
  } catch (e) {
    if (!(e instanceof ResourceInUseException)) throw e;
  }
  for (let i = 0; i < 100; i++) {
    const d = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (d.Table?.TableStatus === 'ACTIVE') return;
    await new Promise((r) => setTimeout(r, 100));
  }
}
