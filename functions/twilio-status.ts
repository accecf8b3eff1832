import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { getTwilioStatusDeps } from '../shared/src/composition/twilio-status';
import { recordPageStatus } from '../shared/src/use-cases/record-page-status';
import { errorResponse, json, lowerHeaders, rawBody } from './http/respond';

/** POST /webhooks/twilio/status: delivery status of on-call pages, signature-checked. */
export const handler = async (event: APIGatewayProxyEventV2) => {
  const { core, deps } = await getTwilioStatusDeps();
  try {
    const update = await recordPageStatus(deps(), {
      rawBody: rawBody(event),
      signature: lowerHeaders(event)['x-twilio-signature'],
    });
    return json(200, { recorded: update.sid, status: update.status });
  } catch (e) {
    return errorResponse(e, core.log);
  }
};
