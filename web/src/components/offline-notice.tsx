import { useEffect, useState } from 'react';
import { shortTime } from '../lib/format';
import { onOfflineChange } from '../lib/offline-store';

/**
 * "You're offline": shown while the device has no network or a screen shows the copy this device kept,
 * with when that copy was saved — so nobody mistakes an old inbox for the current one.
 */
export function OfflineNotice() {
  const [online, setOnline] = useState(() => navigator.onLine);
  const [savedAt, setSavedAt] = useState<string | null>(null);
  useEffect(() => onOfflineChange(setSavedAt), []);
  useEffect(() => {
    const update = () => setOnline(navigator.onLine);
    window.addEventListener('online', update);
    window.addEventListener('offline', update);
    return () => {
      window.removeEventListener('online', update);
      window.removeEventListener('offline', update);
    };
  }, []);
  if (online && !savedAt) return null;
  return (
    <div className="offline-notice" role="status">
      <strong>You're offline.</strong>{' '}
      {savedAt
        ? `Showing what this device last loaded (${shortTime(savedAt)}); nothing can be approved or sent until you're back online.`
        : 'Nothing can be approved or sent until you are back online.'}
    </div>
  );
}
