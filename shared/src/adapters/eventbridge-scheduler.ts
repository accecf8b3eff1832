import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { UpstreamError } from '../errors';
import type { Timers } from '../ports/timers';
import { asciiJson } from './sqs-event-queue';

/** EventBridge Scheduler fires with 60-second precision; a time closer than this is moved to it. */
const MIN_LEAD_MS = 60_000;

export function makeSchedulerClient(opts: { region: string; endpoint?: string }) {
  return new SchedulerClient({
    region: opts.region,
    ...(opts.endpoint
      ? { endpoint: opts.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
}

/** `at(yyyy-mm-ddThh:mm:ss)`, evaluated in UTC (ScheduleExpressionTimezone). */
export function atExpression(at: Date): string {
  return `at(${at.toISOString().slice(0, 19)})`;
}

export interface EventBridgeTimersOptions {
  groupName: string;
  /** The events queue: the schedule's SQS target; the message body is the event envelope. */
  queueArn: string;
  /** The role EventBridge Scheduler assumes to send to the queue. */
  roleArn: string;
  clock: () => Date;
}

/**
 * One-time schedules on EventBridge Scheduler: `at()` in UTC, flexible window OFF, an SQS target whose
 * Input is the envelope, and ActionAfterCompletion DELETE so fired schedules do not pile up (the account
 * quota counts them). Shapes relied on: test/contracts/vendor/aws-scheduler/.
 */
export function eventBridgeTimers(client: SchedulerClient, opts: EventBridgeTimersOptions): Timers {
  return {
    async scheduleAt(name, at, event) {
      const earliest = opts.clock().getTime() + MIN_LEAD_MS;
      const when = new Date(Math.max(at.getTime(), earliest));
      try {
        await client.send(
          new CreateScheduleCommand({
            Name: name,
            GroupName: opts.groupName,
            ScheduleExpression: atExpression(when),
            ScheduleExpressionTimezone: 'UTC',
            FlexibleTimeWindow: { Mode: 'OFF' },
            ActionAfterCompletion: 'DELETE',
            Description: `${event.type} ${event.key}`.slice(0, 512),
            Target: { Arn: opts.queueArn, RoleArn: opts.roleArn, Input: asciiJson(event) },
          }),
        );
      } catch (e) {
        // Same name already there: an earlier attempt of this step created it.
        if (e instanceof ConflictException) return;
        throw new UpstreamError(`Could not create schedule ${name}`, { cause: e });
      }
    },
    async cancel(name) {
      try {
        await client.send(new DeleteScheduleCommand({ Name: name, GroupName: opts.groupName }));
      } catch (e) {
        if (e instanceof ResourceNotFoundException) return;
        throw new UpstreamError(`Could not delete schedule ${name}`, { cause: e });
      }
    },
  };
}
