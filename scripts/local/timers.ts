import { CreateScheduleGroupCommand } from '@aws-sdk/client-scheduler';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { makeSchedulerClient } from '../../shared/src/adapters/eventbridge-scheduler';
import { type SchedulerEmulator, startSchedulerEmulator } from '../emulators/scheduler';

export const LOCAL_SCHEDULE_GROUP = 'switchboard-local-timers';
/** A well-formed role ARN: the emulator checks the shape as the service does; nothing assumes it locally. */
export const LOCAL_SCHEDULER_ROLE_ARN = 'arn:aws:iam::000000000000:role/switchboard-local-scheduler';

/**
 * The local EventBridge Scheduler: the emulator delivers a fired schedule to the events queue with
 * SendMessage (what the service's SQS target does), and the schedule group is created through the real
 * SDK as the CDK app creates it on AWS.
 */
export async function startLocalTimers(opts: {
  sqs: SQSClient;
  queues: { queueUrl: string; queueArn: string };
  now?: () => Date;
  tickMs?: number;
}): Promise<{ emulator: SchedulerEmulator; env: Record<string, string> }> {
  const emulator = await startSchedulerEmulator({
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.tickMs !== undefined ? { tickMs: opts.tickMs } : {}),
    deliver: async (arn, input) => {
      if (arn !== opts.queues.queueArn) throw new Error(`No local target ${arn}`);
      await opts.sqs.send(new SendMessageCommand({ QueueUrl: opts.queues.queueUrl, MessageBody: input }));
    },
  });
  const client = makeSchedulerClient({ region: 'us-east-1', endpoint: emulator.url });
  try {
    await client.send(new CreateScheduleGroupCommand({ Name: LOCAL_SCHEDULE_GROUP }));
  } finally {
    client.destroy();
  }
  return {
    emulator,
    env: {
      SCHEDULER_ENDPOINT: emulator.url,
      SCHEDULE_GROUP_NAME: LOCAL_SCHEDULE_GROUP,
      SCHEDULER_ROLE_ARN: LOCAL_SCHEDULER_ROLE_ARN,
      EVENTS_QUEUE_ARN: opts.queues.queueArn,
    },
  };
}
