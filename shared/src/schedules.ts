/**
 * Scheduled invocations, one list for both homes: the CDK app turns each into an EventBridge rule with a
 * fixed JSON input, the local scheduler into a cron timer with the same input.
 */
export const SCHEDULES = [
  { name: 'email-poll-general', function: 'email-poll', everyMinutes: 15, input: { source: 'general' } },
  // Leads every 5 minutes; the use case itself skips polls outside 08:00–20:00 team time (DST-correct).
  { name: 'email-poll-leads', function: 'email-poll', everyMinutes: 5, input: { source: 'leads' } },
  // The team's sent mail: a reply from Gmail in a thread with a waiting draft withdraws that draft.
  { name: 'email-poll-sent', function: 'email-poll', everyMinutes: 5, input: { source: 'sent' } },
] as const;

export type ScheduleDef = (typeof SCHEDULES)[number];
