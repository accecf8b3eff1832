/**
 * Dark mode follows the system (prefers-color-scheme through CSS light-dark()); a person may pin light or
 * dark on this device. The choice is a device preference like the system's own, so it lives in
 * localStorage, not on the server, and is applied before the first render so nothing flashes.
 */
export type ThemeChoice = 'system' | 'light' | 'dark';
const KEY = 'switchboard-theme';

export function readTheme(): ThemeChoice {
  try {
    const v = localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    // Storage can be refused (private modes, policies): the system setting still applies.
    return 'system';
  }
}

export function applyTheme(choice: ThemeChoice = readTheme()) {
  const root = document.documentElement;
  if (choice === 'system') root.removeAttribute('data-theme');
  else root.dataset.theme = choice;
}

export function saveTheme(choice: ThemeChoice) {
  try {
    if (choice === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, choice);
  } catch {
    // Applied for this visit even when it cannot be kept.
  }
  applyTheme(choice);
}
