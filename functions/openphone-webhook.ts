import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { getWebhookCore } from '../shared/src/composition-webhook';
import { ConfigError } from '../shared/src/errors';
import { receiveSmsWebhook } from '../shared/src/use-cases/receive-sms-webhook';
import { errorResponse, json, lowerHeaders, rawBody } from './http/respond';

/** POST /webhooks/openphone: verify, parse, claim, enqueue, answer — no agent work here (SPEC §2). */
export const handler = async (event: APIGatewayProxyEventV2, context?: Context) => {
  const core = await getWebhookCore();
  try {
    const secret = core.config.OPENPHONE_WEBHOOK_SECRET;
    if (!secret) throw new ConfigError('OPENPHONE_WEBHOOK_SECRET is not set');
    const result = await receiveSmsWebhook(
      { ...core, secret, urgentKeywords: core.config.URGENT_KEYWORDS },
      {
        rawBody: rawBody(event),
        headers: lowerHeaders(event),
        // A claim may stay in progress only as long as this invocation can still run.
        remainingMs: context ? () => context.getRemainingTimeInMillis() : undefined,
      },
    );
    return json(result.status === 'enqueued' ? 202 : 200, result);
  } catch (e) {
    return errorResponse(e, core.log);
  }
};
