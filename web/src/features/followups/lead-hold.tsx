import type { PendingAction } from '../../../../shared/src/contracts/conversations';
import { fullTime } from '../../lib/format';

/**
 * A lead's nudge carries the condition it is sent under (follow #20): the approval binds it, so the card says
 * it — sent only while the lead is where they were when it was drafted; if they write, call or are booked
 * first, it is withdrawn instead.
 */
export function LeadHold({ hold }: { hold: NonNullable<PendingAction['whileLead']> }) {
  return (
    <p className="lesson-note">
      <strong>Sent only if the lead has not moved:</strong> still {hold.state.replaceAll('_', ' ')} since{' '}
      {fullTime(hold.since)}. If they write, call or are booked first, it is withdrawn, not sent.
    </p>
  );
}
