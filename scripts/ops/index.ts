import { userInfo } from 'node:os';
import { runOps } from './cli';

/** `npm run ops -- <command>`: operator commands against a deployment or the local stack (see cli.ts). */
const code = await runOps(process.argv.slice(2), {
  env: process.env,
  out: (t) => console.log(t),
  err: (t) => console.error(t),
  operator: userInfo().username,
});
process.exit(code);
