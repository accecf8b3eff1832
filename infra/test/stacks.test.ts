import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../lib/app';

/**
 * The synthesized CloudFormation, checked with aws-cdk-lib/assertions, and cdk-nag's AwsSolutions pack with
 * zero unacknowledged findings (each acknowledgement carries its reason in infra/lib/nag-acknowledgements.ts).
 * Synthesis bundles every function with the local esbuild (no Docker), as `npx cdk synth` does.
 */
let stateful: Template;
let stateless: Template;
let built: ReturnType<typeof buildApp>;

beforeAll(() => {
  built = buildApp({ settings: { TEAM_TIMEZONE: 'America/New_York' } });
  built.app.synth();
  stateful = Template.fromStack(built.stateful);
  stateless = Template.fromStack(built.stateless);
}, 240_000);

describe('stateful stack', () => {
  test('one on-demand table with TTL, PITR and the GSI', () => {
    stateful.resourceCountIs('AWS::DynamoDB::Table', 1);
    stateful.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      GlobalSecondaryIndexes: [Match.objectLike({ IndexName: 'gsi1' })],
    });
  });

  test('the events queue dead-letters after 5 receives and its visibility is 6× the worker timeout', () => {
    stateful.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 720,
      RedrivePolicy: { maxReceiveCount: 5, deadLetterTargetArn: Match.anyValue() },
    });
  });

  test('the data stays when the stack is deleted', () => {
    stateful.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain' });
    stateful.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'Retain' });
  });
});

describe('stateless stack', () => {
  test('every function runs Node 22 on arm64 with an explicit log retention', () => {
    const fns = stateless.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: { STAGE: 'aws' } } },
    });
    expect(Object.keys(fns).length).toBe(6);
    for (const f of Object.values(fns)) {
      expect(f.Properties.Runtime).toBe('nodejs22.x');
      expect(f.Properties.Architectures).toEqual(['arm64']);
      expect(f.Properties.LoggingConfig?.LogGroup).toBeDefined();
    }
    stateless.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  test('/api/chat is served by a response-streaming function URL behind CloudFront', () => {
    stateless.hasResourceProperties('AWS::Lambda::Url', { InvokeMode: 'RESPONSE_STREAM' });
    stateless.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        CacheBehaviors: Match.arrayWith([Match.objectLike({ PathPattern: '/api/chat' })]),
      }),
    });
  });

  test('the worker consumes the queue with partial batch failures', () => {
    stateless.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  test('HTTP routes for the API, health and both webhooks', () => {
    for (const key of [
      'GET /health',
      'ANY /api/{proxy+}',
      'POST /webhooks/openphone',
      'POST /webhooks/twilio/status',
    ]) {
      stateless.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: key });
    }
  });

  test('email polls on schedules: general every 15 minutes, leads every 5', () => {
    stateless.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(15 minutes)' });
    stateless.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(5 minutes)' });
  });

  test('alarms on the DLQ and on function errors; the PWA behind CloudFront', () => {
    stateless.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(Object.keys(stateless.findResources('AWS::CloudWatch::Alarm')).length).toBeGreaterThanOrEqual(6);
    stateless.resourceCountIs('AWS::CloudFront::Distribution', 1);
  });

  test('timers: a schedule group, a role Scheduler assumes to send to the queue, the worker may create/delete schedules', () => {
    stateless.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    stateless.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([
          Match.objectLike({ Principal: { Service: 'scheduler.amazonaws.com' }, Action: 'sts:AssumeRole' }),
        ]),
      }),
    });
    const policies = JSON.stringify(stateless.findResources('AWS::IAM::Policy'));
    expect(policies).toContain('scheduler:CreateSchedule');
    expect(policies).toContain('iam:PassRole');
    const worker = Object.values(
      stateless.findResources('AWS::Lambda::Function', {
        Properties: { Environment: { Variables: { EVENTS_MAX_RECEIVE_COUNT: '5' } } },
      }),
    );
    expect(worker.length).toBeGreaterThanOrEqual(1);
    expect(Object.keys(worker[0]?.Properties.Environment.Variables)).toEqual(
      expect.arrayContaining(['SCHEDULE_GROUP_NAME', 'SCHEDULER_ROLE_ARN', 'EVENTS_QUEUE_ARN']),
    );
  });

  test('no secret value is in the template: functions get only the secret ARN', () => {
    const json = JSON.stringify(stateless.toJSON());
    expect(json).toContain('SECRETS_ARN');
    expect(json).not.toMatch(/ANTHROPIC_API_KEY|VAPID_PRIVATE_KEY|TWILIO_AUTH_TOKEN/);
  });
});

test('cdk-nag AwsSolutions: no unacknowledged findings', () => {
  for (const stack of [built.stateful, built.stateless]) {
    const errors = Annotations.fromStack(stack).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'));
    expect(errors.map((e) => `${e.id}: ${String(e.entry.data).slice(0, 160)}`)).toEqual([]);
  }
});
