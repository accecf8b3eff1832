import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { MediaRecord, MediaStore } from '../../ports/media-store';
import { type DynamoTable, isConditionFailed, stripKeys } from './base';

const key = (id: string) => ({ pk: `MEDIA#${id}`, sk: 'MEDIA' });

/** One item per media id, so the API's proxy finds it by id alone (it does not know the conversation). */
export function dynamoMediaStore(t: DynamoTable): MediaStore {
  return {
    async put(r) {
      await t.doc
        .send(
          new PutCommand({
            TableName: t.tableName,
            Item: { ...key(r.id), ...r },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        )
        .catch((e) => {
          if (!isConditionFailed(e)) throw e;
        });
    },
    async get(id) {
      const res = await t.doc.send(new GetCommand({ TableName: t.tableName, Key: key(id) }));
      return stripKeys<MediaRecord>(res.Item);
    },
  };
}
