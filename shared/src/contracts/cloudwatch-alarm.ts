import { z } from 'zod';

/**
 * What CloudWatch sends to an SNS topic when an alarm changes state, as SNS hands it to a Lambda subscriber
 * (test/contracts/vendor/aws/cloudwatch-alarm-sns-payload-single-metric.json, AWS's own fixture). Only the
 * fields we show are required; everything else CloudWatch adds (Trigger, AWSAccountId, …) passes through.
 */

export const alarmState = z.enum(['OK', 'ALARM', 'INSUFFICIENT_DATA']);
export type AlarmState = z.infer<typeof alarmState>;

export const cloudWatchAlarmMessage = z.looseObject({
  AlarmName: z.string().min(1).max(255),
  /** Null when the alarm has none (ours always have one: it says what to run next). */
  AlarmDescription: z.string().max(1024).nullish(),
  NewStateValue: alarmState,
  OldStateValue: alarmState.optional(),
  NewStateReason: z.string().max(4096).default(''),
  /** `2015-06-03T17:43:27.123+0000`: not ISO's `Z`/`+00:00`, so kept as text. */
  StateChangeTime: z.string().min(1),
  Region: z.string().optional(),
});
export type CloudWatchAlarmMessage = z.infer<typeof cloudWatchAlarmMessage>;

/** The Lambda event SNS invokes a subscriber with; `Message` is the publisher's text (a JSON string here). */
export const snsLambdaEvent = z.object({
  Records: z
    .array(
      z.looseObject({
        EventSource: z.literal('aws:sns'),
        Sns: z.looseObject({
          MessageId: z.string(),
          TopicArn: z.string().optional(),
          Subject: z.string().nullish(),
          Message: z.string(),
        }),
      }),
    )
    .min(1),
});
export type SnsLambdaEvent = z.infer<typeof snsLambdaEvent>;
