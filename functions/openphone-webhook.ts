import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { getOpenPhoneWebhookDeps } from '../shared/src/composition/openphone-webhook';
import { receiveSmsWebhook } from '../shared/src/use-cases/receive-sms-webhook';
import { errorResponse, json, lowerHeaders, rawBody } from './http/respond';

/** POST /webhooks/openphone: verify, parse, claim, enqueue, answer — no agent work here (SPEC §2). */
export const handler = async (event: APIGatewayProxyEventV2, context?: Context) => {
  const { core, deps } = await getOpenPhoneWebhookDeps();
  // Request id and cold start on every line; the delivery's correlation id is on the enqueue line.
  if (context) core.log.addContext(context);
  try {
    const result = await receiveSmsWebhook(deps(), {
      rawBody: rawBody(event),
      headers: lowerHeaders(event),
      // A claim may stay in progress only as long as this invocation can still run.
      remainingMs: context ? () => context.getRemainingTimeInMillis() : undefined,
    });
    return json(result.status === 'enqueued' ? 202 : 200, result);
  } catch (e) {
    return errorResponse(e, core.log);
  }
};
