import {
  ConflictException,
  CreateScheduleCommand,
  CreateScheduleGroupCommand,
  GetScheduleCommand,
  ResourceNotFoundException,
  type SchedulerClient,
  ValidationException,
} from '@aws-sdk/client-scheduler';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eventBridgeTimers, makeSchedulerClient } from '../../shared/src/adapters/eventbridge-scheduler';
import type { EventEnvelope } from '../../shared/src/contracts/events';
import { type SchedulerEmulator, startSchedulerEmulator } from './scheduler';

const QUEUE_ARN = 'arn:aws:sqs:us-east-1:000000000000:events';
const ROLE_ARN = 'arn:aws:iam::000000000000:role/scheduler-to-queue';
const T0 = new Date('2026-11-23T12:00:00Z');

let emu: SchedulerEmulator;
let client: SchedulerClient;
const delivered: Array<{ arn: string; input: string }> = [];

const ping = (id: string): EventEnvelope => ({
  id,
  type: 'system.ping',
  correlationId: id,
  key: `timer:${id}`,
  occurredAt: T0.toISOString(),
  payload: { note: 'héllo ⏰' },
});

beforeAll(async () => {
  emu = await startSchedulerEmulator({
    now: () => T0,
    tickMs: 0,
    deliver: async (arn, input) => {
      delivered.push({ arn, input });
    },
  });
  client = makeSchedulerClient({ region: 'us-east-1', endpoint: emu.url });
  await client.send(new CreateScheduleGroupCommand({ Name: 'timers' }));
});
afterAll(async () => {
  client.destroy();
  await emu.stop();
});

const timers = () =>
  eventBridgeTimers(client, { groupName: 'timers', queueArn: QUEUE_ARN, roleArn: ROLE_ARN, clock: emu.now });

describe('EventBridge Scheduler emulator through @aws-sdk/client-scheduler', () => {
  test('a one-time schedule fires once when the clock passes it, delivers the envelope, then deletes itself', async () => {
    await timers().scheduleAt('expire-a', new Date(T0.getTime() + 10 * 60_000), ping('ev-a'));
    const got = await client.send(new GetScheduleCommand({ Name: 'expire-a', GroupName: 'timers' }));
    expect(got.ScheduleExpression).toBe('at(2026-11-23T12:10:00)');
    expect(got.ActionAfterCompletion).toBe('DELETE');
    expect(got.Target?.Arn).toBe(QUEUE_ARN);
    expect(got.CreationDate).toBeInstanceOf(Date);

    expect(await emu.advance(9 * 60_000)).toBe(0);
    expect(await emu.advance(60_000)).toBe(1);
    const body = JSON.parse(delivered.at(-1)?.input ?? '{}');
    expect(body).toMatchObject({ id: 'ev-a', payload: { note: 'héllo ⏰' } });
    expect(delivered.at(-1)?.input).not.toMatch(/[^\x20-\x7e]/);
    await expect(
      client.send(new GetScheduleCommand({ Name: 'expire-a', GroupName: 'timers' })),
    ).rejects.toBeInstanceOf(ResourceNotFoundException);
    expect(await emu.advance(60 * 60_000)).toBe(0);
  });

  test('creating the same name twice: the SDK gets ConflictException, the port keeps the first', async () => {
    const t = timers();
    const at = new Date(emu.now().getTime() + 5 * 60_000);
    await t.scheduleAt('dup', at, ping('ev-1'));
    await t.scheduleAt('dup', at, ping('ev-2'));
    await expect(
      client.send(
        new CreateScheduleCommand({
          Name: 'dup',
          GroupName: 'timers',
          ScheduleExpression: 'at(2030-01-01T00:00:00)',
          FlexibleTimeWindow: { Mode: 'OFF' },
          Target: { Arn: QUEUE_ARN, RoleArn: ROLE_ARN },
        }),
      ),
    ).rejects.toBeInstanceOf(ConflictException);
    const before = delivered.length;
    await emu.advance(5 * 60_000);
    expect(delivered.slice(before).map((d) => JSON.parse(d.input).id)).toEqual(['ev-1']);
  });

  test('cancel deletes a waiting schedule; cancelling one that is gone is fine', async () => {
    const t = timers();
    await t.scheduleAt('renotify-x', new Date(emu.now().getTime() + 60 * 60_000), ping('ev-x'));
    await t.cancel('renotify-x');
    await t.cancel('renotify-x');
    const before = delivered.length;
    await emu.advance(2 * 60 * 60_000);
    expect(delivered.length).toBe(before);
  });

  test('a time closer than a minute is moved to a minute ahead (the service fires with 60 s precision)', async () => {
    await timers().scheduleAt('soon', new Date(emu.now().getTime() - 5_000), ping('ev-soon'));
    expect(await emu.advance(30_000)).toBe(0);
    expect(await emu.advance(30_000)).toBe(1);
  });

  const bad = (over: Record<string, unknown>) =>
    client.send(
      new CreateScheduleCommand({
        Name: 'ok-name',
        GroupName: 'timers',
        ScheduleExpression: 'at(2030-01-01T00:00:00)',
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: { Arn: QUEUE_ARN, RoleArn: ROLE_ARN },
        ...over,
      } as never),
    );

  test.each([
    ['a name with a space', { Name: 'bad name' }],
    ['a name over 64 characters', { Name: 'x'.repeat(65) }],
    ['a date that does not exist', { ScheduleExpression: 'at(2030-02-30T00:00:00)' }],
    ['an at() without seconds', { ScheduleExpression: 'at(2030-01-01T00:00)' }],
    ['an ISO instant with a zone', { ScheduleExpression: 'at(2030-01-01T00:00:00Z)' }],
    ['an unknown time zone', { ScheduleExpressionTimezone: 'Mars/Olympus' }],
    ['a role that is not an IAM role ARN', { Target: { Arn: QUEUE_ARN, RoleArn: 'scheduler-role' } }],
    ['an empty Input', { Target: { Arn: QUEUE_ARN, RoleArn: ROLE_ARN, Input: '' } }],
    ['a flexible window without its maximum', { FlexibleTimeWindow: { Mode: 'FLEXIBLE' } }],
    ['an unknown ActionAfterCompletion', { ActionAfterCompletion: 'ARCHIVE' }],
  ])('refuses %s with ValidationException', async (_what, over) => {
    await expect(bad(over)).rejects.toBeInstanceOf(ValidationException);
  });

  test('a schedule in a group that does not exist is ResourceNotFoundException', async () => {
    await expect(bad({ GroupName: 'nope' })).rejects.toBeInstanceOf(ResourceNotFoundException);
  });
});
