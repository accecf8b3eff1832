import { z } from 'zod';
import { dynamoEmailCursorStore } from '../shared/src/adapters/dynamo/email-cursor-store';
import { createGoogleAuth, GOOGLE_SCOPES } from '../shared/src/adapters/google/auth';
import { createGmailMailbox } from '../shared/src/adapters/google/gmail-mailbox';
import { type Core, getCore } from '../shared/src/composition';
import { ConfigError, describeZodIssues, ValidationError } from '../shared/src/errors';
import { type PollEmailDeps, pollEmail, pollEmailConfigFrom } from '../shared/src/use-cases/poll-email';

/** The fixed input each EventBridge rule (and the local scheduler) sends: see shared/src/schedules.ts. */
export const emailPollInput = z.object({ source: z.enum(['general', 'leads']) });
export type EmailPollInput = z.infer<typeof emailPollInput>;

/** Gmail and the cursor store, built once per cold start beside the shared core. */
function buildPollDeps(core: Core): PollEmailDeps {
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

let deps: Promise<PollEmailDeps> | undefined;

/** EventBridge schedule → one poll of the general or the leads inbox; nothing is answered to anyone. */
export const handler = async (event: unknown) => {
  const core = await getCore('email-poll');
  const parsed = emailPollInput.safeParse(event);
  if (!parsed.success) {
    // A schedule with the wrong input is a deployment bug; retrying cannot fix it, so say exactly what is wrong.
    throw new ValidationError(`email-poll input: ${describeZodIssues(parsed.error.issues)}`);
  }
  deps ??= Promise.resolve().then(() => buildPollDeps(core));
  deps.catch(() => {
    deps = undefined;
  });
  const result = await pollEmail(await deps, { source: parsed.data.source, now: core.clock() });
  core.log.info('email_poll.done', { source: parsed.data.source, ...result });
  return result;
};

/** Tests and the local stack rebuild the poll's clients after changing the environment. */
export function resetEmailPollDeps() {
  deps = undefined;
}
