import { validateRequest } from 'twilio/lib/webhooks/webhooks';

/**
 * Twilio status callbacks: signature check with the SDK's own validator (imported from its webhooks
 * module alone, so the status function does not bundle the REST client) and zod validation.
 */
/**
 * Checks X-Twilio-Signature on a status callback with the SDK's own validator. `url` must be the exact
 * public URL Twilio was given (scheme, host, path and query) and `params` the decoded form body.
 */
export function verifyTwilioStatusCallback(input: {
  authToken: string;
  signature: string | undefined;
  url: string;
  params: Record<string, string>;
}): boolean {
  if (!input.signature) return false;
  return validateRequest(input.authToken, input.signature, input.url, input.params);
}

// The callback's data side lives in contracts/ (the use case and the page store read it without the SDK).
export {
  parseTwilioStatusCallback,
  type TwilioStatusUpdate,
  twilioCallStatusCallback,
  twilioFormParams,
  twilioMessageStatusCallback,
} from '../contracts/twilio';
