/**
 * The few numbers that say whether the system works (issue 15). Names are fixed here so the dashboard and
 * alarms in the CDK app (infra/lib/observability.ts) read exactly what the code writes.
 */
export const COUNT_METRICS = [
  'EventsReceived',
  'EventsProcessed',
  'EventsCoalesced',
  'EventsDeferred',
  'EventsDuplicate',
  'EventsDeadLettered',
  'CardsCreated',
  'CardsApproved',
  'CardsDenied',
  'CardsExpired',
  'CardsExecuted',
  'CardsFailed',
  'RunsCompleted',
  'RunsFailed',
  'ModelErrors',
  'ModelInputTokens',
  'ModelOutputTokens',
  'PushFailures',
] as const;
export const DURATION_METRICS = ['ModelLatency', 'RunDuration'] as const;
export const COST_METRICS = ['RunCostMicroUsd'] as const;
/**
 * A level, not an event count: written with `count(name, value)` (unit Count) each time it is read, and charted
 * with the Maximum statistic. Pending approvals are read when an approval push is sent (the badge number).
 */
export const GAUGE_METRICS = ['PendingApprovals'] as const;

export type CountMetric = (typeof COUNT_METRICS)[number];
export type DurationMetric = (typeof DURATION_METRICS)[number];
export type CostMetric = (typeof COST_METRICS)[number];
export type GaugeMetric = (typeof GAUGE_METRICS)[number];

export interface Metrics {
  count(name: CountMetric | CostMetric | GaugeMetric, value?: number): void;
  milliseconds(name: DurationMetric, value: number): void;
  /** Writes what was recorded (CloudWatch EMF on AWS); handlers call it once per invocation. */
  flush(): void;
}

export const noMetrics: Metrics = { count() {}, milliseconds() {}, flush() {} };
