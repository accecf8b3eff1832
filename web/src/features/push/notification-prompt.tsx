import { useState } from 'react';
import { useAuth, useMe } from '../auth/auth-context';
import { needsHomeScreen } from './push-support';
import { usePush } from './use-push';
import './push-settings.css';

const dismissedKey = (userId: string) => `switchboard-push-prompt:${userId}`;

function dismissed(userId: string): boolean {
  try {
    return localStorage.getItem(dismissedKey(userId)) !== null;
  } catch {
    return false;
  }
}

/**
 * After sign-in, on top of the inbox: approvals depend on notifications, so the app explains them and asks
 * once, from a button (browsers only show the permission question for a click). "Not now" hides it on this
 * device for this person; Settings keeps the switch. On an iPhone outside the Home Screen app, push cannot
 * work at all, so it says how to add it instead of offering a button that would fail.
 */
export function NotificationPrompt() {
  const me = useMe();
  const auth = useAuth();
  const push = usePush({ getToken: auth.getToken });
  const [hidden, setHidden] = useState(() => dismissed(me.id));
  const { status, platform, busy, notice } = push;
  const offerable = status.kind === 'off' || (status.kind === 'unsupported' && needsHomeScreen(platform));
  if (hidden || !offerable) return null;
  const notNow = () => {
    try {
      localStorage.setItem(dismissedKey(me.id), new Date().toISOString());
    } catch {
      // Not kept: it asks again next visit, which is the safe side.
    }
    setHidden(true);
  };
  return (
    <section className="card push-prompt" aria-labelledby="push-prompt-title">
      <h2 id="push-prompt-title">Know when a reply waits for you</h2>
      <p>
        Nothing goes out until someone approves it: get a notification when a card waits or something is
        urgent.
      </p>
      {needsHomeScreen(platform) ? (
        <p className="muted">
          On iPhone, notifications work only in the app on your Home Screen: Share → Add to Home Screen, then
          open Switchboard from there.
        </p>
      ) : null}
      {notice && (
        <p className={notice.kind === 'error' ? 'error-text' : 'muted'} role="status">
          {notice.text}
        </p>
      )}
      <div className="push-prompt-buttons">
        <button type="button" className="btn btn-ghost" onClick={notNow}>
          Not now
        </button>
        {status.kind === 'off' && (
          <button type="button" className="btn btn-primary" onClick={push.turnOn} disabled={busy !== null}>
            {busy === 'on' ? 'Turning on…' : 'Turn on'}
          </button>
        )}
      </div>
    </section>
  );
}
