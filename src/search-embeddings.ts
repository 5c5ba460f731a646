// `mcpkit/search-embeddings`: tool search by meaning for the host's `toolSearch.ranker`. `EmbeddingRanker` and
// `HybridRanker` take any embedder (a function from texts to vectors); `hybridToolRanker()` runs Google's Universal
// Sentence Encoder offline from npm packages (`@energetic-ai/*`, optional peers, loaded on the first index only).
export {
  type Embedder,
  EmbeddingRanker,
  type EmbeddingRankerOptions,
  embeddingText,
} from './host/search/embedding.js';
export { HybridRanker, type HybridRankerOptions } from './host/search/hybrid.js';
export {
  hybridToolRanker,
  type UniversalSentenceEncoderOptions,
  universalSentenceEncoder,
} from './host/search/use-embedder.js';
