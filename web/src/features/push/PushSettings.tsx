import type { GetToken } from '../../lib/api';
import { deviceName, needsHomeScreen } from './push-support';
import { type PushStatus, usePush } from './use-push';
import './push-settings.css';

export interface PushSettingsProps {
  vapidPublicKey?: string;
  getToken: GetToken;
}

const CHIP: Record<PushStatus['kind'], { label: string; tone: string }> = {
  checking: { label: 'Checking…', tone: 'muted' },
  unsupported: { label: 'Not supported', tone: 'muted' },
  disabled: { label: 'Not set up', tone: 'muted' },
  blocked: { label: 'Blocked', tone: 'blocked' },
  off: { label: 'Off', tone: 'off' },
  on: { label: 'On', tone: 'on' },
};

type Push = ReturnType<typeof usePush>;

/**
 * Push opt-in for this device (SPEC §5): the state, the button that asks for permission (only ever from a
 * click), the off switch, a test notification, and the Home Screen note iPhone users need.
 */
export function PushSettings({ vapidPublicKey, getToken }: PushSettingsProps) {
  const push = usePush({ ...(vapidPublicKey ? { vapidPublicKey } : {}), getToken });
  const { status, busy, notice, platform } = push;
  const chip = CHIP[status.kind];

  return (
    <div className="push-settings" data-push-state={status.kind} aria-busy={busy !== null}>
      <p className="push-status">
        <span className="push-status-label">This device</span>
        <span className={`chip push-chip push-chip-${chip.tone}`}>{chip.label}</span>
      </p>
      {status.kind === 'checking' && <p className="muted small">Checking this device…</p>}
      {status.kind === 'off' && <PushOff push={push} />}
      {status.kind === 'on' && <PushOn push={push} />}
      {status.kind === 'blocked' && <PushBlocked push={push} />}
      {status.kind === 'unsupported' && !needsHomeScreen(platform) && (
        <p className="muted">
          {platform.ios
            ? 'This iOS version cannot receive web notifications. Update to iOS 16.4 or later.'
            : 'This browser cannot receive push notifications. Chrome, Edge, Firefox and Safari can.'}
        </p>
      )}
      {status.kind === 'disabled' && (
        <p className="muted">
          Push notifications are not set up on this deployment. An admin can create a VAPID key pair with{' '}
          <code>npm run vapid:keys</code> and add it to the secrets.
        </p>
      )}
      {needsHomeScreen(platform) && (
        <div className="banner banner-info push-ios-note" role="note">
          <strong>On iPhone or iPad</strong>, notifications need Switchboard on the Home Screen (iOS 16.4 or
          later): in Safari tap Share → <em>Add to Home Screen</em>, open Switchboard from the Home Screen,
          then turn notifications on there.
        </div>
      )}
      {notice && (
        <div className={`banner banner-${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'}>
          {notice.text}
        </div>
      )}
    </div>
  );
}

function PushOff({ push }: { push: Push }) {
  return (
    <>
      <p className="muted">
        Get a notification when a reply waits for your approval, and for urgent alerts. Your browser asks for
        permission first.
      </p>
      <button type="button" className="btn btn-primary" onClick={push.turnOn} disabled={push.busy !== null}>
        {push.busy === 'on' ? 'Turning on…' : 'Turn on notifications'}
      </button>
    </>
  );
}

function PushOn({ push }: { push: Push }) {
  const { busy } = push;
  const device = deviceName(navigator.userAgent);
  return (
    <>
      <div className="push-switch-row">
        <span className="push-switch-text">
          <span id="push-switch-label">Receive notifications</span>
          <span className="muted small">
            {device} — approval requests stay until you act; alerts go away on their own.
          </span>
        </span>
        <button
          type="button"
          role="switch"
          aria-checked="true"
          aria-labelledby="push-switch-label"
          className="push-switch"
          onClick={() => void push.turnOff()}
          disabled={busy !== null}
        >
          <span className="push-knob" aria-hidden="true" />
        </button>
      </div>
      <button
        type="button"
        className="btn btn-ghost"
        onClick={() => void push.sendTest()}
        disabled={busy !== null}
      >
        {busy === 'test' ? 'Sending…' : 'Send me a test notification'}
      </button>
    </>
  );
}

function PushBlocked({ push }: { push: Push }) {
  return (
    <>
      <p>
        Notifications are blocked for Switchboard in this browser, so it cannot ask again. Allow them in the
        browser’s settings for this site (in Chrome: the icon left of the address), then tap Check again.
      </p>
      <button type="button" className="btn btn-ghost" onClick={() => void push.refresh()}>
        Check again
      </button>
    </>
  );
}

export default PushSettings;
