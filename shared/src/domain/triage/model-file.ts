import { join } from 'node:path';

/** Where the generated model lives; the worker imports it as JSON so it ships inside the bundle. */
export const MODEL_PATH = join(import.meta.dirname, 'triage-model.generated.json');

export function serializeModel(model: object): string {
  return `${JSON.stringify(model)}\n`;
}
