// First: before any module builds a zod schema (see the file).
import './zod-jitless';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { UpdatePrompt } from './features/app-update/update-prompt';
import { applyTheme } from './features/settings/theme';
import './styles.css';

applyTheme();
const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <App />
    {import.meta.env.PROD && <UpdatePrompt />}
  </StrictMode>,
);
