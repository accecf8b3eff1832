import { CreateTableCommand, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { makeDynamoClients } from '../../shared/src/adapters/dynamo/client';
import { type RunningDynamo, startDynalite } from './dynamodb';

/** The no-Java fallback must commit and refuse transactions as DynamoDB does, through the real SDK. */
let dynamo: RunningDynamo;
let doc: ReturnType<typeof makeDynamoClients>['doc'];
const TableName = 'transactions';

beforeAll(async () => {
  dynamo = await startDynalite();
  const clients = makeDynamoClients({ region: 'us-east-1', endpoint: dynamo.endpoint });
  doc = clients.doc;
  await clients.raw.send(
    new CreateTableCommand({
      TableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    }),
  );
});
afterAll(async () => {
  await dynamo?.stop();
});

const get = async (sk: string) => (await doc.send(new GetCommand({ TableName, Key: { pk: 'p', sk } }))).Item;

test('a transaction commits every item', async () => {
  await doc.send(new PutCommand({ TableName, Item: { pk: 'p', sk: 'counter', n: 1 } }));
  await doc.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName,
            Item: { pk: 'p', sk: 'a', v: 1 },
            ConditionExpression: 'attribute_not_exists(sk)',
          },
        },
        {
          Update: {
            TableName,
            Key: { pk: 'p', sk: 'counter' },
            UpdateExpression: 'SET n = n + :one',
            ExpressionAttributeValues: { ':one': 1 },
          },
        },
      ],
    }),
  );
  expect(await get('a')).toMatchObject({ v: 1 });
  expect(await get('counter')).toMatchObject({ n: 2 });
});

test('a failed condition cancels the whole transaction, with the reasons, and leaves nothing written', async () => {
  const attempt = doc.send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName, Item: { pk: 'p', sk: 'b', v: 1 } } },
        { Delete: { TableName, Key: { pk: 'p', sk: 'counter' } } },
        {
          ConditionCheck: {
            TableName,
            Key: { pk: 'p', sk: 'a' },
            ConditionExpression: 'v = :two',
            ExpressionAttributeValues: { ':two': 2 },
          },
        },
      ],
    }),
  );
  const error = await attempt.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TransactionCanceledException);
  expect((error as TransactionCanceledException).CancellationReasons?.map((r) => r.Code)).toEqual([
    'None',
    'None',
    'ConditionalCheckFailed',
  ]);
  expect(await get('b')).toBeUndefined();
  expect(await get('counter')).toMatchObject({ n: 2 });
  expect(await get('a')).toMatchObject({ v: 1 });
});
