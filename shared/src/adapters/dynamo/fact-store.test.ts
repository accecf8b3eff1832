import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, test } from 'vitest';
import { freshTable } from '../../../../test/helpers';
import { loadDefaultRulebase } from '../../domain/policy/defaults';
import { createPolicyGuard } from '../../domain/policy/guard';
import type { StoredFact } from '../../ports/fact-store';
import { DynamoFactStore } from './fact-store';

let table: Awaited<ReturnType<typeof freshTable>>;
let store: DynamoFactStore;
beforeAll(async () => {
  table = await freshTable('facts');
  store = new DynamoFactStore(table);
});

const NOW = new Date('2025-01-15T15:00:00Z');
const sec = (d: Date) => Math.floor(d.getTime() / 1000);
const fact = (predicate: string, args: Array<string | number>, expiresAt?: number): StoredFact => ({
  predicate,
  args,
  establishedAt: sec(NOW),
  provenance: { kind: 'tool', detail: 'search_contacts(query: "+14155550111")' },
  ...(expiresAt === undefined ? {} : { expiresAt }),
});

describe('DynamoFactStore (DynamoDB Local)', () => {
  test('round-trips facts with their provenance, keyed by predicate and a stable hash of the arguments', async () => {
    const f = fact('contact', ['+14155550111', 'ct_maria', 'false'], sec(NOW) + 300);
    await store.put('conv-a', [f, fact('credit_score', ['ct_lead', 640])]);
    const listed = await store.list('conv-a', { now: NOW });
    expect(listed).toHaveLength(2);
    expect(listed).toContainEqual(f);
    expect(listed).toContainEqual(fact('credit_score', ['ct_lead', 640]));
    // Numbers stay numbers, strings stay strings.
    expect(listed.find((x) => x.predicate === 'credit_score')?.args).toEqual(['ct_lead', 640]);

    const raw = await table.doc.send(
      new GetCommand({
        TableName: table.tableName,
        Key: { pk: 'FACTS#conv-a', sk: DynamoFactStore.sk('contact', ['+14155550111', 'ct_maria', 'false']) },
      }),
    );
    expect(raw.Item?.expiresAt).toBe(sec(NOW) + 300);
    expect(String(raw.Item?.sk)).toMatch(/^FACT#contact#[A-Za-z0-9_-]{22}$/);
    expect(DynamoFactStore.sk('p', [1])).not.toBe(DynamoFactStore.sk('p', ['1']));
  });

  test('reads skip expired items although DynamoDB has not deleted them yet', async () => {
    await store.put('conv-b', [fact('contact', ['a'], sec(NOW) + 60), fact('contact', ['b'], sec(NOW) - 1)]);
    expect((await store.list('conv-b', { now: NOW })).map((f) => f.args)).toEqual([['a']]);
    const later = new Date(NOW.getTime() + 61_000);
    expect(await store.list('conv-b', { now: later })).toEqual([]);
  });

  test('put overwrites the same fact; predicate filter does not leak prefixes; delete removes one fact', async () => {
    await store.put('conv-c', [fact('contact', ['a'], sec(NOW) + 60)]);
    await store.put('conv-c', [fact('contact', ['a'], sec(NOW) + 600), fact('contact_type', ['a', 'x'])]);
    const contacts = await store.list('conv-c', { now: NOW, predicate: 'contact' });
    expect(contacts).toEqual([fact('contact', ['a'], sec(NOW) + 600)]);
    await store.delete('conv-c', 'contact', ['a']);
    expect((await store.list('conv-c', { now: NOW })).map((f) => f.predicate)).toEqual(['contact_type']);
  });

  test('pages through many facts and keeps conversations apart', async () => {
    const many = Array.from({ length: 600 }, (_, i) => fact('seen', [`m${i}`, 'x'.repeat(2000)]));
    await store.put('conv-d', many);
    expect(await store.list('conv-d', { now: NOW })).toHaveLength(600); // over 1 MB: more than one Query page
    expect(await store.list('conv-e', { now: NOW })).toEqual([]);
  });

  test('a malformed item is an error, not a silently wrong fact', async () => {
    await table.doc.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { pk: 'FACTS#conv-f', sk: 'FACT#x#1', predicate: 'x' },
      }),
    );
    await expect(store.list('conv-f', { now: NOW })).rejects.toThrow(/Malformed fact item/);
  });

  test('the policy engine on DynamoDB: an expired contact is refetched through the tool', async () => {
    const calls: string[] = [];
    const policy = createPolicyGuard({
      rulebase: loadDefaultRulebase(),
      facts: store,
      conversationId: 'conv-g',
    });
    const env = (d: Date) => ({
      now: d,
      timezone: 'America/New_York',
      async callReadTool(name: string) {
        calls.push(name);
        return { contacts: [{ id: 'ct_maria', phones: ['+14155550111'], internal: false }] };
      },
    });
    const call = {
      tool: 'send_message',
      kind: 'write' as const,
      args: { to: '+14155550111', body: 'Hi' },
      origin: 'model' as const,
      conversationId: 'conv-g',
    };
    expect((await policy.check(call, env(NOW))).decision).toBe('require_approval');
    expect((await policy.check(call, env(new Date(NOW.getTime() + 60_000)))).decision).toBe(
      'require_approval',
    );
    expect(calls).toEqual(['search_contacts']);
    expect((await policy.check(call, env(new Date(NOW.getTime() + 301_000)))).decision).toBe(
      'require_approval',
    );
    expect(calls).toEqual(['search_contacts', 'search_contacts']);
  });
});
