import { Aws, Stack, Token, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * One-time timers (card expiry, re-notification): a schedule group, the role EventBridge Scheduler assumes
 * to put a timer's event on the events queue, and the right for the given functions to create and delete
 * schedules in that group only (and to pass that role, which CreateSchedule requires).
 */
export function addTimers(
  scope: Construct,
  props: { queue: Queue; maxReceiveCount: number; functions: IFunction[] },
) {
  const group = new CfnScheduleGroup(scope, 'TimersGroup', {});
  const role = new Role(scope, 'SchedulerRole', {
    description: 'EventBridge Scheduler sends timer events to the Switchboard events queue',
    assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
    }),
  });
  props.queue.grantSendMessages(role);
  const schedules = Stack.of(scope).formatArn({
    service: 'scheduler',
    resource: 'schedule',
    resourceName: `${group.ref}/*`,
  });
  for (const fn of props.functions) {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule', 'scheduler:GetSchedule'],
        resources: [schedules],
      }),
    );
    role.grantPassRole(fn.grantPrincipal);
  }
  // The ARN renders with the literal region/account when the stack's env is known at synth (a prod deploy).
  const stack = Stack.of(scope);
  const [region, account] = Token.isUnresolved(stack.region)
    ? ['<AWS::Region>', '<AWS::AccountId>']
    : [stack.region, stack.account];
  Validations.of(stack).acknowledge({
    id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:${region}:${account}:schedule/<TimersGroup>/*]`,
    reason:
      'Timers are one-time schedules named per card at run time; the grant covers only schedules in our own group.',
  });
  return {
    group,
    role,
    environment: {
      SCHEDULE_GROUP_NAME: group.ref,
      SCHEDULER_ROLE_ARN: role.roleArn,
      EVENTS_QUEUE_ARN: props.queue.queueArn,
      EVENTS_MAX_RECEIVE_COUNT: String(props.maxReceiveCount),
    },
  };
}
