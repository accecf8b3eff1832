import { MetricUnit, Metrics as PowertoolsMetrics } from '@aws-lambda-powertools/metrics';
import type { Metrics } from '../ports/metrics';

/**
 * CloudWatch metrics as Embedded Metric Format log lines (Powertools Metrics): no PutMetricData calls, no
 * extra latency, one JSON line per flush that CloudWatch turns into metrics. One namespace per deployment
 * stage (`Switchboard/<stage>`) and the single dimension `service`, so the dashboard and alarms name them
 * exactly (infra/lib/observability.ts).
 */
export function powertoolsMetrics(opts: { namespace: string; serviceName?: string }): Metrics & {
  /** The EMF document the next flush would write (tests read it instead of stdout). */
  pending(): unknown;
} {
  const m = new PowertoolsMetrics({
    namespace: opts.namespace,
    serviceName: opts.serviceName ?? 'switchboard',
  });
  let stored = 0;
  return {
    count(name, value = 1) {
      m.addMetric(name, MetricUnit.Count, value);
      stored++;
    },
    milliseconds(name, value) {
      m.addMetric(name, MetricUnit.Milliseconds, Math.max(0, value));
      stored++;
    },
    flush() {
      // Powertools warns on an empty flush; an invocation that counted nothing writes nothing.
      if (stored === 0) return;
      stored = 0;
      m.publishStoredMetrics();
    },
    pending: () => (stored ? m.serializeMetrics() : undefined),
  };
}

/** Off AWS: kept in memory (tests and the local stack read them), never written to stdout. */
export function recordingMetrics(): Metrics & {
  recorded: Array<{ name: string; value: number; unit: 'Count' | 'Milliseconds' }>;
  total(name: string): number;
} {
  const recorded: Array<{ name: string; value: number; unit: 'Count' | 'Milliseconds' }> = [];
  return {
    recorded,
    count: (name, value = 1) => void recorded.push({ name, value, unit: 'Count' }),
    milliseconds: (name, value) => void recorded.push({ name, value, unit: 'Milliseconds' }),
    flush() {},
    total: (name) => recorded.filter((r) => r.name === name).reduce((n, r) => n + r.value, 0),
  };
}
