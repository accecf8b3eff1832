import { useEffect, useState } from 'react';
import type { z } from 'zod';
import type {
  NotificationChoices,
  notificationChoicesResponse,
} from '../../../../shared/src/contracts/notification-choices';
import { ErrorState, Loading } from '../../components/states';
import { describeError } from '../../lib/api';
import { useResource } from '../../lib/use-resource';
import { useApi } from '../auth/auth-context';
import { SaveForm, type SaveStatus } from './save-form';

type Saved = z.infer<typeof notificationChoicesResponse>;
interface Form {
  approvals: boolean;
  urgent: boolean;
  everything: boolean;
  quiet: boolean;
  start: string;
  end: string;
}

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

function formOf(c: NotificationChoices): Form {
  return {
    approvals: c.approvals,
    urgent: c.urgent,
    everything: c.everything,
    quiet: c.quietHours !== undefined,
    start: c.quietHours?.start ?? '22:00',
    end: c.quietHours?.end ?? '07:00',
  };
}

/** Quiet hours are kept in the zone of the device that saved them: "22:00" means this phone's 22:00. */
function choicesOf(f: Form, zone: string) {
  return {
    approvals: f.approvals,
    urgent: f.urgent,
    everything: f.everything,
    quietHours: f.quiet ? { start: f.start, end: f.end, timezone: zone } : null,
  };
}

/**
 * Settings → Notifications (issue 19): what this person is pushed, on every device of theirs — cards waiting
 * for approval, urgent matters, everything else — and quiet hours. Stored on the server and applied by the
 * sender; the device switch above (push-settings) only says whether this device receives anything at all.
 */
export function NotificationsSection() {
  const api = useApi();
  const res = useResource(() => api.notificationChoices(), 'notification-choices', { intervalMs: 0 });
  const [form, setForm] = useState<Form | undefined>();
  const [status, setStatus] = useState<SaveStatus>();
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    if (res.data && !form) setForm(formOf(res.data.choices));
  }, [res.data, form]);

  if (res.error !== undefined && !res.data)
    return <ErrorState message={describeError(res.error)} onRetry={() => void res.reload()} />;
  if (!res.data || !form) return <Loading label="Loading your notification choices…" />;
  const change = (patch: Partial<Form>) => {
    setForm({ ...form, ...patch });
    setStatus(undefined);
  };

  async function save() {
    if (!form) return;
    setSaving(true);
    try {
      const saved: Saved = await api.saveNotificationChoices(choicesOf(form, browserZone()));
      setForm(formOf(saved.choices));
      setStatus({ kind: 'saved', text: 'Saved. Every device you use follows these choices.' });
    } catch (e) {
      setStatus({ kind: 'error', text: describeError(e) });
    } finally {
      setSaving(false);
    }
  }

  return (
    <SaveForm
      className="prefs-form notify-form"
      label="What you are notified about"
      status={status}
      saving={saving}
      submit="Save notification choices"
      onSave={save}
    >
      <ChoiceFields form={form} change={change} delay={res.data.teamDelayMinutes} />
    </SaveForm>
  );
}

function ChoiceFields({
  form,
  change,
  delay,
}: {
  form: Form;
  change: (p: Partial<Form>) => void;
  delay: number;
}) {
  const box = (k: 'approvals' | 'urgent' | 'everything' | 'quiet', label: string, hint: string) => (
    <label className="notify-choice">
      <input type="checkbox" checked={form[k]} onChange={(e) => change({ [k]: e.target.checked })} />
      <span>
        {label}
        <span className="muted small">{hint}</span>
      </span>
    </label>
  );
  return (
    <fieldset className="notify-choices">
      <legend className="field-label">Notify me about</legend>
      {box(
        'approvals',
        'Cards waiting for approval',
        `In a conversation assigned to you, you hear first; everyone else after ${delay} min if it still waits.`,
      )}
      {box(
        'urgent',
        'Urgent matters',
        'A flood, a break-in: on-call is paged too. These come through quiet hours.',
      )}
      {box('everything', 'Everything else', 'Answers to texts and emails, expired or failed cards.')}
      {box('quiet', 'Quiet hours', 'Only urgent matters between these times.')}
      {form.quiet && (
        <div className="prefs-row">
          <div>
            <label className="field-label" htmlFor="quiet-start">
              From
            </label>
            <input
              id="quiet-start"
              type="time"
              value={form.start}
              onChange={(e) => change({ start: e.target.value })}
            />
          </div>
          <div>
            <label className="field-label" htmlFor="quiet-end">
              Until
            </label>
            <input
              id="quiet-end"
              type="time"
              value={form.end}
              onChange={(e) => change({ end: e.target.value })}
            />
          </div>
        </div>
      )}
    </fieldset>
  );
}
