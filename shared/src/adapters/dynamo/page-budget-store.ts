import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { UpstreamError } from '../../errors';
import type { PageBudgetStore, PageLimit } from '../../ports/page-budget';
import { type DynamoTable, epochSeconds, isConditionFailed } from './base';

const key = (k: string) => ({ pk: `PAGEBUDGET#${k}`, sk: 'PAGEBUDGET' });

interface Window {
  limit: PageLimit;
  /** Times (ms) of the takes still inside the window. */
  takes: number[];
  version: number;
}

/**
 * One item per limit holding the times of its recent takes and a version. A take reads every limit, and if
 * all have room writes them back in one transaction conditioned on each version: two workers racing for
 * the last slot cannot both win (the loser re-reads and sees the budget spent).
 */
export function dynamoPageBudgetStore(t: DynamoTable): PageBudgetStore {
  async function read(limit: PageLimit, now: number): Promise<Window> {
    const res = await t.doc.send(
      new GetCommand({ TableName: t.tableName, Key: key(limit.key), ConsistentRead: true }),
    );
    const takes = ((res.Item?.takes as number[] | undefined) ?? []).filter((x) => x > now - limit.windowMs);
    return { limit, takes, version: Number(res.Item?.version ?? 0) };
  }
  return {
    async tryTake(limits, at) {
      const now = at.getTime();
      for (let attempt = 0; attempt < 8; attempt++) {
        const windows = await Promise.all(limits.map((l) => read(l, now)));
        const full = windows.find((w) => w.takes.length >= w.limit.limit);
        if (full) return { ok: false, blockedBy: full.limit };
        try {
          await t.doc.send(
            new TransactWriteCommand({
              TransactItems: windows.map((w) => ({
                Put: {
                  TableName: t.tableName,
                  Item: {
                    ...key(w.limit.key),
                    takes: [...w.takes, now],
                    version: w.version + 1,
                    expiresAt: epochSeconds(new Date(now + w.limit.windowMs)) + 60,
                  },
                  ConditionExpression: 'attribute_not_exists(pk) OR version = :v',
                  ExpressionAttributeValues: { ':v': w.version },
                },
              })),
            }),
          );
          return { ok: true };
        } catch (e) {
          if (!isConditionFailed(e)) throw e;
        }
      }
      throw new UpstreamError('The paging budget is contended; try again');
    },
  };
}
