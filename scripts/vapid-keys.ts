import { pathToFileURL } from 'node:url';
import webpush from 'web-push';

/**
 * `npm run vapid:keys` (tsx scripts/vapid-keys.ts [mailto:you@example.com]): a new VAPID key pair as
 * .env lines. Comments start with `#`, so the output can be appended to .env as it is.
 */
export function vapidEnvLines(subject = 'mailto:ops@example.com'): {
  publicKey: string;
  privateKey: string;
  text: string;
} {
  const { publicKey, privateKey } = webpush.generateVAPIDKeys();
  const text = [
    `# VAPID key pair for Web Push, generated ${new Date().toISOString()}`,
    '# VAPID_PRIVATE_KEY is a SECRET: keep it in .env locally and in the Secrets Manager secret on AWS;',
    '# never commit it, log it or send it to the browser. Rotating it invalidates every push subscription.',
    '# VAPID_PUBLIC_KEY is public: the API serves it to the PWA as the applicationServerKey.',
    `VAPID_PUBLIC_KEY=${publicKey}`,
    `VAPID_PRIVATE_KEY=${privateKey}`,
    `VAPID_SUBJECT=${subject}`,
  ].join('\n');
  return { publicKey, privateKey, text };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const subject = process.argv[2];
  if (subject && !subject.startsWith('mailto:') && !subject.startsWith('https://')) {
    console.error('The subject must be a mailto: address or an https: URL, e.g. mailto:ops@example.com');
    process.exit(1);
  }
  console.log(vapidEnvLines(subject).text);
}
