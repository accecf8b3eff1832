import { useRegisterSW } from 'virtual:pwa-register/react';

/** How often an open app checks for a new deployment (a tab left open all day still learns of it). */
const CHECK_EVERY_MS = 60 * 60_000;

/**
 * Registers the service worker (scope `/`, so notification clicks reach /chat) and, when a new version has
 * been deployed, offers to load it instead of swapping the app under a person mid-approval. "Reload" tells
 * the waiting worker to take over (SKIP_WAITING) and reloads the page once it does.
 */
export function UpdatePrompt() {
  const {
    needRefresh: [needRefresh, setNeedRefresh],
    updateServiceWorker,
  } = useRegisterSW({
    onRegisteredSW(_url, registration) {
      if (!registration) return;
      window.setInterval(() => {
        if (document.visibilityState === 'visible') void registration.update().catch(() => undefined);
      }, CHECK_EVERY_MS);
    },
    onRegisterError(e) {
      console.warn('service worker registration failed', e);
    },
  });
  if (!needRefresh) return null;
  return (
    <div className="update-prompt" role="status">
      <span>A new version of Switchboard is ready.</span>
      <button type="button" className="btn btn-primary" onClick={() => void updateServiceWorker(true)}>
        Reload
      </button>
      <button type="button" className="btn" onClick={() => setNeedRefresh(false)}>
        Later
      </button>
    </div>
  );
}
