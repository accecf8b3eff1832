import * as z from 'zod/mini';
import '../shared/src/zod-mini';
import { getEmailPollDeps, resetEmailPollDeps } from '../shared/src/composition/email-poll';
import { describeZodIssues, ValidationError } from '../shared/src/errors';
import { pollEmail } from '../shared/src/use-cases/poll-email';

/** The fixed input each EventBridge rule (and the local scheduler) sends: see shared/src/schedules.ts (zod/mini, like the rest of this function's init). */
export const emailPollInput = z.object({ source: z.enum(['general', 'leads', 'sent']) });
export type EmailPollInput = z.infer<typeof emailPollInput>;

export { resetEmailPollDeps };

/** EventBridge schedule → one poll of the general or the leads inbox; nothing is answered to anyone. */
export const handler = async (event: unknown) => {
  const parsed = emailPollInput.safeParse(event);
  if (!parsed.success) {
    // A schedule with the wrong input is a deployment bug; retrying cannot fix it, so say exactly what is wrong.
    throw new ValidationError(`email-poll input: ${describeZodIssues(parsed.error.issues)}`);
  }
  const deps = await getEmailPollDeps();
  const result = await pollEmail(deps, { source: parsed.data.source, now: deps.core.clock() });
  deps.core.log.info('email_poll.done', { source: parsed.data.source, ...result });
  return result;
};
