import { type Config, DEFAULT_ANTHROPIC_HELPER_MODEL, DEFAULT_ANTHROPIC_MODEL } from '../config';
import type { VendorNotice, VendorStatusResponse } from '../contracts/api';
import { checkConfiguredModels } from '../domain/model-lifecycle';
import { AppError } from '../errors';

export interface VendorStatusDeps {
  config: Pick<Config, 'ANTHROPIC_API_KEY' | 'ANTHROPIC_MODEL' | 'ANTHROPIC_HELPER_MODEL'>;
  clock: () => Date;
}

/**
 * The admin screen's vendor notices, computed from configuration and the clock (no vendor call): a model
 * near its end of life shows here as well as in the worker's start-up log.
 */
export async function vendorStatus(deps: VendorStatusDeps): Promise<VendorStatusResponse> {
  return { notices: modelNotices(deps) };
}

function modelNotices({ config: c, clock }: VendorStatusDeps): VendorNotice[] {
  if (!c.ANTHROPIC_API_KEY) return [];
  const settings = { ANTHROPIC_MODEL: c.ANTHROPIC_MODEL, ANTHROPIC_HELPER_MODEL: c.ANTHROPIC_HELPER_MODEL };
  const defaults = {
    ANTHROPIC_MODEL: DEFAULT_ANTHROPIC_MODEL,
    ANTHROPIC_HELPER_MODEL: DEFAULT_ANTHROPIC_HELPER_MODEL,
  };
  try {
    return checkConfiguredModels(settings, clock(), defaults).map((n) => ({
      vendor: 'anthropic',
      check: n.setting,
      state: n.state === 'current' ? 'ok' : 'warning',
      message: n.message,
    }));
  } catch (e) {
    // Retired: the worker refuses to start; the API still answers so the admin can read why.
    return [
      {
        vendor: 'anthropic',
        check: 'model',
        state: 'error',
        message: e instanceof AppError ? e.message : String(e),
      },
    ];
  }
}
