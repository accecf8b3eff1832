import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditEvent } from '../../contracts/conversations';
import { newId } from '../../ids';
import type { AuditLog } from '../../ports/audit-log';
import { type DynamoTable, queryAll } from './base';

export function dynamoAuditLog(t: DynamoTable, clock: () => Date = () => new Date()): AuditLog {
  return {
    async append(e) {
      const at = e.at ?? clock().toISOString();
      const id = newId('au_');
      await t.doc.send(
        new PutCommand({
          TableName: t.tableName,
          Item: { pk: `CONV#${e.conversationId}`, sk: `AUDIT#${at}#${id}`, ...e, id, at },
          ConditionExpression: 'attribute_not_exists(sk)',
        }),
      );
    },
    async list(c, opts) {
      const out = await queryAll<AuditEvent>(t, {
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :a)',
        ExpressionAttributeValues: { ':p': `CONV#${c}`, ':a': 'AUDIT#' },
      });
      return opts?.limit ? out.slice(-opts.limit) : out;
    },
  };
}
