import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { expect, test } from 'vitest';
import { freshTable } from './helpers';

test('DynamoDB Local answers and the table round-trips an item', async () => {
  const { doc, tableName } = await freshTable();
  await doc.send(new PutCommand({ TableName: tableName, Item: { pk: 'a', sk: 'b', v: 1 } }));
  const got = await doc.send(new GetCommand({ TableName: tableName, Key: { pk: 'a', sk: 'b' } }));
  expect(got.Item?.v).toBe(1);
});
