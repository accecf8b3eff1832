import { parseTwilioStatusCallback, twilioFormParams } from '../contracts/twilio';
import { UnauthorizedError } from '../errors';
import type { Log } from '../ports/logger';
import type { PageStatusStore } from '../ports/page-status-store';

export interface PageStatusDeps {
  authToken: string;
  /** The exact public URL Twilio was given as the status callback (it is part of the signature). */
  callbackUrl: string;
  pages: PageStatusStore;
  /** Twilio's own signature validator (the adapter's), over the exact URL and the decoded form body. */
  verifySignature(input: {
    authToken: string;
    signature: string | undefined;
    url: string;
    params: Record<string, string>;
  }): boolean;
  log: Log;
  clock: () => Date;
}

/** A Twilio status callback: signature checked with Twilio's own validator, then the status is recorded. */
export async function recordPageStatus(
  deps: PageStatusDeps,
  input: { rawBody: string; signature: string | undefined },
) {
  const params = twilioFormParams(input.rawBody);
  if (
    !deps.verifySignature({
      authToken: deps.authToken,
      signature: input.signature,
      url: deps.callbackUrl,
      params,
    })
  ) {
    deps.log.warn('twilio.status_rejected', {});
    throw new UnauthorizedError('Invalid X-Twilio-Signature');
  }
  const update = parseTwilioStatusCallback(params);
  await deps.pages.record(update, deps.clock().toISOString());
  deps.log.info('twilio.status', { kind: update.kind, sid: update.sid, status: update.status });
  return update;
}
