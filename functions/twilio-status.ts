import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { dynamoPageStatusStore } from '../shared/src/adapters/dynamo/page-status-store';
import { getCore } from '../shared/src/composition';
import { ConfigError } from '../shared/src/errors';
import { recordPageStatus } from '../shared/src/use-cases/record-page-status';
import { errorResponse, json, lowerHeaders, rawBody } from './http/respond';

/** POST /webhooks/twilio/status: delivery status of on-call pages, signature-checked. */
export const handler = async (event: APIGatewayProxyEventV2) => {
  const core = await getCore('twilio-status');
  try {
    const authToken = core.config.TWILIO_AUTH_TOKEN;
    if (!authToken) throw new ConfigError('TWILIO_AUTH_TOKEN is not set');
    const update = await recordPageStatus(
      {
        ...core,
        authToken,
        callbackUrl: `${core.config.PUBLIC_BASE_URL}/webhooks/twilio/status`,
        pages: dynamoPageStatusStore(core.table),
      },
      { rawBody: rawBody(event), signature: lowerHeaders(event)['x-twilio-signature'] },
    );
    return json(200, { recorded: update.sid, status: update.status });
  } catch (e) {
    return errorResponse(e, core.log);
  }
};
