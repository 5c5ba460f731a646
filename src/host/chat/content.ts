import type {
  CallToolResult,
  ContentBlock,
  PromptMessage,
  ReadResourceResult,
  SamplingContent,
  SamplingMessage,
  ToolResultContent,
} from '../../spec/types.js';
import { partsOf, resourcePart } from '../model/parts.js';

/** A tool's result as the `tool_result` block the model gets back. */
export function toolResultBlock(toolUseId: string, result: CallToolResult): ToolResultContent {
  return {
    type: 'tool_result',
    toolUseId,
    content: result.content,
    ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
    ...(result.isError === true ? { isError: true } : {}),
  };
}

/** A prompt's messages in the conversation: resource links and embedded resources become text (or images). */
export function promptMessages(messages: readonly PromptMessage[]): SamplingMessage[] {
  return messages.map((m) => ({ role: m.role, content: samplingContent([m.content]) }));
}

/** A read resource as content to attach to the next user message. */
export function resourceContent(result: ReadResourceResult): SamplingContent[] {
  return result.contents.map((c) => resourcePart(c));
}

function samplingContent(blocks: readonly ContentBlock[]): SamplingContent[] {
  return partsOf(blocks);
}
