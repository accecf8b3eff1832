import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import '../../zod-mini';
import { describeZodIssues, UpstreamError } from '../../errors';
import type { EmailCursor, EmailCursorStore } from '../../ports/email-cursor-store';
import { type DynamoTable, isConditionFailed } from './base';

/**
 * One item per poll (`CURSOR#email-general`, `CURSOR#email-leads`). Compare-and-set is a conditional put
 * on `version`: the first write requires the item to be absent, every later one the version it read.
 * Reads are strongly consistent, so a poll that lost a race re-reads the winner's write, not a stale copy.
 */
const key = (name: string) => ({ pk: `CURSOR#${name}`, sk: 'CURSOR' });

// zod/mini: the email poller's init loads no classic zod at all (issue 16).
const itemSchema = z.object({
  version: z.int().check(z.positive()),
  internalDate: z.number(),
  seen: z.record(z.string(), z.number()),
  inflight: z.array(z.object({ id: z.string(), internalDate: z.number(), claimedAt: z.number() })),
});

export function dynamoEmailCursorStore(t: DynamoTable): EmailCursorStore {
  return {
    async get(name): Promise<EmailCursor | undefined> {
      const res = await t.doc.send(
        new GetCommand({ TableName: t.tableName, Key: key(name), ConsistentRead: true }),
      );
      if (!res.Item) return undefined;
      const parsed = itemSchema.safeParse(res.Item);
      if (!parsed.success) {
        // A cursor we cannot read must stop the poll loudly: guessing could skip or repeat mail.
        throw new UpstreamError(
          `Email cursor ${name} is unreadable: ${describeZodIssues(parsed.error.issues)}`,
          {
            code: 'cursor_corrupt',
            retryable: false,
          },
        );
      }
      return parsed.data;
    },

    async compareAndSet(name, expectedVersion, next) {
      try {
        await t.doc.send(
          new PutCommand({
            TableName: t.tableName,
            Item: {
              ...key(name),
              version: expectedVersion + 1,
              internalDate: next.internalDate,
              seen: next.seen,
              inflight: next.inflight,
              updatedAt: new Date().toISOString(),
            },
            ...(expectedVersion === 0
              ? { ConditionExpression: 'attribute_not_exists(pk)' }
              : {
                  ConditionExpression: '#v = :expected',
                  ExpressionAttributeNames: { '#v': 'version' },
                  ExpressionAttributeValues: { ':expected': expectedVersion },
                }),
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
