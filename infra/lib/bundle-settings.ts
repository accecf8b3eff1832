import { join } from 'node:path';

/**
 * The esbuild settings every function is bundled with (infra/lib/ts-function.ts), kept free of CDK imports
 * so the post-bundle step (scripts/build/after-bundle.ts) and the bundle benchmark's baseline handlers use
 * the very same ones: a ratio then compares like with like.
 */
export const BUNDLE = {
  target: 'node22',
  minify: true,
  /**
   * No source maps by default: with `--enable-source-maps` Node reads and parses the map while loading the
   * module, which made the worker's init about 1.5× slower (2.3 s → 3.4 s, issue 16); errors are logged as
   * typed errors with codes. `-c switchboard:sourcemap=true` builds a debugging deploy with both.
   */
  sourceMap: false,
  /**
   * The Lambda runtime ships the AWS SDK v3; bundling it again would only add megabytes. unpdf (pdf.js) is
   * imported only when a PDF is read and shipped beside the bundle (scripts/build/after-bundle.ts).
   */
  external: ['@aws-sdk/*', 'unpdf'],
  // Some CJS dependencies call require(); give the ESM bundle one.
  banner: "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);",
  /**
   * Code splitting (issue 16): what a handler imports only on first use leaves the file loaded at init and
   * becomes chunk files beside it (scripts/build/after-bundle.ts re-bundles with it after CDK's single-file
   * pass, which cannot split).
   */
  splitting: true,
  /** NODE_OPTIONS when source maps are on; nothing otherwise. */
  sourceMapNodeOptions: '--enable-source-maps',
} as const;

const ROOT = join(import.meta.dirname, '..', '..');

/** The post-bundle step CDK runs in each artifact folder (a commandHooks.afterBundling command). */
export const AFTER_BUNDLE_SCRIPT = {
  tsx: join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
  script: join(ROOT, 'scripts', 'build', 'after-bundle.ts'),
};
