import { ConfigError } from '../errors';
import { SDK_DEPRECATED_MODELS, SDK_MODELS } from '../generated/anthropic-models';

/**
 * Where a Claude model stands, read from the installed SDK's own model and deprecation lists (extracted at
 * build time into generated/anthropic-models.ts). Every date question takes the clock as an argument, so a
 * test's answer does not change on the day a model retires.
 */
export type ModelState = 'current' | 'deprecated' | 'retired' | 'unknown';

export interface ModelNotice {
  setting: string;
  model: string;
  state: ModelState;
  /** YYYY-MM-DD (UTC), for deprecated and retired models. */
  endOfLife?: string;
  /** Whole days until end of life (deprecated models only). */
  daysLeft?: number;
  message: string;
}

const DAY_MS = 86_400_000;

export function modelState(
  model: string,
  now: Date,
): { state: ModelState; endOfLife?: string; daysLeft?: number } {
  const deprecation = SDK_DEPRECATED_MODELS[model];
  if (deprecation) {
    // The API refuses a model from its end-of-life date on; we treat the whole day (UTC) as retired.
    const eol = Date.parse(`${deprecation.endOfLife}T00:00:00Z`);
    if (now.getTime() >= eol) return { state: 'retired', endOfLife: deprecation.endOfLife };
    return {
      state: 'deprecated',
      endOfLife: deprecation.endOfLife,
      daysLeft: Math.ceil((eol - now.getTime()) / DAY_MS),
    };
  }
  return { state: SDK_MODELS.includes(model) ? 'current' : 'unknown' };
}

/**
 * The rule our pinned defaults follow: the highest-numbered alias (`claude-<family>-<major>[-<minor>]`, no
 * date snapshot) in the SDK's model list that is not on its deprecation list. Used by the test that keeps
 * the pinned constants honest, never at run time.
 */
export function latestAlias(family: 'sonnet' | 'haiku' | 'opus'): string | undefined {
  const pattern = new RegExp(`^claude-${family}-(\\d+)(?:-(\\d{1,2}))?$`);
  const candidates = SDK_MODELS.flatMap((model) => {
    const m = model.match(pattern);
    if (!m || SDK_DEPRECATED_MODELS[model]) return [];
    return [{ model, major: Number(m[1]), minor: Number(m[2] ?? 0) }];
  });
  candidates.sort((a, b) => b.major - a.major || b.minor - a.minor);
  return candidates[0]?.model;
}

/**
 * Start-up check of the configured models: a retired model is a configuration error (every call would
 * fail and the agent would quietly run in rules mode); a deprecated or unknown one is a notice for the log
 * and the admin screen.
 */
export function checkConfiguredModels(
  settings: Record<string, string>,
  now: Date,
  defaults: Record<string, string> = {},
): ModelNotice[] {
  const notices: ModelNotice[] = [];
  for (const [setting, model] of Object.entries(settings)) {
    const s = modelState(model, now);
    const instead = defaults[setting] ? ` Use ${defaults[setting]} (the default) instead.` : '';
    if (s.state === 'retired') {
      throw new ConfigError(
        `Invalid configuration: ${setting}=${model} reached end of life on ${s.endOfLife} (the Anthropic SDK's deprecation list); every call would fail.${instead}`,
      );
    }
    if (s.state === 'deprecated') {
      notices.push({
        setting,
        model,
        ...s,
        message: `${setting}=${model} is deprecated and reaches end of life on ${s.endOfLife} (in ${s.daysLeft} days).${instead}`,
      });
    } else if (s.state === 'unknown') {
      notices.push({
        setting,
        model,
        state: 'unknown',
        message: `${setting}=${model} is not in the installed Anthropic SDK's model list; check the name.${instead}`,
      });
    } else notices.push({ setting, model, state: 'current', message: `${setting}=${model} is current.` });
  }
  return notices;
}
