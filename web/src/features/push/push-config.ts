import { createContext } from 'react';
import type { PublicConfig } from '../../../../shared/src/contracts/api';

/**
 * What the public config says about push, for every screen that asks about it (the after-sign-in prompt,
 * Settings): with `push: 'off'` nothing asks the push route, whose 404 Chromium logs as a console error.
 */
export type PushConfig = Pick<PublicConfig, 'vapidPublicKey' | 'push'>;
export const PushConfigContext = createContext<PushConfig>({});
