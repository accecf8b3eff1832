import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

/**
 * `zod/mini` for the modules every function loads at cold start (config, queue envelopes): functional and
 * tree-shaken, where the classic API alone is ~450 KB in a bundle — the webhook's budget is 300 KB (issue
 * 16). Mini ships no messages; English ones are loaded here (a few KB) so a refusal still says what is wrong.
 * Classic zod, where a bundle already has it, sets the same locale.
 *
 * Import it as `import * as z from 'zod/mini'`: the named `z` export is a namespace object esbuild cannot
 * tree-shake, which brings all of zod (every locale included) back — 427 KB against 13 KB (biome.json refuses it).
 */
z.config(en());

/** A string of `min`..`max` characters. */
export const boundedString = (min: number, max: number) =>
  z.string().check(z.minLength(min), z.maxLength(max));

/** An array of at most `max` items. */
export const listOf = <T extends z.core.SomeType>(item: T, max: number) =>
  z.array(item).check(z.maxLength(max));
