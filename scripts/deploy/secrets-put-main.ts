import { runSecretsPut } from './secrets-cli';

process.exit(
  await runSecretsPut(process.argv.slice(2), {
    env: process.env,
    out: (l) => console.log(l),
    err: (l) => console.error(l),
  }),
);
