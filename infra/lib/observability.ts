import { Duration, type Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  Metric,
  SingleValueWidget,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription, LambdaSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { CostMetric, CountMetric, DurationMetric, GaugeMetric } from '../../shared/src/ports/metrics';

/** The EMF namespace the functions write (METRICS_NAMESPACE) and the dashboard reads: one per stage. */
export const metricsNamespace = (stage: string) => `Switchboard/${stage}`;

export interface ObservabilityProps {
  stage: string;
  functions: Record<string, LambdaFunction>;
  queue: Queue;
  dlq: Queue;
  api: HttpApi;
  /** An e-mail address subscribed to the alarm topic (confirmed once by its owner). */
  alarmEmail?: string;
  /** The function that pushes each alarm and recovery to the admins' devices (functions/alarm-push.ts). */
  alarmPush?: LambdaFunction;
}

/**
 * Alarms that reach someone, and one dashboard with the few numbers that say whether the system works:
 * events in and out, cards made and decided, runs and their failures, model latency, push failures, and
 * the AWS-side health of the functions, queue and API. Every alarm's action (and OK action) is the
 * alarm topic; an e-mail subscription is added when the deployment names ALARM_EMAIL.
 */
export function addObservability(stack: Stack, props: ObservabilityProps) {
  const topic = new Topic(stack, 'AlarmTopic', {
    displayName: `Switchboard ${props.stage} alarms`,
    enforceSSL: true,
  });
  if (props.alarmEmail) topic.addSubscription(new EmailSubscription(props.alarmEmail));
  if (props.alarmPush) topic.addSubscription(new LambdaSubscription(props.alarmPush));
  const ns = metricsNamespace(props.stage);
  // Readable names: the alarm's name is the title of its e-mail and of the admins' push.
  const alarmName = (id: string) => `Switchboard-${props.stage}-${id}`;
  const app = (name: AppMetricName, statistic = 'Sum') =>
    new Metric({
      namespace: ns,
      metricName: name,
      dimensionsMap: { service: 'switchboard' },
      statistic,
      period: Duration.minutes(5),
    });

  const alarms = [
    new Alarm(stack, 'DlqNotEmpty', {
      alarmName: alarmName('DlqNotEmpty'),
      metric: props.dlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: 'An event could not be processed and was dead-lettered (npm run ops -- dlq:list)',
    }),
    ...Object.entries(props.functions).map(
      ([name, f]) =>
        new Alarm(stack, `Errors-${name}`, {
          alarmName: alarmName(`Errors-${name}`),
          metric: f.metricErrors({ period: Duration.minutes(5) }),
          threshold: 1,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
          alarmDescription: `${name} function errors`,
        }),
    ),
    new Alarm(stack, 'RunsFailing', {
      alarmName: alarmName('RunsFailing'),
      metric: app('RunsFailed'),
      threshold: 3,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: 'Three or more agent runs failed in 5 minutes (npm run ops -- event:trace <id>)',
    }),
    new Alarm(stack, 'EventsQueueBacklog', {
      alarmName: alarmName('EventsQueueBacklog'),
      metric: props.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5) }),
      threshold: 15 * 60,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: 'The oldest event has waited over 15 minutes: the worker is stuck or throttled',
    }),
  ];
  const action = new SnsAction(topic);
  for (const a of alarms) {
    a.addAlarmAction(action);
    a.addOkAction(action);
  }
  const dashboard = new Dashboard(stack, 'Dashboard', {
    dashboardName: `Switchboard-${props.stage}`,
    defaultInterval: Duration.days(1),
  });
  dashboard.addWidgets(...dashboardWidgets(props, app));
  return { topic, alarms, dashboard };
}

type AppMetricName = CountMetric | DurationMetric | CostMetric | GaugeMetric;
type AppMetric = (name: AppMetricName, statistic?: string) => IMetric;

function dashboardWidgets(props: ObservabilityProps, app: AppMetric) {
  const fns = Object.entries(props.functions);
  const graph = (title: string, left: IMetric[], right?: IMetric[]) =>
    new GraphWidget({ title, left, ...(right ? { right } : {}), width: 12, height: 6 });
  return [
    new TextWidget({
      markdown: `# Switchboard ${props.stage}\nEvents, cards and runs come from the functions' EMF metrics; \`npm run ops -- dlq:list\`, \`event:trace <id>\` and \`approvals:pending\` answer the follow-up questions.`,
      width: 24,
      height: 2,
    }),
    graph(
      'Events',
      (
        ['EventsReceived', 'EventsProcessed', 'EventsCoalesced', 'EventsDeferred', 'EventsDuplicate'] as const
      ).map((n) => app(n)),
      [app('EventsDeadLettered')],
    ),
    graph(
      'Cards',
      (['CardsCreated', 'CardsApproved', 'CardsDenied', 'CardsExpired', 'CardsExecuted'] as const).map((n) =>
        app(n),
      ),
      [app('CardsFailed')],
    ),
    graph('Runs', [app('RunsCompleted'), app('RunsFailed')], [app('RunDuration', 'p90')]),
    graph(
      'Model',
      [app('ModelLatency', 'p50'), app('ModelLatency', 'p90')],
      [app('ModelErrors'), app('ModelInputTokens'), app('ModelOutputTokens')],
    ),
    // Cost is summed in micro-dollars (a Count metric cannot carry fractions of a cent).
    graph('Model cost (µ$ per 5 min)', [app('RunCostMicroUsd')]),
    new SingleValueWidget({
      title: 'Waiting now',
      metrics: [
        props.dlq.metricApproximateNumberOfMessagesVisible({ label: 'dead letters' }),
        props.queue.metricApproximateAgeOfOldestMessage({ label: 'oldest event (s)' }),
        app('PendingApprovals', 'Maximum'),
        app('PushFailures'),
      ],
      width: 12,
      height: 6,
    }),
    graph(
      'Function errors and throttles',
      fns.map(([name, f]) => f.metricErrors({ label: `${name} errors` })),
      fns.map(([name, f]) => f.metricThrottles({ label: `${name} throttles` })),
    ),
    graph(
      'Function duration p90',
      fns.map(([name, f]) => f.metricDuration({ label: name, statistic: 'p90' })),
    ),
    graph(
      'HTTP API',
      [props.api.metricCount({ label: 'requests' })],
      [props.api.metricClientError({ label: '4xx' }), props.api.metricServerError({ label: '5xx' })],
    ),
  ];
}
