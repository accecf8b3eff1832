import { dynamoEmailCursorStore } from '../adapters/dynamo/email-cursor-store';
import { createGoogleAuth, GOOGLE_SCOPES } from '../adapters/google/auth';
import { createGmailMailbox } from '../adapters/google/gmail-mailbox';
import { ConfigError } from '../errors';
import { type PollEmailDeps, pollEmailConfigFrom } from '../use-cases/poll-email';
import { type Core, getCore } from './core';

/** Gmail and the cursor store, built once per cold start beside the shared core. */
export function buildPollDeps(core: Core): PollEmailDeps {
  const c = core.config;
  if (!c.GOOGLE_SERVICE_ACCOUNT_JSON || !c.GOOGLE_IMPERSONATE_USER) {
    throw new ConfigError(
      'GOOGLE_SERVICE_ACCOUNT_JSON and GOOGLE_IMPERSONATE_USER are required to poll email',
    );
  }
  const auth = createGoogleAuth({
    serviceAccount: c.GOOGLE_SERVICE_ACCOUNT_JSON,
    subject: c.GOOGLE_IMPERSONATE_USER,
    // Only Gmail: delegation is granted per scope, and this is the one the Workspace admin already grants.
    scopes: GOOGLE_SCOPES.gmail,
    ...(c.GOOGLE_TOKEN_URL ? { tokenUrl: c.GOOGLE_TOKEN_URL } : {}),
  });
  return {
    mailbox: createGmailMailbox({
      auth,
      address: c.GOOGLE_IMPERSONATE_USER,
      bodyLimit: c.EMAIL_BODY_LIMIT,
      ...(c.GOOGLE_API_BASE ? { rootUrl: `${c.GOOGLE_API_BASE.replace(/\/$/, '')}/` } : {}),
    }),
    cursors: dynamoEmailCursorStore(core.table),
    queue: core.queue,
    config: pollEmailConfigFrom(c),
    log: core.log,
  };
}

export type EmailPollDeps = PollEmailDeps & { core: Core };

let cached: { core: Promise<Core>; deps: Promise<EmailPollDeps> } | undefined;

/**
 * Rebuilt when the core is, or after a failure (missing Google credentials are a ConfigError on every
 * invocation until the configuration is fixed, never a poisoned cache).
 */
export function getEmailPollDeps(): Promise<EmailPollDeps> {
  const core = getCore('email-poll');
  if (cached?.core !== core) {
    const deps = core.then((c) => ({ ...buildPollDeps(c), core: c }));
    cached = { core, deps };
    deps.catch(() => {
      if (cached?.deps === deps) cached = undefined;
    });
  }
  return cached.deps;
}

/** Tests and the local stack rebuild the poll's clients after changing the environment. */
export function resetEmailPollDeps() {
  cached = undefined;
}
