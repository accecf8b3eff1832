import { dynamoPageStatusStore } from '../adapters/dynamo/page-status-store';
import { verifyTwilioStatusCallback } from '../adapters/twilio-webhooks';
import { ConfigError } from '../errors';
import type { PageStatusDeps } from '../use-cases/record-page-status';
import { type Core, getCore } from './core';

/** Twilio's status callbacks: the auth token that signs them, the exact callback URL, the page store. */
export function buildTwilioStatusDeps(core: Core): PageStatusDeps {
  const authToken = core.config.TWILIO_AUTH_TOKEN;
  if (!authToken) throw new ConfigError('TWILIO_AUTH_TOKEN is not set');
  return {
    ...core,
    authToken,
    callbackUrl: `${core.config.PUBLIC_BASE_URL}/webhooks/twilio/status`,
    pages: dynamoPageStatusStore(core.table),
    verifySignature: verifyTwilioStatusCallback,
  };
}

export interface TwilioStatusRuntime {
  core: Core;
  /** Throws a ConfigError while Twilio is not configured; the handler answers it with the core's logger. */
  deps(): PageStatusDeps;
}

let cached: { core: Promise<Core>; runtime: Promise<TwilioStatusRuntime> } | undefined;

/** Built once per cold start (and again when the core is rebuilt). */
export function getTwilioStatusDeps(): Promise<TwilioStatusRuntime> {
  const core = getCore('twilio-status');
  if (cached?.core !== core) {
    cached = {
      core,
      runtime: core.then((c) => {
        let deps: PageStatusDeps | undefined;
        return { core: c, deps: () => (deps ??= buildTwilioStatusDeps(c)) };
      }),
    };
  }
  return cached.runtime;
}
