import { inject } from 'vitest';
import { makeDynamoClients } from '../shared/src/adapters/dynamo/client';
import { ensureTable } from '../shared/src/adapters/dynamo/table';
import { newId } from '../shared/src/ids';

/** A fresh table on the shared DynamoDB Local, unique to the calling test file. */
export async function freshTable(prefix = 'test') {
  const endpoint = inject('dynamoEndpoint');
  const tableName = `${prefix}-${newId()}`;
  const clients = makeDynamoClients({ region: 'us-east-1', endpoint });
  await ensureTable(clients.raw, tableName);
  return { endpoint, tableName, ...clients };
}
