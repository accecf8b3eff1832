import { createHash } from 'node:crypto';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  type NewPushSubscription,
  newPushSubscription,
  type StoredPushSubscription,
  storedPushSubscription,
} from '../../contracts/push';
import { AppError, describeZodIssues, UpstreamError, ValidationError } from '../../errors';
import type { PushSubscriptionStore } from '../../ports/push';

const PK = 'PUSHSUB';

/** The sort key: the endpoint is long and a capability URL, so the key is its hash, not the URL itself. */
export function pushSubscriptionKey(endpoint: string): string {
  return createHash('sha256').update(endpoint).digest('hex');
}

export interface DynamoPushSubscriptionStoreOptions {
  doc: DynamoDBDocumentClient;
  tableName: string;
  now?: () => Date;
}

/**
 * Push subscriptions in the single table: pk `PUSHSUB`, sk sha256(endpoint). The team is a handful of
 * people with a few devices each, so the whole set lives in one partition and "everyone" is one strongly
 * consistent Query — a device that just subscribed receives the very next notification. Per-user lists
 * filter that same Query rather than paying for a GSI that would only be eventually consistent.
 * A browser-supplied `expirationTime` also becomes `expiresAt`, so DynamoDB's TTL sweeps stale devices.
 */
export function createDynamoPushSubscriptionStore(
  opts: DynamoPushSubscriptionStoreOptions,
): PushSubscriptionStore {
  const { doc, tableName } = opts;
  const now = opts.now ?? (() => new Date());

  async function query(extra: Partial<QueryCommandInput> = {}): Promise<StoredPushSubscription[]> {
    const out: StoredPushSubscription[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await dynamo('list push subscriptions', () =>
        doc.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': PK, ...extra.ExpressionAttributeValues },
            ConsistentRead: true,
            ...(startKey ? { ExclusiveStartKey: startKey } : {}),
            ...(extra.FilterExpression
              ? {
                  FilterExpression: extra.FilterExpression,
                  ExpressionAttributeNames: extra.ExpressionAttributeNames,
                }
              : {}),
          }),
        ),
      );
      for (const item of page.Items ?? []) out.push(fromItem(item));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    const nowMs = now().getTime();
    // DynamoDB's TTL deletes lazily (up to days later), so expiry is checked on every read.
    return out.filter((s) => s.expirationTime == null || s.expirationTime > nowMs);
  }

  return {
    async put(input: NewPushSubscription) {
      const parsed = newPushSubscription.safeParse(input);
      if (!parsed.success) {
        throw new ValidationError(`Invalid push subscription: ${describeZodIssues(parsed.error.issues)}`);
      }
      const { subscription, userId, userAgent, admin, email, name } = parsed.data;
      const at = now().toISOString();
      const expirationTime = subscription.expirationTime ?? null;
      const names: Record<string, string> = {
        '#endpoint': 'endpoint',
        '#keys': 'keys',
        '#userId': 'userId',
        '#userAgent': 'userAgent',
        '#admin': 'admin',
        '#updatedAt': 'updatedAt',
        '#createdAt': 'createdAt',
        '#expirationTime': 'expirationTime',
        '#expiresAt': 'expiresAt',
      };
      const values: Record<string, unknown> = {
        ':endpoint': subscription.endpoint,
        ':keys': { p256dh: subscription.keys.p256dh, auth: subscription.keys.auth },
        ':userId': userId,
        ':userAgent': userAgent,
        ':admin': admin,
        ':now': at,
        ':expirationTime': expirationTime,
      };
      let update =
        'SET #endpoint = :endpoint, #keys = :keys, #userId = :userId, #userAgent = :userAgent, #admin = :admin, ' +
        '#updatedAt = :now, #createdAt = if_not_exists(#createdAt, :now), #expirationTime = :expirationTime';
      // Who owns the device, for a notification's Approve / Deny (cards #18); kept when not given.
      if (email) {
        names['#email'] = 'email';
        values[':email'] = email;
        update += ', #email = :email';
      }
      if (name) {
        names['#name'] = 'name';
        values[':name'] = name;
        update += ', #name = :name';
      }
      if (expirationTime === null) {
        update += ' REMOVE #expiresAt';
      } else {
        update += ', #expiresAt = :expiresAt';
        values[':expiresAt'] = Math.ceil(expirationTime / 1000);
      }
      const result = await dynamo('save push subscription', () =>
        doc.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: PK, sk: pushSubscriptionKey(subscription.endpoint) },
            UpdateExpression: update,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
          }),
        ),
      );
      return fromItem(result.Attributes ?? {});
    },

    async delete(endpoint, deleteOpts = {}) {
      try {
        const result = await doc.send(
          new DeleteCommand({
            TableName: tableName,
            Key: { pk: PK, sk: pushSubscriptionKey(endpoint) },
            ReturnValues: 'ALL_OLD',
            ...(deleteOpts.userId === undefined
              ? {}
              : {
                  ConditionExpression: 'attribute_not_exists(pk) OR #userId = :userId',
                  ExpressionAttributeNames: { '#userId': 'userId' },
                  ExpressionAttributeValues: { ':userId': deleteOpts.userId },
                }),
          }),
        );
        return result.Attributes !== undefined;
      } catch (e) {
        // Owned by someone else: nothing of the caller's to remove.
        if (isConditionFailed(e)) return false;
        throw new UpstreamError('Could not remove push subscription', { cause: e });
      }
    },

    listActive() {
      return query();
    },

    listByUser(userId: string) {
      return query({
        FilterExpression: '#userId = :userId',
        ExpressionAttributeNames: { '#userId': 'userId' },
        ExpressionAttributeValues: { ':userId': userId },
      });
    },
  };
}

function fromItem(item: Record<string, unknown>): StoredPushSubscription {
  const { pk: _pk, sk: _sk, expiresAt: _expiresAt, ...rest } = item;
  const parsed = storedPushSubscription.safeParse(rest);
  if (!parsed.success) {
    // Only this adapter writes these items; a bad one is a bug or a manual edit, not a retryable blip.
    throw new AppError(`Stored push subscription is malformed: ${describeZodIssues(parsed.error.issues)}`, {
      code: 'storage_corrupt',
      status: 500,
    });
  }
  return parsed.data;
}

async function dynamo<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    throw new UpstreamError(`Could not ${what}`, { cause: e });
  }
}

function isConditionFailed(e: unknown): boolean {
  return (
    typeof e === 'object' &&
    e !== null &&
    (e as { name?: unknown }).name === 'ConditionalCheckFailedException'
  );
}
