/**
 * The layer picture of docs/ARCHITECTURE.md as rules (issue 14), run by `npm run lint:deps` inside `npm test`:
 *
 *   functions/ → composition/ → use-cases/ → agent/ → ports/ ← adapters/
 *                                   └──────────→ tools/ ─┘      domain/ · contracts/ (used by all)
 *
 * Each rule names an arrow that must never exist; a wrong import fails the check with the rule's comment.
 * Tests (`*.test.ts`, test/) and the local stack's scripts may reach anything.
 */
const SRC = '^shared/src/';
const notTests = '\\.test\\.tsx?$';
/** Leaf modules with no imports of their own, usable from every layer (typed errors, ids, zod helpers). */
const LEAVES = '(errors|ids|zod-mini)\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment:
        'domain/ is pure logic: it imports only domain/ and contracts/ (no ports, adapters, SDKs or I/O).',
      severity: 'error',
      from: { path: `${SRC}domain/`, pathNot: notTests },
      to: {
        path: [
          `${SRC}(ports|adapters|agent|tools|use-cases|composition)/`,
          '^functions/',
          '^scripts/',
          '^node_modules/@aws-sdk/',
        ],
      },
    },
    {
      name: 'domain-no-io',
      comment: 'domain/ does no I/O: no file system, network, processes.',
      severity: 'error',
      from: { path: `${SRC}domain/`, pathNot: notTests },
      to: {
        dependencyTypes: ['core'],
        path: '^(node:)?(fs|fs/promises|net|http|https|child_process|dgram|dns|worker_threads)$',
      },
    },
    {
      name: 'contracts-stand-alone',
      comment: 'contracts/ (zod schemas shared with the PWA) import only contracts/.',
      severity: 'error',
      from: { path: `${SRC}contracts/`, pathNot: notTests },
      to: { path: [`${SRC}(?!contracts/|${LEAVES})`, '^functions/', '^scripts/'] },
    },
    {
      name: 'ports-see-contracts-and-domain',
      comment: 'ports/ are interfaces: they import contracts/, domain/ and other ports only.',
      severity: 'error',
      from: { path: `${SRC}ports/`, pathNot: notTests },
      to: { path: [`${SRC}(adapters|agent|tools|use-cases|composition)/`, '^functions/', '^scripts/'] },
    },
    {
      name: 'use-cases-see-ports',
      comment: 'use-cases/ see ports, never adapters, SDKs or the composition root.',
      severity: 'error',
      from: { path: `${SRC}use-cases/`, pathNot: notTests },
      to: { path: [`${SRC}(adapters|composition)/`, '^functions/', '^scripts/', '^node_modules/@aws-sdk/'] },
    },
    {
      name: 'agent-sees-ports',
      comment:
        'agent/ (the loop) sees ports and tools, never adapters, SDKs, use cases or the composition root.',
      severity: 'error',
      from: { path: `${SRC}agent/`, pathNot: notTests },
      to: {
        path: [
          `${SRC}(adapters|composition|use-cases)/`,
          '^functions/',
          '^scripts/',
          '^node_modules/@aws-sdk/',
        ],
      },
    },
    {
      name: 'tools-are-bound-to-ports',
      comment: 'tools/ are bound to ports; building their adapters is the composition root’s job.',
      severity: 'error',
      from: { path: `${SRC}tools/`, pathNot: notTests },
      to: { path: [`${SRC}(adapters|composition|use-cases)/`, '^functions/', '^scripts/'] },
    },
    {
      name: 'adapters-implement-ports',
      comment: 'adapters/ implement ports: they never call use cases, the agent or the composition root.',
      severity: 'error',
      from: { path: `${SRC}adapters/`, pathNot: notTests },
      to: { path: [`${SRC}(use-cases|agent|composition|tools)/`, '^functions/', '^scripts/'] },
    },
    {
      name: 'production-never-imports-scripts',
      comment: 'Production code never imports scripts/ (emulators, demo seed, local stack, benches).',
      severity: 'error',
      from: { path: ['^shared/src/', '^functions/', '^infra/'], pathNot: notTests },
      to: { path: '^scripts/' },
    },
    {
      name: 'web-imports-contracts-only',
      comment: 'The PWA imports only shared/src/contracts (zod schemas), never adapters, config or the SDKs.',
      severity: 'error',
      from: { path: '^web/src/', pathNot: notTests },
      to: { path: ['^shared/src/(?!contracts/)', '^functions/', '^scripts/', '^node_modules/@aws-sdk/'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)node_modules/', '\\.d\\.ts$'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
