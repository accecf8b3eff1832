import { beforeAll, describe, expect, test } from 'vitest';
import { freshTable } from '../../../../test/helpers';
import { pageLimits } from '../../domain/page-limits';
import { dynamoPageBudgetStore } from './page-budget-store';

let table: Awaited<ReturnType<typeof freshTable>>;
beforeAll(async () => {
  table = await freshTable('pagebudget');
});

const settings = { perHour: 6, perSenderPerHour: 2, unknownWindowMinutes: 30 };
const T0 = new Date('2026-11-24T03:00:00Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

describe('paging budget on DynamoDB Local', () => {
  test('concurrent pages from rotating unknown numbers: exactly the team budget goes out', async () => {
    const store = dynamoPageBudgetStore({ doc: table.doc, tableName: table.tableName });
    const numbers = Array.from({ length: 15 }, (_, i) => `+1415555${String(2000 + i)}`);
    const verdicts = await Promise.all(
      numbers.map((phone) => store.tryTake(pageLimits(settings, { phone, known: false }), T0)),
    );
    expect(verdicts.filter((v) => v.ok)).toHaveLength(6);
    for (const v of verdicts.filter((x) => !x.ok))
      expect(v).toMatchObject({ ok: false, blockedBy: { key: 'team' } });
    // The window slides: an hour after the first pages there is room again, not before.
    expect(
      (await store.tryTake(pageLimits(settings, { phone: '+14155553000', known: false }), at(59))).ok,
    ).toBe(false);
    expect(
      (await store.tryTake(pageLimits(settings, { phone: '+14155553000', known: false }), at(61))).ok,
    ).toBe(true);
  });

  test('an unknown number pages once per 30 minutes; a known sender twice an hour; a refusal counts nowhere', async () => {
    const t2 = await freshTable('pagebudget2');
    const store = dynamoPageBudgetStore({ doc: t2.doc, tableName: t2.tableName });
    const unknown = (m: number) =>
      store.tryTake(pageLimits(settings, { phone: '+14155554000', known: false }), at(m));
    expect((await unknown(0)).ok).toBe(true);
    expect(await unknown(10)).toMatchObject({ ok: false, blockedBy: { key: 'unknown:+14155554000' } });
    expect((await unknown(31)).ok).toBe(true);

    const known = (m: number) =>
      store.tryTake(pageLimits(settings, { phone: '+14155550111', known: true }), at(m));
    expect((await known(0)).ok).toBe(true);
    expect((await known(1)).ok).toBe(true);
    expect(await known(2)).toMatchObject({ ok: false, blockedBy: { key: 'sender:+14155550111' } });
    // 4 pages taken so far (2 unknown + 2 known): the refused ones did not spend the team's budget.
    const other = (m: number, n: number) =>
      store.tryTake(pageLimits(settings, { phone: `+1415555500${n}`, known: false }), at(m));
    expect((await other(3, 1)).ok).toBe(true);
    expect((await other(3, 2)).ok).toBe(true);
    expect(await other(3, 3)).toMatchObject({ ok: false, blockedBy: { key: 'team' } });
  });
});
