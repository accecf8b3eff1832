import { startLocalStack } from '../../scripts/local/stack';

/**
 * The local stack in its own process, so a test can SIGKILL it (process group: node, DynamoDB Local's Java and
 * all) and start it again on the same data folder. Usage: `node --import tsx stack-child.ts <dataDir>
 * [--hold-sends]`. Prints one JSON line `{ url, env }` when ready.
 */
const [dataDir] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!dataDir) throw new Error('usage: stack-child.ts <dataDir> [--hold-sends]');
const stack = await startLocalStack({
  port: 0,
  dataDir,
  schedules: false,
  visibilityTimeoutSeconds: 3,
  env: { COOLDOWN_SECONDS: '1', STALE_EXECUTING_SECONDS: '2', LOG_LEVEL: 'ERROR' },
  openphone: { holdSends: process.argv.includes('--hold-sends') },
});
process.stdout.write(`${JSON.stringify({ url: stack.url, env: stack.env })}\n`);
process.on('SIGTERM', () => {
  void stack.stop().then(() => process.exit(0));
});
