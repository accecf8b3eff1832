import { type Config, DEFAULT_ANTHROPIC_HELPER_MODEL, DEFAULT_ANTHROPIC_MODEL } from '../config';
import type { VendorNotice, VendorStatusResponse } from '../contracts/api';
import { checkConfiguredModels } from '../domain/model-lifecycle';
import { AppError, isAppError } from '../errors';

export interface VendorStatusDeps {
  config: Pick<Config, 'ANTHROPIC_API_KEY' | 'ANTHROPIC_MODEL' | 'ANTHROPIC_HELPER_MODEL'>;
  clock: () => Date;
  /** One probe per configured Google tool group (adapters/google/tool-groups.ts `GroupGate`). */
  googleGroups?: ReadonlyArray<{ group: string; label: string; check(): Promise<void> }>;
}

/**
 * The admin screen's vendor notices: a model near or past its end of life (from configuration and the
 * clock, as in the worker's start-up log) and each Google tool group's delegation (one token request per
 * group, the same probe the tools make).
 */
export async function vendorStatus(deps: VendorStatusDeps): Promise<VendorStatusResponse> {
  return { notices: [...modelNotices(deps), ...(await googleNotices(deps))] };
}

async function googleNotices({ googleGroups = [] }: VendorStatusDeps): Promise<VendorNotice[]> {
  return Promise.all(
    googleGroups.map(async (gate): Promise<VendorNotice> => {
      const label = gate.label;
      try {
        await gate.check();
        return { vendor: 'google', check: gate.group, state: 'ok', message: `${label}: delegated.` };
      } catch (e) {
        const disabled = isAppError(e) && e.code === 'integration_disabled';
        const message = disabled ? e.message : `${label}: ${String(e).slice(0, 300)}`;
        return { vendor: 'google', check: gate.group, state: 'error', message };
      }
    }),
  );
}

function modelNotices({ config: c, clock }: VendorStatusDeps): VendorNotice[] {
  // Not gated on ANTHROPIC_API_KEY: on AWS the API's secret group does not hold it, and the model settings
  // are plain settings, so the admin sees a retiring model whichever function would use it.
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
