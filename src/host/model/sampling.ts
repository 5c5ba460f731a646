import type { CreateMessageResult, SamplingContent } from '../../spec/types.js';
import type { HostSampling } from '../server-requests.js';
import type { ModelAdapter } from './types.js';

/** Options of {@link modelSampling}. */
export interface ModelSamplingOptions {
  /** The most tokens a server may ask for in one sampling request (its `maxTokens` is lowered to this). Default 4096. */
  maxTokens?: number;
}

/**
 * The host's model answering servers' `sampling/createMessage`: the request's messages, system prompt, limits and
 * tools go to the adapter as they are (MCP's sampling messages are the adapters' own form), and its answer comes
 * back as a `CreateMessageResult` (one block, or several when the model asks for tool calls).
 */
export function modelSampling(model: ModelAdapter, options: ModelSamplingOptions = {}): HostSampling {
  const cap = options.maxTokens ?? 4096;
  return async (params, context) => {
    const response = await model.complete({
      messages: params.messages,
      maxTokens: Math.max(1, Math.min(params.maxTokens, cap)),
      signal: context.signal,
      ...(params.systemPrompt === undefined ? {} : { system: params.systemPrompt }),
      ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
      ...(params.stopSequences === undefined ? {} : { stopSequences: params.stopSequences }),
      ...(params.tools === undefined ? {} : { tools: params.tools }),
      ...(params.toolChoice?.mode === undefined ? {} : { toolChoice: params.toolChoice.mode }),
    });
    const content: SamplingContent[] = response.content;
    const text = content.every((c) => c.type === 'text') ? content.map((c) => c.text).join('') : undefined;
    const result: CreateMessageResult = {
      role: 'assistant',
      // A text answer is one text block (what every revision accepts); tool calls need the list (2025-11-25).
      content: text !== undefined ? { type: 'text', text } : content,
      model: response.model,
      stopReason: response.stopReason,
    };
    return result;
  };
}
