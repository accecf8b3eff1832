import { dynamoIdempotencyStore } from '../adapters/dynamo/idempotency-store';
import { ConfigError } from '../errors';
import type { ReceiveSmsDeps } from '../use-cases/receive-sms-webhook';
import { type Core, getCore } from './core';

export interface OpenPhoneWebhookRuntime {
  core: Core;
  /** Throws a ConfigError while the webhook secret is not set; the handler answers it with the core's logger. */
  deps(): ReceiveSmsDeps;
}

export function buildOpenPhoneWebhookDeps(core: Core): ReceiveSmsDeps {
  const secret = core.config.OPENPHONE_WEBHOOK_SECRET;
  if (!secret) throw new ConfigError('OPENPHONE_WEBHOOK_SECRET is not set');
  // Powertools Idempotency is built here, not in the core: only this function's bundle carries it.
  const idempotency = dynamoIdempotencyStore({ raw: core.dynamo.raw, tableName: core.config.TABLE_NAME });
  return { ...core, idempotency, secret, urgentKeywords: core.config.URGENT_KEYWORDS };
}

let cached: { core: Promise<Core>; runtime: Promise<OpenPhoneWebhookRuntime> } | undefined;

/** Built once per cold start (and again when the core is rebuilt). */
export function getOpenPhoneWebhookDeps(): Promise<OpenPhoneWebhookRuntime> {
  const core = getCore('openphone-webhook');
  if (cached?.core !== core) {
    cached = {
      core,
      runtime: core.then((c) => {
        let deps: ReceiveSmsDeps | undefined;
        return { core: c, deps: () => (deps ??= buildOpenPhoneWebhookDeps(c)) };
      }),
    };
  }
  return cached.runtime;
}
