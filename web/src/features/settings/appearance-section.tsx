import { useState } from 'react';
import { readTheme, saveTheme, type ThemeChoice } from './theme';

const CHOICES: Array<{ id: ThemeChoice; label: string }> = [
  { id: 'system', label: 'Like the system' },
  { id: 'light', label: 'Light' },
  { id: 'dark', label: 'Dark' },
];

/** Light, dark, or the system's setting, for this device. */
export function AppearanceSection() {
  const [choice, setChoice] = useState<ThemeChoice>(readTheme);
  return (
    <section className="card settings-card" aria-labelledby="appearance-heading">
      <h2 id="appearance-heading">Appearance</h2>
      <fieldset className="segmented">
        <legend className="visually-hidden">Theme</legend>
        {CHOICES.map((c) => (
          <label key={c.id} className={`segment${choice === c.id ? ' active' : ''}`}>
            <input
              type="radio"
              name="theme"
              value={c.id}
              checked={choice === c.id}
              onChange={() => {
                setChoice(c.id);
                saveTheme(c.id);
              }}
            />
            {c.label}
          </label>
        ))}
      </fieldset>
    </section>
  );
}
