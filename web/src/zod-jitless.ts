import { config } from 'zod';

/**
 * zod probes for eval (`new Function('')`) to compile faster parsers when the first schema is built; the app's
 * CSP forbids eval, so the probe was a CSP violation on every page load (Lighthouse best practices, Chrome's
 * Issues panel). Parsing works the same without it. Imported first by main.tsx, before any schema exists.
 */
config({ jitless: true });
