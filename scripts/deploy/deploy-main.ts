import { runDeploy } from './deploy-cli';

process.exit(
  await runDeploy(process.argv.slice(2), {
    env: process.env,
    out: (l) => console.log(l),
    err: (l) => console.error(l),
  }),
);
