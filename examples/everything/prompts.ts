import type { McpServer } from '../../src/index.js';
import { PNG_BASE64 } from './media.js';

const NAMES = ['Ada', 'Alan', 'Bob', 'Grace'];

/** Registers the conformance prompts and the fixture prompt `greet`. */
export function registerPrompts(server: McpServer): void {
  server.prompt('test_simple_prompt', { description: 'A prompt without arguments' }, () => [
    { role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } },
  ]);

  server.prompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with two required arguments',
      arguments: {
        arg1: { description: 'First test argument', required: true },
        arg2: { description: 'Second test argument', required: true },
      },
    },
    ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
  );

  server.prompt(
    'test_prompt_with_embedded_resource',
    {
      description: 'A prompt that embeds the resource it is given',
      arguments: { resourceUri: { description: 'URI of the resource to embed', required: true } },
    },
    ({ resourceUri }) => [
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: {
            uri: resourceUri,
            mimeType: 'text/plain',
            text: 'Embedded resource content for testing.',
          },
        },
      },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ],
  );

  server.prompt('test_prompt_with_image', { description: 'A prompt carrying an image' }, () => [
    { role: 'user', content: { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } },
    { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
  ]);

  // The fixture contract (test/fixtures/README.md).
  server.prompt(
    'greet',
    {
      description: 'Greets someone by name.',
      arguments: {
        name: {
          description: 'Who to greet',
          required: true,
          complete: (value) => NAMES.filter((n) => n.toLowerCase().startsWith(value.toLowerCase())),
        },
      },
    },
    ({ name }) => `Hello, ${name}!`,
  );
}
