import {
  BatchWriteCommand,
  type BatchWriteCommandInput,
  type BatchWriteCommandOutput,
  DeleteCommand,
  type DynamoDBDocumentClient,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import { describeZodIssues, UpstreamError } from '../../errors';
import {
  type FactStore,
  type FactValue,
  factHolds,
  type StoredFact,
  storedFactSchema,
} from '../../ports/fact-store';
import { factPk, factSk } from './fact-keys';

/**
 * Policy facts in the single table: one partition per conversation (`FACTS#<conversationId>`), one item per
 * fact (`FACT#<predicate>#<hash of args>`), so a refetched fact overwrites its predecessor and one Query reads a
 * conversation's working memory. `expiresAt` is the table's TTL attribute; DynamoDB deletes expired items
 * lazily (up to days later), so reads drop them here.
 */
export class DynamoFactStore implements FactStore {
  constructor(private readonly table: { doc: DynamoDBDocumentClient; tableName: string }) {}

  static pk(conversationId: string): string {
    return factPk(conversationId);
  }

  /** Stable across processes: the same predicate and arguments always address the same item. */
  static sk(predicate: string, args: FactValue[]): string {
    return factSk(predicate, args);
  }

  async list(conversationId: string, opts: { now: Date; predicate?: string }): Promise<StoredFact[]> {
    const out: StoredFact[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.send(
        () =>
          this.table.doc.send(
            new QueryCommand({
              TableName: this.table.tableName,
              KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
              ExpressionAttributeValues: {
                ':pk': DynamoFactStore.pk(conversationId),
                // The trailing '#' keeps `contact` from also matching `contact_type`.
                ':prefix': opts.predicate === undefined ? 'FACT#' : `FACT#${opts.predicate}#`,
              },
              ...(startKey ? { ExclusiveStartKey: startKey } : {}),
            }),
          ),
        'list facts',
      );
      for (const item of page.Items ?? []) {
        const parsed = storedFactSchema.safeParse(item);
        if (!parsed.success) {
          throw new UpstreamError(
            `Malformed fact item ${String(item.sk)}: ${describeZodIssues(parsed.error.issues)}`,
            {
              retryable: false,
              code: 'fact_item_malformed',
            },
          );
        }
        if (factHolds(parsed.data, opts.now)) out.push(parsed.data);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return out;
  }

  async put(conversationId: string, facts: StoredFact[]): Promise<void> {
    // BatchWrite rejects two writes to one key in a request, so the last write of a key wins here first.
    const unique = new Map<string, StoredFact>();
    for (const f of facts) unique.set(DynamoFactStore.sk(f.predicate, f.args), storedFactSchema.parse(f));
    const items = [...unique.entries()].map(([sk, f]) => ({
      PutRequest: { Item: { pk: DynamoFactStore.pk(conversationId), sk, ...f } },
    }));
    for (let i = 0; i < items.length; i += 25) {
      let request: BatchWriteCommandInput['RequestItems'] = {
        [this.table.tableName]: items.slice(i, i + 25),
      };
      for (let attempt = 0; request && Object.keys(request).length > 0; attempt++) {
        if (attempt >= 8)
          throw new UpstreamError('DynamoDB kept facts unprocessed', { code: 'facts_unprocessed' });
        if (attempt > 0) await new Promise((r) => setTimeout(r, 25 * 2 ** attempt));
        const current: BatchWriteCommandInput['RequestItems'] = request;
        const res: BatchWriteCommandOutput = await this.send(
          () => this.table.doc.send(new BatchWriteCommand({ RequestItems: current })),
          'put facts',
        );
        request = res.UnprocessedItems;
      }
    }
  }

  async delete(conversationId: string, predicate: string, args: FactValue[]): Promise<void> {
    await this.send(
      () =>
        this.table.doc.send(
          new DeleteCommand({
            TableName: this.table.tableName,
            Key: { pk: DynamoFactStore.pk(conversationId), sk: DynamoFactStore.sk(predicate, args) },
          }),
        ),
      'delete fact',
    );
  }

  private async send<T>(f: () => Promise<T>, what: string): Promise<T> {
    try {
      return await f();
    } catch (e) {
      if (e instanceof UpstreamError) throw e;
      throw new UpstreamError(`DynamoDB failed to ${what}`, { cause: e });
    }
  }
}
