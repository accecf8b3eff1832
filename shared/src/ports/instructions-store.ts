export interface InstructionsVersion {
  text: string;
  updatedAt: string;
  updatedBy: string;
}

/** Admin-editable system instructions, with every version kept. */
export interface InstructionsStore {
  current(): Promise<InstructionsVersion | undefined>;
  put(text: string, by: string, at: string): Promise<InstructionsVersion>;
  history(limit?: number): Promise<InstructionsVersion[]>;
}
