import { type ComponentType, lazy, Suspense } from 'react';
import type { PublicConfig } from '../../../../shared/src/contracts/api';
import { Shell } from '../../components/shell';
import { Loading } from '../../components/states';
import { Link, navigate } from '../../lib/router';
import { type Auth, useAuth, useMe } from '../auth/auth-context';
import { AppearanceSection } from './appearance-section';
import { LessonsSection } from './lessons-section';
import { NotificationsSection } from './notifications-section';
import { PreferencesSection } from './preferences-section';

export interface PushSettingsProps {
  vapidPublicKey?: string;
  getToken: Auth['getToken'];
}

/**
 * The push opt-in belongs to the push feature (web/src/features/push/PushSettings.tsx). It is picked up at
 * build time when present — a glob import resolves to nothing otherwise — so this screen builds either way.
 */
const pushModules = import.meta.glob<{
  PushSettings?: ComponentType<PushSettingsProps>;
  default?: ComponentType<PushSettingsProps>;
}>('../push/PushSettings.tsx');
const loadPush = Object.values(pushModules)[0];
const PushSettings = loadPush
  ? lazy(async () => {
      const m = await loadPush();
      const C = m.PushSettings ?? m.default;
      if (!C) throw new Error('PushSettings.tsx exports no component');
      return { default: C };
    })
  : null;

export function SettingsScreen({ config }: { config: PublicConfig }) {
  const me = useMe();
  const auth = useAuth();
  return (
    <Shell title="Settings">
      <section className="card settings-card">
        <h2>Account</h2>
        <p>
          <strong>{me.name ?? me.email}</strong>
          <br />
          <span className="muted">
            {me.email}
            {me.isAdmin ? ' · admin' : ''}
          </span>
        </p>
        <button
          type="button"
          className="btn btn-ghost"
          onClick={async () => {
            await auth.signOut();
            navigate('/sign-in', { replace: true });
          }}
        >
          Sign out
        </button>
      </section>
      <section className="card settings-card" aria-labelledby="push-heading">
        <h2 id="push-heading">Notifications</h2>
        {PushSettings ? (
          <Suspense fallback={<Loading label="Loading notification settings…" />}>
            <PushSettings
              getToken={auth.getToken}
              {...(config.vapidPublicKey ? { vapidPublicKey: config.vapidPublicKey } : {})}
            />
          </Suspense>
        ) : (
          <p className="muted">
            Push notifications for approvals will be switched on here. Until then, keep the inbox open to see
            new cards.
          </p>
        )}
      </section>
      <AppearanceSection />
      {/* Below Appearance: it loads after the page, and must not move the controls above it. */}
      <section className="card settings-card" aria-labelledby="notify-heading">
        <h2 id="notify-heading">What you are notified about</h2>
        <NotificationsSection />
      </section>
      <section className="card settings-card" aria-labelledby="prefs-heading">
        <h2 id="prefs-heading">Preferences</h2>
        <PreferencesSection />
      </section>
      <section className="card settings-card" aria-labelledby="lessons-heading">
        <h2 id="lessons-heading">Lessons from your decisions</h2>
        <LessonsSection />
      </section>
      <section className="card settings-card">
        <h2>Memory</h2>
        <p className="muted">The notes the assistant keeps about the team, tenants and properties.</p>
        <Link href="/memory" className="btn btn-ghost">
          What the assistant learned
        </Link>
      </section>
      <section className="card settings-card">
        <h2>About</h2>
        <p className="muted">
          {config.teamName} · {config.stage === 'local' ? 'local development stack' : config.stage}
        </p>
        <p className="muted small">
          Install: on iPhone, Share → Add to Home Screen; on Android, the browser menu → Install app.
        </p>
      </section>
    </Shell>
  );
}
