import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, test } from 'vitest';
import { COST_METRICS, COUNT_METRICS, DURATION_METRICS, GAUGE_METRICS } from '../../shared/src/ports/metrics';
import { buildApp } from '../lib/app';
import { parseDeployment } from '../lib/deployment';

/**
 * Issue 15's observability on the synthesized template: every alarm acts on one SNS topic (with the
 * deployment's e-mail subscribed), the functions get the EMF namespace, and the dashboard reads exactly the
 * metric names the code writes (shared/src/ports/metrics.ts).
 */
let t: Template;
let built: ReturnType<typeof buildApp>;
beforeAll(() => {
  built = buildApp({
    deployment: parseDeployment({ STAGE: 'staging', ALARM_EMAIL: 'ops@oakproperties.example' }),
    bundle: false,
  });
  built.app.synth();
  t = Template.fromStack(built.stateless);
}, 120_000);

describe('alarms notify someone', () => {
  test('one alarm topic (TLS only) with the configured e-mail subscribed', () => {
    t.resourceCountIs('AWS::SNS::Topic', 1);
    t.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@oakproperties.example',
    });
    t.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      }),
    });
  });

  test('every alarm has the topic as its alarm and OK action', () => {
    const topicRef = { Ref: Object.keys(t.findResources('AWS::SNS::Topic'))[0] };
    const alarms = Object.values(t.findResources('AWS::CloudWatch::Alarm'));
    // DLQ, one per function, failing runs, queue backlog.
    expect(alarms.length).toBe(Object.keys(built.stateless.functions).length + 3);
    for (const a of alarms) {
      expect(a.Properties.AlarmActions).toEqual([topicRef]);
      expect(a.Properties.OKActions).toEqual([topicRef]);
    }
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'Switchboard/staging',
      MetricName: 'RunsFailed',
      Dimensions: [{ Name: 'service', Value: 'switchboard' }],
    });
  });

  test('no e-mail configured → the topic still exists (alarms still act) and still pushes to admins', () => {
    const dev = buildApp({ deployment: parseDeployment({}), bundle: false });
    const d = Template.fromStack(dev.stateless);
    d.resourceCountIs('AWS::SNS::Topic', 1);
    expect(
      Object.keys(d.findResources('AWS::SNS::Subscription', { Properties: { Protocol: 'email' } })),
    ).toEqual([]);
    d.resourceCountIs('AWS::SNS::Subscription', 1);
  });

  test('the admins get a push: the alarm-push function is subscribed to the topic, and SNS may invoke it', () => {
    const topicRef = { Ref: Object.keys(t.findResources('AWS::SNS::Topic'))[0] };
    const fnId = Object.keys(t.findResources('AWS::Lambda::Function')).find((id) =>
      id.startsWith('AlarmPushFn'),
    );
    expect(fnId).toBeDefined();
    t.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'lambda',
      TopicArn: topicRef,
      Endpoint: { 'Fn::GetAtt': [fnId, 'Arn'] },
    });
    t.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'sns.amazonaws.com',
      SourceArn: topicRef,
      FunctionName: { 'Fn::GetAtt': [fnId, 'Arn'] },
    });
  });

  test('alarms have readable names (the title of the e-mail and of the push)', () => {
    t.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmName: 'Switchboard-staging-DlqNotEmpty' });
    t.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmName: 'Switchboard-staging-Errors-worker' });
  });
});

describe('metrics and dashboard', () => {
  test('every function writes EMF into the stage namespace', () => {
    const fns = Object.values(t.findResources('AWS::Lambda::Function')).filter(
      (f) => f.Properties.Environment?.Variables?.TABLE_NAME,
    );
    expect(fns.length).toBe(Object.keys(built.stateless.functions).length);
    for (const f of fns)
      expect(f.Properties.Environment.Variables.METRICS_NAMESPACE).toBe('Switchboard/staging');
  });

  test('the dashboard charts the metrics the code writes, and nothing it does not', () => {
    const dashboards = Object.values(t.findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0]?.Properties.DashboardBody);
    const named = new Set(
      [...body.matchAll(/\\"Switchboard\/staging\\",\\"([A-Za-z]+)\\"/g)].map((m) => m[1]),
    );
    const written = new Set<string>([
      ...COUNT_METRICS,
      ...DURATION_METRICS,
      ...COST_METRICS,
      ...GAUGE_METRICS,
    ]);
    expect([...named].filter((n) => !written.has(n as string))).toEqual([]);
    for (const n of [
      'EventsProcessed',
      'EventsDeadLettered',
      'CardsCreated',
      'CardsApproved',
      'RunsFailed',
      'RunDuration',
      'ModelLatency',
      'ModelInputTokens',
      'RunCostMicroUsd',
      'PendingApprovals',
      'PushFailures',
      'EventsReceived',
    ])
      expect(named).toContain(n);
    expect(body).toContain('AWS/Lambda');
    expect(body).toContain('AWS/SQS');
  });

  test('cdk-nag: the topic and dashboard add no unacknowledged finding', () => {
    for (const stack of [built.stateful, built.stateless]) {
      const errors = Annotations.fromStack(stack).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'));
      expect(errors.map((e) => e.entry.data)).toEqual([]);
    }
  });
});
