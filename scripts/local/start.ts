import { startLocalStack } from './stack';
import { MissingToolError } from './tools-check';

/** `npm start`: the whole system locally. `--fresh` wipes the data kept in .local/ between runs. */
const fresh = process.argv.includes('--fresh');
// `--fake-claude`: Claude mode against the local fake Messages API (real SDK, no key, no network).
const fakeClaude = process.argv.includes('--fake-claude');
// `--slow-claude` (with --fake-claude): the fake model writes slowly (150 ms between streamed events), so an
// answer can be seen streaming into the PWA word by word (issue 19).
const slowClaude = process.argv.includes('--slow-claude');
// `--bundled`: run the artifacts the CDK app builds (cdk synth, rebuilt when the sources change) instead of
// the TypeScript sources — what Lambda runs, run_code's sandbox worker and wasm included.
const bundled = process.argv.includes('--bundled');
const port = Number(process.env.PORT ?? 3000);
const started = Date.now();
let claudeEnv: Record<string, string> = {};
let stopClaude = async () => {};
if (fakeClaude) {
  const { startAnthropicEmulator } = await import('../emulators/anthropic');
  const { fakeClaudeTurn } = await import('./fake-claude');
  const emu = await startAnthropicEmulator({
    apiKey: 'local-fake-key',
    defaultReply: fakeClaudeTurn,
    ...(slowClaude ? { latencyMs: 150 } : {}),
  });
  claudeEnv = { ANTHROPIC_API_KEY: 'local-fake-key', ANTHROPIC_BASE_URL: emu.url };
  stopClaude = () => emu.stop();
  console.log(`  Fake Claude     ${emu.url}`);
}
const stack = await startLocalStack({
  port,
  dataDir: '.local',
  fresh,
  bundled,
  env: claudeEnv,
  log: (l) => console.log(`  ${l}`),
}).catch(async (e: unknown) => {
  // A missing tool is one line saying what to install, not a stack trace.
  if (!(e instanceof MissingToolError)) throw e;
  console.error(`\n${e.message}`);
  await stopClaude();
  process.exit(1);
});
console.log(`\nSwitchboard is running (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
console.log(`  PWA + API       ${stack.url}`);
console.log(`  Health          ${stack.url}/health`);
console.log('\nCtrl-C stops everything.');

let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, async () => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping…');
    await stack.stop();
    await stopClaude();
    process.exit(0);
  });
}
