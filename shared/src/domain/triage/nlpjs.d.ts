// NLP.js ships no type declarations; these cover the few members triage uses.
declare module '@nlpjs/core' {
  export interface Container {
    use(plugin: unknown): void;
  }
  export function containerBootstrap(settings?: Record<string, unknown>): Container;
}

declare module '@nlpjs/lang-en-min' {
  export const LangEn: unknown;
}

declare module '@nlpjs/nlu' {
  import type { Container } from '@nlpjs/core';
  export interface NluClassification {
    intent: string;
    score: number;
  }
  export interface NluExplanationItem {
    token: string;
    stem: string;
    weight?: number;
  }
  export class NluNeural {
    constructor(settings: Record<string, unknown> & { container: Container });
    train(
      corpus: Array<{ utterance: string; intent: string }>,
      settings?: Record<string, unknown>,
    ): Promise<unknown>;
    process(
      text: string,
      settings?: Record<string, unknown>,
    ): Promise<{ classifications: NluClassification[]; explanation?: NluExplanationItem[] }>;
    toJSON(): Record<string, unknown>;
    fromJSON(json: Record<string, unknown>): void;
  }
}
