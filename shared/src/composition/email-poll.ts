import { dynamoEmailCursorStore } from '../adapters/dynamo/email-cursor-store';
import { ConfigError } from '../errors';
import type { Mailbox } from '../ports/mailbox';
import { type PollEmailDeps, pollEmailConfigFrom } from '../use-cases/poll-email';
import { type Core, getCore } from './core';
import { lazyPort } from './lazy-port';

/** Gmail and the cursor store, built once per cold start beside the shared core. */
export function buildPollDeps(core: Core): PollEmailDeps {
  const c = core.config;
  if (!c.GOOGLE_SERVICE_ACCOUNT_JSON || !c.GOOGLE_IMPERSONATE_USER) {
    throw new ConfigError(
      'GOOGLE_SERVICE_ACCOUNT_JSON and GOOGLE_IMPERSONATE_USER are required to poll email',
    );
  }
  const serviceAccount = c.GOOGLE_SERVICE_ACCOUNT_JSON;
  const subject = c.GOOGLE_IMPERSONATE_USER;
  // The Google client libraries and their auth stack (about 300 KB, and zod contracts) load on the first
  // Gmail call, not at init (issue 16): the leads poll outside its hours and the sent poll without a query
  // return without calling Gmail. A malformed key is the same ConfigError, on that first call.
  const mailbox = lazyPort<Pick<Mailbox, 'listSince' | 'read'>>(async () => {
    const [{ createGoogleAuth, GOOGLE_SCOPES }, { createGmailMailbox }] = await Promise.all([
      import('../adapters/google/auth'),
      import('../adapters/google/gmail-mailbox'),
    ]);
    const auth = createGoogleAuth({
      serviceAccount,
      subject,
      // Only Gmail: delegation is granted per scope, and this is the one the Workspace admin already grants.
      scopes: GOOGLE_SCOPES.gmail,
      ...(c.GOOGLE_TOKEN_URL ? { tokenUrl: c.GOOGLE_TOKEN_URL } : {}),
    });
    return createGmailMailbox({
      auth,
      address: subject,
      bodyLimit: c.EMAIL_BODY_LIMIT,
      ...(c.GOOGLE_API_BASE ? { rootUrl: `${c.GOOGLE_API_BASE.replace(/\/$/, '')}/` } : {}),
    });
  });
  return {
    mailbox,
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
