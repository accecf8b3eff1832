import { useSyncExternalStore } from 'react';

function subscribe(l: () => void) {
  document.addEventListener('visibilitychange', l);
  return () => document.removeEventListener('visibilitychange', l);
}

/** Whether the page is on screen (a tab in the background or a phone in a pocket is not). */
export function usePageVisible(): boolean {
  return useSyncExternalStore(subscribe, () => document.visibilityState === 'visible');
}
