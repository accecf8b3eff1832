import { startLocalStack } from './stack';

/** `npm start`: the whole system locally. `--fresh` wipes the data kept in .local/ between runs. */
const fresh = process.argv.includes('--fresh');
const port = Number(process.env.PORT ?? 3000);
const started = Date.now();
const stack = await startLocalStack({ port, dataDir: '.local', fresh, log: (l) => console.log(`  ${l}`) });
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
    process.exit(0);
  });
}
