import { useEffect, useState } from 'react';
import type {
  PreferencesResponse,
  SavePersonalPreferences,
} from '../../../../shared/src/contracts/preferences';
import { ErrorState, Loading } from '../../components/states';
import { describeError } from '../../lib/api';
import { useResource } from '../../lib/use-resource';
import { useApi } from '../auth/auth-context';
import { SaveForm, type SaveStatus } from './save-form';

interface Form {
  timezone: string;
  signature: string;
  eventMinutes: string;
  digestHour: string;
  properties: string;
}

const EVENT_LENGTHS = [15, 30, 45, 60, 90, 120];
const HOURS = Array.from({ length: 24 }, (_, h) => h);
const hourLabel = (h: number) => `${h % 12 === 0 ? 12 : h % 12}:00 ${h < 12 ? 'AM' : 'PM'}`;

function formOf(p: PreferencesResponse): Form {
  return {
    timezone: p.personal.timezone ?? '',
    signature: p.personal.signature ?? '',
    eventMinutes: p.personal.eventMinutes ? String(p.personal.eventMinutes) : '',
    digestHour: p.personal.digestHour !== undefined ? String(p.personal.digestHour) : '',
    properties: p.team.assignments
      .filter((a) => a.mine)
      .map((a) => a.property)
      .join('\n'),
  };
}

/** Empty fields are cleared (null), so a person can go back to the team's default. */
function patchOf(f: Form): SavePersonalPreferences {
  return {
    timezone: f.timezone.trim() || null,
    signature: f.signature.trim() || null,
    eventMinutes: f.eventMinutes ? Number(f.eventMinutes) : null,
    digestHour: f.digestHour ? Number(f.digestHour) : null,
    properties: f.properties
      .split('\n')
      .map((p) => p.trim())
      .filter(Boolean),
  };
}

/**
 * Settings → Preferences (follow #20): the person's own time zone, signature, default event length, daily
 * digest hour and the properties they handle. Saved as facts the planners and the digest read; the agent
 * cannot change them.
 */
export function PreferencesSection() {
  const api = useApi();
  const res = useResource(() => api.preferences(), 'preferences', { intervalMs: 0 });
  const [form, setForm] = useState<Form | undefined>();
  const [status, setStatus] = useState<SaveStatus>();
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    if (res.data && !form) setForm(formOf(res.data));
  }, [res.data, form]);

  if (res.error !== undefined && !res.data)
    return <ErrorState message={describeError(res.error)} onRetry={() => void res.reload()} />;
  if (!res.data || !form) return <Loading label="Loading your preferences…" />;
  const teamZone = res.data.teamTimezone;
  const set = (k: keyof Form) => (e: { target: { value: string } }) => {
    setForm({ ...form, [k]: e.target.value });
    setStatus(undefined);
  };

  async function save() {
    if (!form) return;
    setSaving(true);
    try {
      const saved = await api.savePreferences(patchOf(form));
      setForm(formOf(saved));
      const next = saved.nextDigestAt
        ? ` Next digest ${new Date(saved.nextDigestAt).toLocaleString([], { weekday: 'short', hour: 'numeric', minute: '2-digit', timeZone: saved.personal.timezone ?? teamZone })}.`
        : '';
      const mine = saved.assignedNow
        ? ` ${saved.assignedNow === 1 ? '1 conversation' : `${saved.assignedNow} conversations`} about your properties ${saved.assignedNow === 1 ? 'is' : 'are'} now yours.`
        : '';
      setStatus({ kind: 'saved', text: `Saved.${next}${mine}` });
    } catch (e) {
      setStatus({ kind: 'error', text: describeError(e) });
    } finally {
      setSaving(false);
    }
  }

  return (
    <SaveForm className="prefs-form" status={status} saving={saving} submit="Save preferences" onSave={save}>
      <PreferenceFields form={form} teamZone={teamZone} set={set} />
    </SaveForm>
  );
}

type FieldSetter = (k: keyof Form) => (e: { target: { value: string } }) => void;

/** The form's fields; empty means "the team's default" for each. */
function PreferenceFields({ form, teamZone, set }: { form: Form; teamZone: string; set: FieldSetter }) {
  return (
    <>
      <label className="field-label" htmlFor="pref-tz">
        Time zone <span className="muted">(empty: the team's, {teamZone})</span>
      </label>
      <input
        id="pref-tz"
        list="pref-tz-list"
        value={form.timezone}
        placeholder={teamZone}
        onChange={set('timezone')}
      />
      <datalist id="pref-tz-list">
        {zones().map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
      <label className="field-label" htmlFor="pref-sig">
        Signature{' '}
        <span className="muted">
          (ends texts and emails you ask for, and drafts in conversations assigned to you)
        </span>
      </label>
      <input
        id="pref-sig"
        value={form.signature}
        placeholder="– Sam, Oak Properties"
        onChange={set('signature')}
      />
      <div className="prefs-row">
        <div>
          <label className="field-label" htmlFor="pref-len">
            Default event length
          </label>
          <select id="pref-len" value={form.eventMinutes} onChange={set('eventMinutes')}>
            <option value="">Team default</option>
            {EVENT_LENGTHS.map((m) => (
              <option key={m} value={m}>
                {m} minutes
              </option>
            ))}
          </select>
        </div>
        <div>
          <label className="field-label" htmlFor="pref-digest">
            Daily digest
          </label>
          <select id="pref-digest" value={form.digestHour} onChange={set('digestHour')}>
            <option value="">Off</option>
            {HOURS.map((h) => (
              <option key={h} value={h}>
                {hourLabel(h)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <label className="field-label" htmlFor="pref-props">
        Properties you handle{' '}
        <span className="muted">(one per line; conversations that name one are marked yours)</span>
      </label>
      <textarea
        id="pref-props"
        rows={3}
        value={form.properties}
        placeholder="12 Oak St"
        onChange={set('properties')}
      />
    </>
  );
}

function zones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (k: string) => string[] };
  return (
    intl.supportedValuesOf?.('timeZone') ?? [
      'America/New_York',
      'America/Chicago',
      'America/Denver',
      'America/Los_Angeles',
    ]
  );
}
