import type { LeadInfo, LeadState } from '../../../../shared/src/contracts/conversations';
import { describeError } from '../../lib/api';
import { useApi } from '../auth/auth-context';

/** What a person can say about a lead from the conversation's menu; the rest follows from messages. */
const CHOICES: Array<{ state: LeadState; label: string }> = [
  { state: 'showing_booked', label: 'Lead: showing booked' },
  { state: 'disqualified', label: 'Lead: not a fit' },
  { state: 'waiting_on_us', label: 'Lead: waiting on us' },
];

/**
 * "Showing booked" and "not a fit" (follow #20): nothing in a message says them for sure, and both stop the
 * drafted replies (the seed's no-reply rule); "waiting on us" puts a lead back in play. Shown in the
 * conversation's More menu for a lead; the current state is not offered.
 */
export function LeadMenuItems({
  conversationId,
  lead,
  onChanged,
  onError,
}: {
  conversationId: string;
  lead: LeadInfo;
  onChanged: () => void;
  onError: (message: string) => void;
}) {
  const api = useApi();
  const set = async (state: LeadState) => {
    try {
      await api.setLead(conversationId, state);
      onChanged();
    } catch (e) {
      onError(describeError(e));
    }
  };
  return (
    <>
      {CHOICES.filter((c) => c.state !== lead.state).map((c) => (
        <button key={c.state} type="button" className="menu-item" onClick={() => void set(c.state)}>
          {c.label}
        </button>
      ))}
    </>
  );
}
