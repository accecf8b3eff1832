import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, test } from 'vitest';
import { freshTable } from '../../../../test/helpers';
import type { BrowserPushSubscription } from '../../contracts/push';
import { ValidationError } from '../../errors';
import type { PushSubscriptionStore } from '../../ports/push';
import { createDynamoPushSubscriptionStore, pushSubscriptionKey } from './push-subscription-store';

let table: Awaited<ReturnType<typeof freshTable>>;
let clock = new Date('2030-01-01T10:00:00.000Z');
let store: PushSubscriptionStore;

const device = (name: string, extra: Partial<BrowserPushSubscription> = {}): BrowserPushSubscription => ({
  endpoint: `https://push.example/send/${name}`,
  expirationTime: null,
  keys: { p256dh: `B${name.padEnd(86, 'x').slice(0, 86)}`, auth: 'a'.repeat(22) },
  ...extra,
});

beforeAll(async () => {
  table = await freshTable('pushsub');
  store = createDynamoPushSubscriptionStore({ doc: table.doc, tableName: table.tableName, now: () => clock });
});

describe('DynamoDB push subscription store', () => {
  test('put stores under PUSHSUB / sha256(endpoint); re-subscribing the same endpoint updates it', async () => {
    const first = await store.put({
      subscription: device('phone1'),
      userId: 'alex',
      userAgent: 'Safari iOS',
    });
    expect(first).toMatchObject({ userId: 'alex', userAgent: 'Safari iOS', createdAt: clock.toISOString() });

    const raw = await table.doc.send(
      new GetCommand({
        TableName: table.tableName,
        Key: { pk: 'PUSHSUB', sk: pushSubscriptionKey(device('phone1').endpoint) },
      }),
    );
    expect(raw.Item?.userId).toBe('alex');

    const created = clock.toISOString();
    clock = new Date('2030-01-02T10:00:00.000Z');
    const again = await store.put({
      subscription: { ...device('phone1'), keys: { p256dh: `B${'y'.repeat(86)}`, auth: 'b'.repeat(22) } },
      userId: 'alex',
      userAgent: 'Safari iOS 18',
    });
    expect(again).toMatchObject({
      createdAt: created,
      updatedAt: clock.toISOString(),
      userAgent: 'Safari iOS 18',
    });
    expect(again.keys.auth).toBe('b'.repeat(22));
    const mine = await store.listByUser('alex');
    expect(mine.filter((s) => s.endpoint === device('phone1').endpoint)).toHaveLength(1);
  });

  test('lists the team and one member; expired subscriptions are left out', async () => {
    await store.put({ subscription: device('laptop-sam'), userId: 'sam', userAgent: 'Chrome' });
    await store.put({
      subscription: device('old-tablet', { expirationTime: clock.getTime() - 1000 }),
      userId: 'sam',
      userAgent: 'Firefox',
    });
    await store.put({
      subscription: device('later', { expirationTime: clock.getTime() + 86_400_000 }),
      userId: 'jo',
      userAgent: 'Edge',
    });
    const all = await store.listActive();
    const endpoints = all.map((s) => s.endpoint).sort();
    expect(endpoints).toEqual(
      [device('phone1').endpoint, device('laptop-sam').endpoint, device('later').endpoint].sort(),
    );
    expect((await store.listByUser('sam')).map((s) => s.userAgent)).toEqual(['Chrome']);

    // The expiry also feeds DynamoDB's TTL attribute, so the table sweeps the row eventually.
    const raw = await table.doc.send(
      new GetCommand({
        TableName: table.tableName,
        Key: { pk: 'PUSHSUB', sk: pushSubscriptionKey(device('later').endpoint) },
      }),
    );
    expect(raw.Item?.expiresAt).toBe(Math.ceil((clock.getTime() + 86_400_000) / 1000));
  });

  test('delete is idempotent and, with a userId, only removes that member’s device', async () => {
    const endpoint = device('laptop-sam').endpoint;
    expect(await store.delete(endpoint, { userId: 'alex' })).toBe(false);
    expect((await store.listByUser('sam')).length).toBe(1);
    expect(await store.delete(endpoint, { userId: 'sam' })).toBe(true);
    expect(await store.delete(endpoint)).toBe(false);
    expect(await store.listByUser('sam')).toEqual([]);
  });

  test('invalid subscriptions are refused with a ValidationError', async () => {
    await expect(
      store.put({
        subscription: { ...device('x'), endpoint: 'http://169.254.169.254/latest' },
        userId: 'alex',
      }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(
      store.put({
        subscription: { ...device('x'), keys: { p256dh: 'short', auth: 'a'.repeat(22) } },
        userId: 'alex',
      }),
    ).rejects.toBeInstanceOf(ValidationError);
  });
});
