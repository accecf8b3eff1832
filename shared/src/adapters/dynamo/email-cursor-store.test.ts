import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { freshTable } from '../../../../test/helpers';
import type { EmailCursorStore } from '../../ports/email-cursor-store';
import { dynamoEmailCursorStore } from './email-cursor-store';

let store: EmailCursorStore;
let table: Awaited<ReturnType<typeof freshTable>>;

beforeAll(async () => {
  table = await freshTable('cursor');
  store = dynamoEmailCursorStore({ doc: table.doc, tableName: table.tableName });
});

const state = (internalDate: number, seen: Record<string, number> = {}) => ({
  internalDate,
  seen,
  inflight: [],
});

describe('DynamoDB email cursor store', () => {
  it('has no cursor until the first write, which must expect version 0', async () => {
    await expect(store.get('fresh')).resolves.toBeUndefined();
    await expect(store.compareAndSet('fresh', 3, state(1))).resolves.toBe(false);
    await expect(store.compareAndSet('fresh', 0, state(1))).resolves.toBe(true);
    await expect(store.compareAndSet('fresh', 0, state(2))).resolves.toBe(false);
    await expect(store.get('fresh')).resolves.toMatchObject({ version: 1, internalDate: 1 });
  });

  it('round-trips seen ids and in-flight claims', async () => {
    const next = {
      internalDate: 1_700_000_000_123,
      seen: { '18f0a00000000001': 1_700_000_000_000, '18f0a00000000002': 1_700_000_000_123 },
      inflight: [{ id: '18f0a00000000002', internalDate: 1_700_000_000_123, claimedAt: 1_700_000_100_000 }],
    };
    await store.compareAndSet('roundtrip', 0, next);
    await expect(store.get('roundtrip')).resolves.toEqual({ ...next, version: 1 });
  });

  it('lets exactly one of several writers from the same version win', async () => {
    await store.compareAndSet('race', 0, state(0));
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => store.compareAndSet('race', 1, state(i + 1, { [`m${i}`]: i }))),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    const after = await store.get('race');
    expect(after?.version).toBe(2);
    expect(Object.keys(after?.seen ?? {})).toHaveLength(1);
  });

  it('refuses to guess when the stored cursor is corrupt', async () => {
    await table.doc.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { pk: 'CURSOR#broken', sk: 'CURSOR', version: 'x' },
      }),
    );
    await expect(store.get('broken')).rejects.toMatchObject({ code: 'cursor_corrupt' });
  });
});
