import { createContext, useContext, useSyncExternalStore } from 'react';

/**
 * Which part of the screen a component renders in: the whole screen (phone, or any non-inbox screen), or
 * the list / the conversation of the desktop split. Shell reads it to drop the back link and the tab bar
 * where the other pane already gives them.
 */
export type Pane = 'single' | 'list' | 'detail';
export const PaneContext = createContext<Pane>('single');
export const usePane = () => useContext(PaneContext);

/** From about a small laptop's width the list and the open conversation sit side by side. */
export const SPLIT_QUERY = '(min-width: 1024px)';

function subscribe(onChange: () => void) {
  const mq = window.matchMedia(SPLIT_QUERY);
  mq.addEventListener('change', onChange);
  return () => mq.removeEventListener('change', onChange);
}

export function useWide() {
  return useSyncExternalStore(subscribe, () => window.matchMedia(SPLIT_QUERY).matches);
}
